"""env-passing: several correct strategies pass every hostile tier; plausible wrong ones fail."""

from quotebench.scenarios import env_passing
from tests.scenarios.matrix import strategy_tests
from tests.strategies import ansi_c, base64_word, double_quoted, heredoc, single_quoted_concat

TASKS = env_passing.tasks()


def half_escaped(text: str) -> str:
    """ "..." with only $ and " escaped: the backtick and the backslash are forgotten."""
    return '"' + "".join("\\" + c if c in '"$' else c for c in text) + '"'


CORRECT = {
    "export-ansi-c": lambda p: f"export {p['var']}={ansi_c(p['value'])}; probe",
    "env-double-quoted": lambda p: f"env {p['var']}={double_quoted(p['value'])} probe",
    # $(...) strips the heredoc's final newline, and the value has none of its own.
    "cat-quoted-heredoc": lambda p: f'{p["var"]}="$(cat {heredoc(p["value"])}\n)" probe',
    "base64": lambda p: f"{p['var']}={base64_word(p['value'])} probe",
    "python-execvpe": lambda p: (
        'python3 -c \'import os, sys; os.execvpe("probe", ["probe"], '
        f'{{**os.environ, "{p["var"]}": sys.argv[1]}})\' {single_quoted_concat(p["value"])}'
    ),
}

WRONG = {
    # Backslash-escaping an apostrophe inside single quotes, which does not work in sh.
    "backslash-in-single-quotes": lambda p: f"{p['var']}='" + p["value"].replace("'", "\\'") + "' probe",
    # Double quotes with $ and " escaped, but backticks and backslashes left as they are.
    "half-escaped-double-quotes": lambda p: f"{p['var']}={half_escaped(p['value'])} probe",
    # An unquoted heredoc delimiter: $VAR, $(...) and backticks expand inside the body.
    "unquoted-heredoc": lambda p: f'{p["var"]}="$(cat <<EOF\n{p["value"]}\nEOF\n)" probe',
    # Correctly quoted, but assigned as a shell variable that is never exported.
    "unexported-assignment": lambda p: f"{p['var']}={single_quoted_concat(p['value'])}; probe",
    # read without -d stops at the first line break.
    "read-one-line": lambda p: f"IFS= read -r {p['var']} {heredoc(p['value'])}\nexport {p['var']}; probe",
}
EXPECTED_WRONG = {
    "backslash-in-single-quotes": {1: "shell-syntax", 2: "pass", 3: "shell-syntax"},
    "half-escaped-double-quotes": {1: "pass", 2: "silent-wrong", 3: "shell-syntax"},
    "unexported-assignment": {1: "silent-wrong", 2: "silent-wrong", 3: "silent-wrong"},
    "unquoted-heredoc": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "read-one-line": {1: "pass", 2: "pass", 3: "silent-wrong"},
}


def test_running_probe_twice_fails(outcome):
    task = TASKS[0]
    command = f"{task.oracle}; {task.oracle}"
    assert outcome(task, command)[0] == "silent-wrong"


test_correct_strategy_passes, test_wrong_strategy_fails_as_expected, test_two_wrong_reject_each_hostile = (
    strategy_tests(TASKS, CORRECT, WRONG, EXPECTED_WRONG)
)
