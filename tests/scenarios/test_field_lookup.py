"""field-lookup: several correct strategies pass every hostile tier; plausible wrong ones fail."""

from quotebench.scenarios import field_lookup
from quotebench.shellesc import awk_v_value
from tests.scenarios.matrix import strategy_tests
from tests.strategies import ansi_c, base64_pipe, double_quoted, single_quoted_concat

TASKS = field_lookup.tasks()
HOSTILE = [t for t in TASKS if t.hostile]

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
    "awk-string-literal": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "v-without-awk-escaping": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "dollar2-in-double-quotes": {1: "silent-wrong", 2: "silent-wrong", 3: "silent-wrong"},
    "environ-half-escaped": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "backslash-apostrophe": {1: "shell-syntax", 2: "pass", 3: "shell-syntax"},
}


test_correct_strategy_passes, test_wrong_strategy_fails_as_expected, test_two_wrong_reject_each_hostile = (
    strategy_tests(TASKS, CORRECT, WRONG, EXPECTED_WRONG)
)
