"""grep-count: several correct strategies pass every hostile tier; plausible wrong ones fail."""

import subprocess

import pytest

from quotebench.scenarios import grep_count
from tests.scenarios.matrix import strategy_tests
from tests.strategies import ansi_c, base64_word, double_quoted, single_quoted_concat

TASKS = grep_count.tasks()

CORRECT = {
    "grep-ansi-c": lambda p: f"grep -cF -- {ansi_c(p['needle'])} {p['source']} > {p['target']}",
    "awk-index-environ": lambda p: (
        f"N={single_quoted_concat(p['needle'])} "
        f"awk 'index($0, ENVIRON[\"N\"]) {{ c++ }} END {{ print c + 0 }}' {p['source']} > {p['target']}"
    ),
    "python-argv": lambda p: (
        "python3 -c 'import sys; n = sys.argv[1]; print(sum(n in line for line in open(sys.argv[2])))' "
        f"{double_quoted(p['needle'])} {p['source']} > {p['target']}"
    ),
    "while-read-case": lambda p: (
        f"n={base64_word(p['needle'])}; c=0; "
        f'while IFS= read -r l; do case $l in *"$n"*) c=$((c + 1)) ;; esac; done < {p["source"]}; '
        f'echo "$c" > {p["target"]}'
    ),
    "grep-patterns-from-heredoc": lambda p: (
        f"grep -F -f - {p['source']} <<'END_OF_NEEDLE' | wc -l > {p['target']}\n{p['needle']}\nEND_OF_NEEDLE"
    ),
    "printf-count-newline": lambda p: (
        f"printf '%d\\n' \"$(grep -cF -- {single_quoted_concat(p['needle'])} {p['source']})\" > {p['target']}"
    ),
}


def dq_forgetting_dollar(text: str) -> str:
    """Double quotes with " and \\ escaped but $ left alone (a half-done escape)."""
    return '"' + "".join("\\" + c if c in '\\"' else c for c in text) + '"'


WRONG = {
    # shell quoting right, but the needle is read as a regular expression.
    "regex-mode": lambda p: f"grep -c -e {single_quoted_concat(p['needle'])} {p['source']} > {p['target']}",
    # -F but no -e/--: a needle with a leading dash becomes an option (--exclude=... is a real one).
    "no-double-dash": lambda p: f"grep -cF {single_quoted_concat(p['needle'])} {p['source']} > {p['target']}",
    # double quotes with " and \ escaped but $ forgotten: $OUT expands to nothing.
    "dollar-in-double-quotes": lambda p: (
        f"grep -cF -e {dq_forgetting_dollar(p['needle'])} {p['source']} > {p['target']}"
    ),
    # counts occurrences, not lines.
    "occurrences": lambda p: f"grep -oF -e {ansi_c(p['needle'])} {p['source']} | wc -l > {p['target']}",
    # case-insensitive match.
    "case-insensitive": lambda p: f"grep -ciF -e {ansi_c(p['needle'])} {p['source']} > {p['target']}",
    # the right count, but without the newline the instruction asks for.
    "no-trailing-newline": lambda p: (
        f'printf %s "$(grep -cF -e {ansi_c(p["needle"])} {p["source"]})" > {p["target"]}'
    ),
}
EXPECTED_WRONG = {
    "regex-mode": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "no-double-dash": {1: "pass", 2: "pass", 3: "runtime-error"},
    "dollar-in-double-quotes": {1: "pass", 2: "pass", 3: "silent-wrong"},
    "occurrences": {1: "silent-wrong", 2: "silent-wrong", 3: "silent-wrong"},
    "case-insensitive": {1: "silent-wrong", 2: "silent-wrong", 3: "silent-wrong"},
    "no-trailing-newline": {1: "silent-wrong", 2: "silent-wrong", 3: "silent-wrong"},
}


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_decoys_separate_the_counts(tmp_path, task):
    """Literal and case-insensitive counts always differ; with regex metacharacters, the regex count
    differs from both (as a regex, a pattern need not even match its own text)."""
    path = tmp_path / "log"
    path.write_text("".join(line + "\n" for line in task.params["lines"]))

    def count(*flags: str) -> int:
        done = subprocess.run(
            ["grep", "-c", *flags, "-e", task.params["needle"], str(path)], capture_output=True
        )
        return int(done.stdout)

    literal, folded, regex = count("-F"), count("-F", "-i"), count()
    assert literal == task.params["count"]
    assert folded != literal
    if task.tier >= 2:
        assert len({literal, folded, regex}) == 3, (literal, folded, regex)


test_correct_strategy_passes, test_wrong_strategy_fails_as_expected, test_two_wrong_reject_each_hostile = (
    strategy_tests(TASKS, CORRECT, WRONG, EXPECTED_WRONG)
)
