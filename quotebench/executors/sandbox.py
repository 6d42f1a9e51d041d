"""The local executor inside a bubblewrap sandbox: the model's command can write only its own task
tree, sees a read-only system, a private /tmp, no network and its own process namespace.

This is containment for running untrusted commands on a workstation, not a formal security boundary.
"""

from __future__ import annotations

import shutil

from quotebench import fsstate
from quotebench.executors.local import LocalExecutor


class SandboxUnavailable(LookupError):
    pass


class SandboxExecutor(LocalExecutor):
    name = "sandbox"

    def __init__(self, **options):
        self.bwrap = shutil.which("bwrap")
        if self.bwrap is None:
            raise SandboxUnavailable(
                "the sandbox executor needs bubblewrap: install it (apt-get install bubblewrap) or use "
                "--executor local"
            )
        super().__init__(**options)

    def argv(self, root: str, command: str) -> list[str]:
        # Later mounts cover earlier ones: the read-only system first, then fresh /dev and /proc,
        # then the task tree (which may live under /dev/shm or /tmp) writable on top. /tmp is the
        # tree's own temp directory, so a file left in /tmp is judged like any other stray file.
        # Killing bwrap ends the pid namespace, and with it every process the command started.
        return [
            self.bwrap,
            "--ro-bind", "/", "/",
            "--dev", "/dev",
            "--proc", "/proc",
            "--bind", root, root,
            "--bind", f"{root}/{fsstate.TMP}", "/tmp",
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            "--chdir", f"{root}/work",
            "--",
            "bash", "-c", command,
        ]  # fmt: skip
