"""ssh-nested: create a remote file through the ssh-like wrapper (double evaluation, SC2029)."""

from quotebench.model import Task, literal
from quotebench.shellesc import quote

SCENARIO = "ssh-nested"
TARGET = "motd.txt"

# Shared with ssh-heredoc: what a model must know about the wrapper to get the remote state right.
SSH_HELP = (
    "The command `ssh box` (the program `ssh` on PATH) reaches the remote machine `box`. It behaves "
    "like OpenSSH: the words after the host name are joined with single spaces and the result is run "
    "by bash on the remote side; with no command words, the remote bash reads its commands from "
    "standard input, and the local standard input is forwarded to the remote command either way. "
    "Remote commands start in the remote home directory, which is a different "
    "directory from the local working directory and has its own environment."
)

VARIANTS = [
    (0, "plain", (), "Backup finished at noon, all systems nominal."),
    (
        1,
        "apostrophe",
        ("apostrophe", "double-evaluation"),
        "Don't reboot box, it's Bob's build night.",
    ),
    (
        2,
        "client-expansion",
        ("dollar", "semicolon", "double-evaluation", "SC2029"),
        "Logs live in $HOME/logs; owner ${USER:-nobody}, cost $5",
    ),
    (
        3,
        "everything",
        (
            "apostrophe",
            "double-quote",
            "backtick",
            "command-substitution",
            "backslash",
            "newline",
            "dollar",
            "percent",
            "exclamation",
            "hash",
            "semicolon",
            "double-evaluation",
            "SC2029",
        ),
        "He said \"it's `id -un`'s box\" -- don't $(uname -s) it!\n"
        "  C:\\new\\table\\ stays \\\\ literal; cost: $5 & 100%\n"
        "echo '$HOME' \"$USER\" \\$PATH ~/x # end \\",
    ),
]


def make(tier: int, slug: str, hazards: tuple[str, ...], payload: str) -> Task:
    instruction = (
        f"{SSH_HELP}\n\nUsing `ssh box`, create the file {literal(TARGET)} in the remote home directory. "
        f"Its content must be exactly the text below, followed by a single newline:\n{literal(payload)}\n"
        "Create no file on the local side."
    )
    remote = f"printf '%s\\n' {quote(payload)} > {TARGET}"
    return Task(
        scenario=SCENARIO,
        tier=tier,
        slug=slug,
        hazards=hazards,
        instruction=instruction,
        fixture={"helpers": ["ssh"]},
        expect={"checks": [{"kind": "file", "path": f"remote/{TARGET}", "text": payload + "\n"}]},
        oracle=f"ssh box {quote(remote)}",
        # Quoted for one shell only: single quotes inside a double-quoted remote command (SC2029).
        naive=f"ssh box \"echo '{payload}' > {TARGET}\"",
        params={"payload": payload, "target": TARGET},
    )


def tasks() -> list[Task]:
    return [make(*variant) for variant in VARIANTS]
