"""bulk-rename: several correct strategies pass every hostile tier; plausible wrong ones fail."""

import pytest

from quotebench.scenarios import bulk_rename
from tests.scenarios.matrix import strategy_tests
from tests.strategies import ansi_c, base64_word, double_quoted, heredoc, single_quoted_concat

TASKS = bulk_rename.tasks()

CORRECT = {
    # ./ on both names instead of --: the prefix may start with a dash too.
    "dot-slash-ansi-c": lambda p: (
        f'cd {p["dir"]} && for f in *.txt; do mv "./$f" ./{ansi_c(p["prefix"])}"$f"; done'
    ),
    # find hands the paths to an inner bash as arguments; the prefix travels as its $0.
    "find-exec-bash": lambda p: (
        f"find {p['dir']} -maxdepth 1 -type f -name '*.txt' -exec bash -c "
        '\'for p; do mv -- "$p" "${p%/*}/$0${p##*/}"; done\' '
        f"{double_quoted(p['prefix'])} {{}} +"
    ),
    "python-glob": lambda p: (
        "python3 -c 'import glob, os, sys\n"
        f'os.chdir("{p["dir"]}")\n'
        'for n in glob.glob("*.txt"):\n    os.rename(n, sys.argv[1] + n)\' '
        f"{single_quoted_concat(p['prefix'])}"
    ),
    # the prefix read from a quoted heredoc; NUL-separated names survive line breaks.
    "nul-read-loop": lambda p: (
        f"IFS= read -r pre {heredoc(p['prefix'])}\n"
        f"cd {p['dir']} && printf '%s\\0' *.txt | "
        'while IFS= read -r -d \'\' f; do mv -- "$f" "$pre$f"; done'
    ),
    "array-base64": lambda p: (
        f"cd {p['dir']} && files=(*.txt) && pre={base64_word(p['prefix'])} && "
        'for f in "${files[@]}"; do mv -- "$f" "$pre$f"; done'
    ),
}

WRONG = {
    # SC2086 with -- in place: names are split on spaces and globbed against the directory.
    "unquoted-f-dashdash": lambda p: (
        f"cd {p['dir']} && for f in *.txt; do mv -- $f {single_quoted_concat(p['prefix'])}$f; done"
    ),
    # everything quoted, but a leading dash (in a name or the prefix) is read as options.
    "no-dashdash": lambda p: (
        f'cd {p["dir"]} && for f in *.txt; do mv "$f" {single_quoted_concat(p["prefix"])}"$f"; done'
    ),
    # parsing ls: read without IFS= and -r eats edge spaces and backslashes; a line break splits a name.
    "ls-while-read": lambda p: (
        f"cd {p['dir']} && ls | grep '\\.txt$' | "
        f'while read f; do mv -- "$f" {single_quoted_concat(p["prefix"])}"$f"; done'
    ),
}
EXPECTED_WRONG = {
    "unquoted-f-dashdash": {1: "runtime-error", 2: "silent-wrong", 3: "runtime-error"},
    "no-dashdash": {1: "pass", 2: "tool-error", 3: "tool-error"},
    "ls-while-read": {1: "silent-wrong", 2: "pass", 3: "runtime-error"},
}


@pytest.mark.parametrize("strategy", WRONG)
def test_wrong_strategies_pass_the_control(outcome, strategy):
    # They fail on the hostile names, not on the operation.
    assert outcome(TASKS[0], WRONG[strategy](TASKS[0].params))[0] == "pass"


def test_the_subdirectory_and_decoys_must_stay(outcome):
    task = TASKS[3]
    prefix = single_quoted_concat(task.params["prefix"])
    recursive = (
        f"find {task.params['dir']} -type f -name '*.txt' -exec bash -c "
        '\'for p; do mv -- "$p" "${p%/*}/$0${p##*/}"; done\' '
        f"{prefix} {{}} +"
    )
    failure, execution = outcome(task, recursive)
    # the renamed copy in the subdirectory is a stray new path, the original is collateral damage
    assert failure == "environment-invalid"
    assert execution.verdict["collateral"] == [f"work/{task.params['dir']}/archive/old.txt"]


test_correct_strategy_passes, test_wrong_strategy_fails_as_expected, test_two_wrong_reject_each_hostile = (
    strategy_tests(TASKS, CORRECT, WRONG, EXPECTED_WRONG)
)
