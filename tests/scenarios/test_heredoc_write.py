"""heredoc-write: a heredoc with a quoted, unique delimiter (or no heredoc) passes; the usual ones fail."""

import pytest

from quotebench.scenarios import heredoc_write
from quotebench.shellesc import naive_wrap
from tests.strategies import ansi_c, base64_pipe, double_quoted, heredoc

TASKS = heredoc_write.tasks()
HOSTILE = [t for t in TASKS if t.hostile]

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


@pytest.mark.parametrize("strategy", CORRECT)
@pytest.mark.parametrize("task", HOSTILE, ids=lambda t: t.id)
def test_correct_strategy_passes(outcome, task, strategy):
    failure, execution = outcome(task, CORRECT[strategy](task.params))
    assert failure == "pass", execution


@pytest.mark.parametrize("strategy", WRONG)
@pytest.mark.parametrize("task", HOSTILE, ids=lambda t: t.id)
def test_plausible_wrong_strategy_fails_as_expected(outcome, task, strategy):
    failure, execution = outcome(task, WRONG[strategy](task.params))
    assert failure == EXPECTED_WRONG[strategy][task.tier], execution


def test_every_hostile_tier_is_rejected_by_two_wrong_commands():
    for task in HOSTILE:
        assert sum(EXPECTED_WRONG[w][task.tier] != "pass" for w in WRONG) >= 2, task.id


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_oracle_passes_and_naive_only_passes_the_control(outcome, task):
    assert outcome(task, task.oracle)[0] == "pass"
    naive, execution = outcome(task, task.naive)
    assert (naive == "pass") == (not task.hostile), execution
