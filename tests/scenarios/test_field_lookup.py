"""field-lookup: several correct strategies pass every hostile tier; plausible wrong ones fail."""

import pytest

from quotebench.scenarios import field_lookup
from quotebench.shellesc import awk_v_value
from tests.scenarios.matrix import strategy_tests
from tests.strategies import ansi_c, base64_pipe, double_quoted, single_quoted_concat

TASKS = field_lookup.tasks()

CORRECT = {
    "awk-environ": lambda p: (
        f"K={ansi_c(p['key'])} awk -F '|' '$1 == ENVIRON[\"K\"] {{ print $2 }}' {p['source']} > {p['target']}"
    ),
    "awk-key-from-stdin": lambda p: (
        f"{base64_pipe(p['key'])} | awk -F '|' 'NR == FNR {{ k = $0; next }} $1 == k {{ print $2 }}' "
        f"- {p['source']} > {p['target']}"
    ),
    "while-read-loop": lambda p: (
        f"k={single_quoted_concat(p['key'])}; "
        'while IFS=\'|\' read -r a b _; do if [ "$a" = "$k" ]; then printf \'%s\\n\' "$b"; fi; done '
        f"< {p['source']} > {p['target']}"
    ),
    "python-argv": lambda p: (
        "python3 -c 'import sys\nfor line in open(sys.argv[2]):\n"
        '    f = line.rstrip("\\n").split("|")\n'
        "    if f[0] == sys.argv[1]: print(f[1])' "
        f"{double_quoted(p['key'])} {p['source']} > {p['target']}"
    ),
}


def awk_string(text: str) -> str:
    """The key dropped into an awk string literal without awk-level escaping."""
    return f'"{text}"'


WRONG = {
    # quoting right, but a substring match: the first line containing the key anywhere wins.
    "grep-substring-first-hit": lambda p: (
        f"grep -F -- {ansi_c(p['key'])} {p['source']} | head -1 | cut -d'|' -f2 > {p['target']}"
    ),
    # quoting right, but a prefix match that stops at the first hit.
    "awk-index-prefix": lambda p: (
        f"K={single_quoted_concat(p['key'])} "
        f"awk -F '|' 'index($0, ENVIRON[\"K\"]) == 1 {{ print $2; exit }}' {p['source']} > {p['target']}"
    ),
    # quoting right, the key plus the separator, but not anchored to the start of the line.
    "grep-key-separator": lambda p: (
        f"grep -F -- {ansi_c(p['key'] + '|')} {p['source']} | cut -d'|' -f2 > {p['target']}"
    ),
    # the key inside the awk program's string literal: awk processes its escapes (and its quotes).
    "awk-string-literal": lambda p: (
        f"awk -F '|' {single_quoted_concat('$1 == ' + awk_string(p['key']) + ' { print $2 }')} "
        f"{p['source']} > {p['target']}"
    ),
    # shell quoting right, but awk -v escape processing forgotten.
    "v-without-awk-escaping": lambda p: (
        f"awk -F '|' -v key={single_quoted_concat(p['key'])} '$1 == key {{ print $2 }}' "
        f"{p['source']} > {p['target']}"
    ),
    # a double-quoted program with $1 escaped but $2 forgotten: the shell empties it, awk prints $0.
    "dollar2-in-double-quotes": lambda p: (
        f"awk -F '|' -v key={single_quoted_concat(awk_v_value(p['key']))} \"\\$1 == key {{ print $2 }}\" "
        f"{p['source']} > {p['target']}"
    ),
    # ENVIRON (no escape processing) but a double-quoted value with only " escaped.
    "environ-half-escaped": lambda p: (
        f'K="{p["key"].replace(chr(34), chr(92) + chr(34))}" '
        f"awk -F '|' '$1 == ENVIRON[\"K\"] {{ print $2 }}' {p['source']} > {p['target']}"
    ),
    # awk -v escaping right, but apostrophes "escaped" as \' inside single quotes.
    "backslash-apostrophe": lambda p: (
        f"awk -F '|' -v key='{awk_v_value(p['key']).replace(chr(39), chr(92) + chr(39))}' "
        f"'$1 == key {{ print $2 }}' {p['source']} > {p['target']}"
    ),
}
EXPECTED_WRONG = {
    "grep-substring-first-hit": dict.fromkeys((1, 2, 3), "silent-wrong"),
    "awk-index-prefix": dict.fromkeys((1, 2, 3), "silent-wrong"),
    "grep-key-separator": dict.fromkeys((1, 2, 3), "silent-wrong"),
    "awk-string-literal": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "v-without-awk-escaping": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "dollar2-in-double-quotes": {1: "silent-wrong", 2: "silent-wrong", 3: "silent-wrong"},
    "environ-half-escaped": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "backslash-apostrophe": {1: "shell-syntax", 2: "pass", 3: "shell-syntax"},
}


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_superstring_and_later_field_decoys_precede_the_target(task):
    key = task.params["key"]
    rows = [line.split("|") for line in task.fixture["files"]["work/table.txt"].splitlines()]
    before = rows[: [r[0] for r in rows].index(key)]
    assert any(r[0].startswith(key) and r[0] != key for r in before)  # a prefix or first-hit match is wrong
    assert any(key in r[1:-1] for r in before)  # the key followed by the separator, not at the start


@pytest.mark.parametrize("strategy", ["grep-substring-first-hit", "awk-index-prefix", "grep-key-separator"])
def test_whole_field_matching_is_enforced_in_the_control_too(outcome, strategy):
    assert outcome(TASKS[0], WRONG[strategy](TASKS[0].params))[0] == "silent-wrong"


test_correct_strategy_passes, test_wrong_strategy_fails_as_expected, test_two_wrong_reject_each_hostile = (
    strategy_tests(TASKS, CORRECT, WRONG, EXPECTED_WRONG)
)
