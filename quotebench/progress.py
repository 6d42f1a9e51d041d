"""A progress bar on stderr for long work; silent when stderr is not a terminal."""

from __future__ import annotations

import sys
import threading


class Progress:
    def __init__(self, total: int, label: str):
        self.total, self.label = total, label
        self._bar = None
        self._lock = threading.Lock()

    def __enter__(self) -> Progress:
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=self.total)
        return self

    def advance(self, n: int = 1) -> None:
        if self._bar is not None:
            with self._lock:
                self._bar.advance(self._task, n)

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.stop()
