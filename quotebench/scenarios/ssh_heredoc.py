"""ssh-heredoc: create an exact multi-line remote file through the ssh-like wrapper (nested heredoc
quoting, remote-side expansion, delimiter collision)."""

from quotebench.model import Task, literal
from quotebench.scenarios.ssh_nested import SSH_HELP
from quotebench.shellesc import naive_wrap, quote

SCENARIO = "ssh-heredoc"
TARGET = "deploy.sh"

VARIANTS = [
    (0, "plain", (), "echo starting deploy\nsleep 1\necho deploy done"),
    (
        1,
        "remote-dollar",
        ("dollar", "heredoc-expansion", "double-evaluation", "SC2029", "SC2087"),
        "export APP_DIR=$HOME/app\ncd $APP_DIR && ./run ${MODE:-prod}\necho deployed by $USER",
    ),
    (
        2,
        "delimiter",
        ("heredoc-delimiter", "redirection"),
        "cat > motd.txt <<EOF\nWelcome to box\nEOF\ncat >> motd.txt <<END\nMaintenance on Sunday\nEND\n"
        "echo motd written",
    ),
    (
        3,
        "everything",
        (
            "heredoc-delimiter",
            "heredoc-expansion",
            "double-evaluation",
            "apostrophe",
            "double-quote",
            "dollar",
            "backtick",
            "command-substitution",
            "backslash",
            "percent",
            "exclamation",
            "hash",
            "semicolon",
            "SC2029",
            "SC2087",
        ),
        "#!/bin/bash\n"
        "# deploy.sh -- don't edit by hand, it's \"generated\"\n"
        'target="${DEPLOY_DIR:-$HOME/app}"; rev=`cat REVISION`\n'
        'echo "Deploying $rev to $target as $(id -un)\\n" \\\n'
        "cat > \"motd-$rev.txt\" <<'EOF'\n"
        "Welcome: C:\\new\\table 100% \\\\ \\$HOME \\\n"
        "EOF\n"
        "EOF'\n"
        "printf '%s\\n' 'done' \\\\ \"EOF\"",
    ),
]


def make(tier: int, slug: str, hazards: tuple[str, ...], payload: str) -> Task:
    instruction = (
        f"{SSH_HELP}\n\nUsing `ssh box`, create the file {literal(TARGET)} in the remote home directory. "
        f"Its content must be exactly the lines below, followed by a single newline after the last "
        f"line:\n{literal(payload)}\nOnly write the file; do not run it. Create no file on the local side."
    )
    return Task(
        scenario=SCENARIO,
        tier=tier,
        slug=slug,
        hazards=hazards,
        instruction=instruction,
        fixture={"helpers": ["ssh"]},
        expect={"checks": [{"kind": "file", "path": f"remote/{TARGET}", "text": payload + "\n"}]},
        oracle=f"printf '%s\\n' {quote(payload)} | ssh box {quote('cat > ' + TARGET)}",
        # The tempting nesting: a heredoc with the usual bare delimiter inside a double-quoted remote
        # command, so $ expands on both sides and a bare EOF line in the content ends it early.
        naive=f"ssh box {naive_wrap(f'cat > {TARGET} <<EOF' + chr(10) + payload + chr(10) + 'EOF')}",
        params={"payload": payload, "target": TARGET},
    )


def tasks() -> list[Task]:
    return [make(*variant) for variant in VARIANTS]
