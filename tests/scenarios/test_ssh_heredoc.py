"""ssh-heredoc: quoted heredocs (or no heredoc) through the wrapper pass; unquoted or colliding ones fail."""

from quotebench.scenarios import ssh_heredoc
from tests.scenarios.matrix import strategy_tests
from tests.strategies import ansi_c, base64_pipe, heredoc, single_quoted_concat

TASKS = ssh_heredoc.tasks()


def with_heredoc(command: str, text: str, delimiter: str) -> str:
    """`command <<DELIMITER`, the text, then the closing line (the delimiter without its quotes)."""
    return f"{command} <<{delimiter}\n{text}\n{delimiter.strip(chr(39))}"


CORRECT = {
    # the client's quoted heredoc feeds the remote cat's stdin: no shell sees the content.
    "stdin-heredoc": lambda p: f"ssh box 'cat > {p['target']}' {heredoc(p['payload'])}",
    # a remote script on stdin whose own heredoc is quoted as well.
    "nested-stdin-heredoc": lambda p: with_heredoc(
        "ssh box", with_heredoc(f"cat > {p['target']}", p["payload"], "'QB_INNER'"), "'QB_OUTER'"
    ),
    # a quoted heredoc inside the remote command word, single-quoted for the client.
    "heredoc-in-remote-command": lambda p: (
        "ssh box " + single_quoted_concat(with_heredoc(f"cat > {p['target']}", p["payload"], "'QB_INNER'"))
    ),
    "ansi-c-remote": lambda p: (
        "ssh box " + single_quoted_concat(f"printf %s {ansi_c(p['payload'] + chr(10))} > {p['target']}")
    ),
    "base64-remote": lambda p: f'ssh box "{base64_pipe(p["payload"] + chr(10))} > {p["target"]}"',
}

WRONG = {
    # the client expands $ and ` in the body; a bare EOF line ends it and the rest runs locally.
    "unquoted-stdin-heredoc": lambda p: with_heredoc(f"ssh box 'cat > {p['target']}'", p["payload"], "EOF"),
    # no expansion, but the usual delimiter collides with the bare EOF line of the content.
    "quoted-eof-collision": lambda p: with_heredoc(f"ssh box 'cat > {p['target']}'", p["payload"], "'EOF'"),
    # the outer script is quoted, the inner heredoc is not: $ expands on the remote side.
    "remote-unquoted-inner": lambda p: with_heredoc(
        "ssh box", with_heredoc(f"cat > {p['target']}", p["payload"], "EOF"), "'QB_OUTER'"
    ),
    # the right bytes, but written on the local side.
    "local-file": lambda p: f"cat > {p['target']} {heredoc(p['payload'])}",
}
EXPECTED_WRONG = {
    # t2: the lines after the bare EOF run and write motd.txt where no file may appear.
    "unquoted-stdin-heredoc": {1: "silent-wrong", 2: "environment-invalid", 3: "silent-wrong"},
    "quoted-eof-collision": {1: "pass", 2: "environment-invalid", 3: "shell-syntax"},
    "remote-unquoted-inner": {1: "silent-wrong", 2: "environment-invalid", 3: "silent-wrong"},
    "local-file": dict.fromkeys((1, 2, 3), "environment-invalid"),
}


test_correct_strategy_passes, test_wrong_strategy_fails_as_expected, test_two_wrong_reject_each_hostile = (
    strategy_tests(TASKS, CORRECT, WRONG, EXPECTED_WRONG)
)
