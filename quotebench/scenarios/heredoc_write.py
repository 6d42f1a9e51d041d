"""heredoc-write: create an exact multi-line file (unquoted-delimiter expansion, delimiter collision
with a bare EOF line in the content). ShellCheck has no code for a local unquoted heredoc: SC2087 is
only for heredocs fed to ssh (see ssh-heredoc)."""

from quotebench.model import Task, literal
from quotebench.shellesc import quote

SCENARIO = "heredoc-write"
TARGET = "setup.sh"

VARIANTS = [
    (0, "plain", (), "mkdir -p build\ncp -r src build\necho setup complete"),
    (
        1,
        "dollar",
        ("dollar", "heredoc-expansion"),
        "export PREFIX=$HOME/.local\nexport PATH=$PREFIX/bin:$PATH\necho installing ${PKG:-all} for $USER",
    ),
    (
        2,
        "delimiter",
        ("heredoc-delimiter", "hash"),
        # A bare EOF line ends the naive heredoc early and `exit 0` then runs: exit status 0.
        "# print the help text, then stop\ncat <<EOF\nusage: setup.sh [--force] [--prefix DIR]\nEOF\nexit 0",
    ),
    (
        3,
        "everything",
        (
            "heredoc-expansion",
            "heredoc-delimiter",
            "backtick",
            "backslash",
            "dollar",
            "command-substitution",
            "apostrophe",
            "double-quote",
            "percent",
            "exclamation",
            "hash",
            "semicolon",
        ),
        "#!/bin/sh\n"
        '# it\'s "generated" -- edit with care\n'
        "root=${ROOT:-$HOME/srv}; rev=`cat VERSION`\n"
        "printf 'C:\\new\\table %s\\n' \"$(uname -s)\" \\\n"
        '  >> "$root/setup.log"\n'
        "cat <<'EOF'\n"
        "100% literal: $rev \\$HOME \\\\ `id -un` \\\n"
        "EOF\n"
        "END\n"
        'echo "done \\"$rev\\"" \\',
    ),
]


def make(tier: int, slug: str, hazards: tuple[str, ...], payload: str) -> Task:
    instruction = (
        f"Create the file {literal(TARGET)} in the working directory. Its content must be exactly the "
        f"lines below, followed by a single newline after the last line:\n{literal(payload)}\n"
        "Only write the file; do not run it."
    )
    return Task(
        scenario=SCENARIO,
        tier=tier,
        slug=slug,
        hazards=hazards,
        instruction=instruction,
        fixture={},
        expect={"checks": [{"kind": "file", "path": f"work/{TARGET}", "text": payload + "\n"}]},
        oracle=f"printf '%s\\n' {quote(payload)} > {TARGET}",
        # The structural mistake: the usual unquoted EOF delimiter (expands $ and `, ends at a bare EOF).
        naive=f"cat > {TARGET} <<EOF\n{payload}\nEOF",
        params={"payload": payload, "target": TARGET},
    )


def tasks() -> list[Task]:
    return [make(*variant) for variant in VARIANTS]
