"""hostile-filenames: several correct strategies pass every hostile tier; plausible wrong ones fail."""

import re

from quotebench.scenarios import hostile_filenames
from tests.scenarios.matrix import strategy_tests
from tests.strategies import ansi_c, base64_word, double_quoted, heredoc, single_quoted_concat

TASKS = hostile_filenames.tasks()

CORRECT = {
    # ./ instead of -- keeps a leading dash from being read as an option.
    "dot-slash-ansi-c": lambda p: f"mv ./{ansi_c(p['name'])} {p['target']}",
    "dashdash-double-quoted": lambda p: f"mv -- {double_quoted(p['name'])} {p['target']}",
    "python-argv": lambda p: (
        "python3 -c 'import os, sys; os.rename(sys.argv[1], sys.argv[2])' "
        f"{single_quoted_concat(p['name'])} {p['target']}"
    ),
    # read -d '' keeps line breaks and edge spaces; the heredoc adds one final newline, cut off here.
    "heredoc-read": lambda p: (
        f"IFS= read -r -d '' n {heredoc(p['name'])}\nmv -- \"${{n%$'\\n'}}\" {p['target']}"
    ),
    "base64": lambda p: f"mv -- {base64_word(p['name'])} {p['target']}",
}

WRONG = {
    # right quoting, but a leading dash is read as options.
    "no-dashdash": lambda p: f"mv {single_quoted_concat(p['name'])} {p['target']}",
    # dodging quoting with ? for every special character: the glob also matches the look-alikes.
    "wildcard-for-specials": lambda p: f"mv -- {re.sub(r'[^A-Za-z0-9.]', '?', p['name'])} {p['target']}",
    # backslash-escaping the spaces only.
    "escape-spaces-only": lambda p: f"mv -- {p['name'].replace(' ', chr(92) + ' ')} {p['target']}",
    # double quotes without escaping $, backticks and inner double quotes.
    "double-quoted-unescaped": lambda p: f'mv -- "{p["name"]}" {p["target"]}',
}
EXPECTED_WRONG = {
    "no-dashdash": {1: "pass", 2: "tool-error", 3: "tool-error"},
    "wildcard-for-specials": {1: "runtime-error", 2: "runtime-error", 3: "runtime-error"},
    "escape-spaces-only": {1: "shell-syntax", 2: "shell-syntax", 3: "shell-syntax"},
    "double-quoted-unescaped": {1: "pass", 2: "pass", 3: "runtime-error"},
}


def test_wildcard_dodge_passes_the_control(outcome):
    # The look-alikes, not the wildcard trick itself, are what makes it fail on hostile tiers.
    assert outcome(TASKS[0], WRONG["wildcard-for-specials"](TASKS[0].params))[0] == "pass"


def test_a_wrong_rename_is_collateral_damage(outcome):
    # Renaming a look-alike instead of the target must be judged, not just a missing file.
    task = TASKS[3]
    twin = task.params["neighbours"][0]
    failure, execution = outcome(task, f"mv -- {double_quoted(twin)} {task.params['target']}")
    assert failure == "silent-wrong"
    assert execution.verdict["collateral"] == [f"work/{twin}"]


test_correct_strategy_passes, test_wrong_strategy_fails_as_expected, test_two_wrong_reject_each_hostile = (
    strategy_tests(TASKS, CORRECT, WRONG, EXPECTED_WRONG)
)
