"""heredoc-write: a heredoc with a quoted, unique delimiter (or no heredoc) passes; the usual ones fail."""

from quotebench.scenarios import heredoc_write
from quotebench.shellesc import naive_wrap
from tests.scenarios.matrix import strategy_tests
from tests.strategies import ansi_c, base64_pipe, double_quoted, heredoc

TASKS = heredoc_write.tasks()

CORRECT = {
    "quoted-heredoc": lambda p: f"cat > {p['target']} {heredoc(p['payload'])}",
    # a backslash anywhere in the delimiter word quotes it just as well.
    "backslash-delimiter": lambda p: f"cat > {p['target']} <<\\QB_END\n{p['payload']}\nQB_END",
    "printf-ansi-c": lambda p: f"printf '%s\\n' {ansi_c(p['payload'])} > {p['target']}",
    "printf-double-quoted": lambda p: f"printf '%s\\n' {double_quoted(p['payload'])} > {p['target']}",
    "base64": lambda p: f"{base64_pipe(p['payload'] + chr(10))} > {p['target']}",
}

WRONG = {
    # quoted, so nothing expands, but the usual delimiter collides with the content's bare EOF line.
    "quoted-eof-collision": lambda p: f"cat > {p['target']} <<'EOF'\n{p['payload']}\nEOF",
    # unquoted delimiter with every $ escaped: backticks and backslashes are still processed.
    "escaped-dollars-only": lambda p: (
        f"cat > {p['target']} <<EOF\n{p['payload'].replace('$', chr(92) + '$')}\nEOF"
    ),
    # no heredoc at all, just the tempting quote choice.
    "echo-naive-quotes": lambda p: f"echo {naive_wrap(p['payload'])} > {p['target']}",
    # the right bytes, by way of a draft file that is left behind.
    "draft-then-copy": lambda p: f"cat > draft.txt {heredoc(p['payload'])}\ncp draft.txt {p['target']}",
}
EXPECTED_WRONG = {
    # t2/t3: the early end leaves a truncated file, then the rest runs and ends in exit 0 or echo.
    "quoted-eof-collision": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "escaped-dollars-only": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "echo-naive-quotes": {1: "silent-wrong", 2: "pass", 3: "shell-syntax"},
    "draft-then-copy": dict.fromkeys((1, 2, 3), "environment-invalid"),
}


test_correct_strategy_passes, test_wrong_strategy_fails_as_expected, test_two_wrong_reject_each_hostile = (
    strategy_tests(TASKS, CORRECT, WRONG, EXPECTED_WRONG)
)
