"""ssh-nested: correct two-layer quoting passes every hostile tier; one-layer quoting fails."""

from quotebench.scenarios import ssh_nested
from tests.scenarios.matrix import strategy_tests
from tests.strategies import ansi_c, base64_pipe, double_quoted, heredoc, single_quoted_concat

TASKS = ssh_nested.tasks()


def sq_escaped(text: str) -> str:
    """Single quotes with each apostrophe as '\\'' (right for exactly one shell)."""
    return "'" + text.replace("'", "'\\''") + "'"


CORRECT = {
    # $'...' passes through the client's double quotes untouched and is decoded by the remote bash.
    "ansi-c-remote": lambda p: f"ssh box \"printf '%s\\n' {ansi_c(p['payload'])} > {p['target']}\"",
    # the content travels on stdin, so it is never evaluated by either shell.
    "stdin-pipe": lambda p: (
        f"printf '%s\\n' {single_quoted_concat(p['payload'])} | ssh box 'cat > {p['target']}'"
    ),
    # the remote command is quoted for the remote (double quotes) and then for the client.
    "double-then-single": lambda p: (
        "ssh box " + single_quoted_concat(f"printf '%s\\n' {double_quoted(p['payload'])} > {p['target']}")
    ),
    # printf %q re-quotes the client-side value for the remote shell.
    "printf-q": lambda p: f"ssh box \"printf '%s\\n' $(printf %q {ansi_c(p['payload'])}) > {p['target']}\"",
    "base64-remote": lambda p: f'ssh box "{base64_pipe(p["payload"] + chr(10))} > {p["target"]}"',
    # a script on the remote bash's stdin, with a quoted inner heredoc.
    "remote-script-heredoc": lambda p: (
        f"ssh box <<'QB_OUTER'\ncat > {p['target']} {heredoc(p['payload'])}\nQB_OUTER"
    ),
}

WRONG = {
    # right two-layer quoting, but the redirection happens on the client: a local file.
    "redirect-local": lambda p: (
        "ssh box " + sq_escaped(f"printf '%s\\n' {sq_escaped(p['payload'])}") + f" > {p['target']}"
    ),
    # quoted for the remote shell only, inside client double quotes: $ and ` expand locally (SC2029).
    "client-expansion": lambda p: f"ssh box \"printf '%s\\n' {sq_escaped(p['payload'])} > {p['target']}\"",
    # quoted for the client only; the payload sits in remote double quotes and expands remotely.
    "remote-double-quotes": lambda p: (
        "ssh box " + sq_escaped(f"printf '%s\\n' \"{p['payload']}\" > {p['target']}")
    ),
    # the myth that \' escapes an apostrophe inside single quotes.
    "backslash-apostrophe": lambda p: (
        "ssh box \"echo '" + p["payload"].replace("'", "\\'") + f"' > {p['target']}\""
    ),
}
EXPECTED_WRONG = {
    "redirect-local": dict.fromkeys((1, 2, 3), "environment-invalid"),
    "client-expansion": {1: "pass", 2: "silent-wrong", 3: "shell-syntax"},
    "remote-double-quotes": {1: "pass", 2: "silent-wrong", 3: "shell-syntax"},
    "backslash-apostrophe": {1: "shell-syntax", 2: "silent-wrong", 3: "silent-wrong"},
}


test_correct_strategy_passes, test_wrong_strategy_fails_as_expected, test_two_wrong_reject_each_hostile = (
    strategy_tests(TASKS, CORRECT, WRONG, EXPECTED_WRONG)
)
