"""write-file: several correct strategies pass every hostile tier; plausible wrong ones fail."""

import pytest

from quotebench.scenarios import write_file
from tests.strategies import ansi_c, base64_pipe, double_quoted, heredoc, single_quoted_concat

HOSTILE = [t for t in write_file.tasks() if t.hostile]

CORRECT = {
    "printf-ansi-c": lambda p: f"printf '%s\\n' {ansi_c(p['payload'])} > {p['target']}",
    "echo-double-quoted": lambda p: f"echo {double_quoted(p['payload'])} > {p['target']}",
    "cat-quoted-heredoc": lambda p: f"cat > {p['target']} {heredoc(p['payload'])}",
    "base64": lambda p: f"{{ {base64_pipe(p['payload'])}; echo; }} > {p['target']}",
    "single-quote-concat": lambda p: f"printf '%s\\n' {single_quoted_concat(p['payload'])} > {p['target']}",
    "python": lambda p: (
        'python3 -c \'import sys; open(sys.argv[1], "w").write(sys.argv[2] + "\\n")\' '
        f"{p['target']} {ansi_c(p['payload'])}"
    ),
}

WRONG = {
    # printf with the payload as its format: % and backslashes are interpreted.
    "printf-format": lambda p: f"printf {double_quoted(p['payload'])}'\\n' > {p['target']}",
    # an unquoted heredoc delimiter: $ and backticks expand.
    "unquoted-heredoc": lambda p: f"cat > {p['target']} <<EOF\n{p['payload']}\nEOF",
    # the right content written through a helper script left behind.
    "helper-script": lambda p: (
        "cat > make.sh " + heredoc("printf '%s\\n' " + single_quoted_concat(p["payload"])) + "\n"
        f"bash make.sh > {p['target']}"
    ),
}
EXPECTED_WRONG = {
    "printf-format": {1: "pass", 2: "pass", 3: "tool-error"},
    "unquoted-heredoc": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "helper-script": {1: "environment-invalid", 2: "environment-invalid", 3: "environment-invalid"},
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
