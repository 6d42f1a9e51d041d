"""find-glob: several correct strategies pass every hostile tier; plausible wrong ones fail."""

import fnmatch
import posixpath

import pytest

from quotebench.scenarios import find_glob
from tests.scenarios.matrix import strategy_tests
from tests.strategies import ansi_c, base64_word, double_quoted, heredoc, single_quoted_concat

TASKS = find_glob.tasks()

PYTHON_WALK = (
    "python3 -c 'import fnmatch, os, sys\n"
    'for d, _, names in os.walk("."):\n'
    "    for n in names:\n"
    "        if fnmatch.fnmatchcase(n, sys.argv[1]):\n"
    "            print(os.path.relpath(os.path.join(d, n)))' "
)

CORRECT = {
    "ansi-c": lambda p: f"find . -name {ansi_c(p['pattern'])} > {p['output']}",
    "double-quoted": lambda p: f"find . -name {double_quoted(p['pattern'])} > {p['output']}",
    # the pattern read from a quoted heredoc into a variable, then quoted on use.
    "heredoc-variable": lambda p: (
        f'IFS= read -r pat {heredoc(p["pattern"])}\nfind . -name "$pat" > {p["output"]}'
    ),
    "base64": lambda p: f"find . -name {base64_word(p['pattern'])} > {p['output']}",
    # paths without the leading ./ (the other accepted form)
    "printf-relative": lambda p: (
        f"find . -type f -name {single_quoted_concat(p['pattern'])} -printf '%P\\n' > {p['output']}"
    ),
    "python-fnmatch": lambda p: f"{PYTHON_WALK}{single_quoted_concat(p['pattern'])} > {p['output']}",
}

WRONG = {
    # SC2061: the literal parts quoted, the wildcards bare, so bash globs them against the cwd first.
    "unquoted-wildcards": lambda p: (
        f"find . -name {find_glob.unquoted_wildcards(p['pattern'])} > {p['output']}"
    ),
    # a correctly quoted assignment, then the variable used unquoted (SC2086): globbed and split.
    "unquoted-variable": lambda p: (
        f"pat={single_quoted_concat(p['pattern'])}; find . -name $pat > {p['output']}"
    ),
    "double-quoted-unescaped": lambda p: f'find . -name "{p["pattern"]}" > {p["output"]}',
    "single-quoted-unescaped": lambda p: f"find . -name '{p['pattern']}' > {p['output']}",
    # quoted right, but -iname ignores case although the instruction asks for find -name.
    "iname": lambda p: f"find . -iname {single_quoted_concat(p['pattern'])} > {p['output']}",
}
EXPECTED_WRONG = {
    "unquoted-wildcards": {1: "silent-wrong", 2: "silent-wrong", 3: "silent-wrong"},
    "unquoted-variable": {1: "silent-wrong", 2: "silent-wrong", 3: "tool-error"},
    "double-quoted-unescaped": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "single-quoted-unescaped": {1: "shell-syntax", 2: "pass", 3: "shell-syntax"},
    "iname": {1: "silent-wrong", 2: "silent-wrong", 3: "silent-wrong"},
}


@pytest.mark.parametrize("strategy", ["unquoted-wildcards", "unquoted-variable"])
def test_unquoted_pattern_passes_the_control(outcome, strategy):
    # Without a trap file in the cwd the SC2061 mistake is harmless: the trap is what it fails on.
    assert outcome(TASKS[0], WRONG[strategy](TASKS[0].params))[0] == "pass"


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_declared_matches_agree_with_fnmatch(task):
    pattern = task.params["pattern"]
    assert "\\" not in pattern  # find reads a backslash as an escape; fnmatch does not
    for path in task.params["matches"]:
        assert fnmatch.fnmatchcase(posixpath.basename(path), pattern), path
    for path in task.params["decoys"]:
        assert not fnmatch.fnmatchcase(posixpath.basename(path), pattern), path
    if task.hostile:  # the SC2061 trap: a match directly in the working directory
        assert any("/" not in path for path in task.params["matches"])
    # a decoy that only a case-insensitive match (-iname) would list, in every tier
    assert any(fnmatch.fnmatch(posixpath.basename(p).lower(), pattern.lower()) for p in task.params["decoys"])


def test_iname_fails_the_control_too(outcome):
    assert outcome(TASKS[0], WRONG["iname"](TASKS[0].params))[0] == "silent-wrong"


test_correct_strategy_passes, test_wrong_strategy_fails_as_expected, test_two_wrong_reject_each_hostile = (
    strategy_tests(TASKS, CORRECT, WRONG, EXPECTED_WRONG)
)
