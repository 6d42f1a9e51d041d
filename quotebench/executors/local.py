"""Run `bash -c CMD` directly (execve, no extra shell) in a fresh copy of the task's fixture."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

from quotebench import fsstate
from quotebench.executors import Execution
from quotebench.model import Task

TAIL_BYTES = 4096
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def command_env(root: str) -> dict[str, str]:
    """The whole environment of the command, built from nothing: no parent variable (API keys
    included) can reach it."""
    return {
        "HOME": os.path.join(root, fsstate.WORK),
        "PATH": os.path.join(root, fsstate.BIN) + ":" + SYSTEM_PATH,
        "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "USER": "quotebench",
        "TMPDIR": os.path.join(root, fsstate.TMP),
    }


def read_tail(path: str) -> str:
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        fh.seek(max(0, fh.tell() - TAIL_BYTES))
        return fh.read().decode("utf-8", errors="replace")


def force_remove(path: str) -> None:
    """Remove an attempt tree even if the command made parts of it read-only."""
    try:
        shutil.rmtree(path)
    except OSError:
        for dirpath, dirnames, _files in os.walk(path):
            for name in dirnames:
                os.chmod(os.path.join(dirpath, name), 0o700)
            os.chmod(dirpath, 0o700)
        shutil.rmtree(path, ignore_errors=True)


def collect(
    task: Task,
    root: str,
    baseline: dict,
    attempt: str,
    exit_code,
    timed_out: bool,
    parsed: bool,
    duration: float,
) -> Execution:
    """What every executor returns once the command has ended: the facts, the output tails (from the
    attempt's stdout and stderr files) and the judge's verdict on the tree."""
    out_path, err_path = os.path.join(attempt, "stdout"), os.path.join(attempt, "stderr")
    return Execution(
        exit_code=exit_code,
        timed_out=timed_out,
        syntax_ok=parsed,
        stdout_tail=read_tail(out_path) if os.path.exists(out_path) else "",
        stderr_tail=read_tail(err_path) if os.path.exists(err_path) else "",
        duration_s=round(duration, 4),
        verdict=fsstate.judge(task.expect, root, baseline),
    )


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def syntax_ok(command: str) -> bool:
    done = subprocess.run(
        ["bash", "-n", "-c", command], stdin=subprocess.DEVNULL, capture_output=True, env={"LC_ALL": "C"}
    )
    return done.returncode == 0


def default_base_dir() -> str | None:
    """Attempt trees are small and short-lived: a RAM-backed /dev/shm keeps creating and deleting
    them cheap and steady (on this machine's disk a single mkdir can take a millisecond).
    QB_TMPDIR overrides; otherwise the platform's temp dir is used."""
    chosen = os.environ.get("QB_TMPDIR")
    if chosen:
        return chosen
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK | os.X_OK):
        return "/dev/shm"
    return None


class LocalExecutor:
    name = "local"

    def __init__(self, base_dir: str | None = None, timeout: float = 15.0):
        self.base_dir = base_dir if base_dir is not None else default_base_dir()
        self.timeout = timeout
        self._templates: dict[str, tuple[str, dict]] = {}
        self._lock = threading.Lock()
        self._scratch = tempfile.mkdtemp(prefix="qb-templates-", dir=self.base_dir)

    def toolchain(self) -> dict[str, str]:
        """First version line of each tool the tasks lean on (recorded in every run header)."""
        versions = {}
        for tool, flag in (
            ("bash", "--version"),
            ("sed", "--version"),
            ("grep", "--version"),
            ("awk", "-W version"),
            ("git", "--version"),
        ):
            done = subprocess.run(
                [tool, *flag.split()], capture_output=True, text=True, env={"PATH": SYSTEM_PATH}
            )
            versions[tool] = (done.stdout or done.stderr).strip().split("\n")[0]
        return versions

    def close(self) -> None:
        shutil.rmtree(self._scratch, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def argv(self, root: str, command: str) -> list[str]:
        """What is executed: bash itself, with the command as its single -c argument."""
        return ["bash", "-c", command]

    def prepare(self, tasks: list[Task]) -> None:
        """Build the fixture templates of these tasks now (before forking workers, say)."""
        for task in tasks:
            self._template(task)

    def _template(self, task: Task) -> tuple[str, dict]:
        """Build each task's fixture once; attempts copy it (git repos included) instead."""
        with self._lock:
            if task.digest not in self._templates:
                path = os.path.join(self._scratch, task.digest)
                fsstate.build(task.fixture, path)
                self._templates[task.digest] = (path, fsstate.snapshot(path))
            return self._templates[task.digest]

    def run(self, task: Task, command: str) -> Execution:
        template, baseline = self._template(task)
        attempt = tempfile.mkdtemp(prefix="qb-attempt-", dir=self.base_dir)
        root = os.path.join(attempt, "root")
        try:
            shutil.copytree(template, root, symlinks=True)
            return self._execute(task, command, attempt, root, baseline)
        finally:
            force_remove(attempt)

    def _execute(self, task: Task, command: str, attempt: str, root: str, baseline: dict) -> Execution:
        out_path, err_path = os.path.join(attempt, "stdout"), os.path.join(attempt, "stderr")
        started = time.perf_counter()
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(
                self.argv(root, command),
                cwd=os.path.join(root, fsstate.WORK),
                env=command_env(root),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
            # A timer kills on timeout, so the wait below blocks instead of polling (Popen.wait with a
            # timeout sleeps in a loop, which costs milliseconds on every short command).
            fired = threading.Event()

            def expire() -> None:
                fired.set()
                _kill_group(proc.pid)

            timer = threading.Timer(self.timeout, expire)
            timer.start()
            try:
                returncode = proc.wait()
            finally:
                timer.cancel()
                # The whole process group goes, so a backgrounded grandchild cannot outlive the attempt.
                _kill_group(proc.pid)
            timed_out = fired.is_set()
            exit_code = None if timed_out else returncode
        # bash exits 2 on a parse error; only then is the extra bash -n worth its spawn.
        parsed = exit_code != 2 or syntax_ok(command)
        return collect(
            task, root, baseline, attempt, exit_code, timed_out, parsed, time.perf_counter() - started
        )
