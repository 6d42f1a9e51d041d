"""git-commit: several correct strategies pass every hostile tier; plausible wrong ones fail."""

from quotebench.scenarios import git_commit
from tests.scenarios.matrix import strategy_tests
from tests.strategies import ansi_c, base64_pipe, double_quoted, heredoc, single_quoted_concat

TASKS = git_commit.tasks()


def paragraphs_as_m_flags(message: str) -> str:
    """git joins several -m values with one blank line: subject and body as separate flags."""
    return " ".join(f"-m {double_quoted(part)}" for part in message.split("\n\n"))


CORRECT = {
    "commit-F-quoted-heredoc": lambda p: (
        f"cd {p['repo']} && git add -A && git commit -q -F - {heredoc(p['message'])}"
    ),
    "commit-m-ansi-c": lambda p: (
        f"git -C {p['repo']} add -A && git -C {p['repo']} commit -q -m {ansi_c(p['message'])}"
    ),
    "commit-m-per-paragraph": lambda p: (
        f"cd {p['repo']} && git add README.md docs/install.txt "
        f"&& git commit -q {paragraphs_as_m_flags(p['message'])}"
    ),
    "commit-F-base64": lambda p: (
        f"cd {p['repo']} && git add -A && {base64_pipe(p['message'])} | git commit -q -F -"
    ),
    "python-subprocess": lambda p: (
        f"cd {p['repo']} && python3 -c 'import subprocess, sys; "
        'subprocess.run(["git", "add", "-A"], check=True); '
        'subprocess.run(["git", "commit", "-q", "-m", sys.argv[1]], check=True)\' '
        f"{single_quoted_concat(p['message'])}"
    ),
}

WRONG = {
    # Backslash-escaping an apostrophe inside single quotes, which does not work in sh.
    "backslash-in-single-quotes": lambda p: (
        f"cd {p['repo']} && git add -A && git commit -q -m '" + p["message"].replace("'", "\\'") + "'"
    ),
    # An unquoted heredoc delimiter: $(...), backticks and $VAR expand inside the body.
    "unquoted-heredoc": lambda p: (
        f"cd {p['repo']} && git add -A && git commit -q -F - <<EOF\n{p['message']}\nEOF"
    ),
    # The message used as a printf format: backslash escapes and % directives are interpreted.
    "printf-format": lambda p: (
        f"cd {p['repo']} && git add -A && printf {single_quoted_concat(p['message'])} | git commit -q -F -"
    ),
    # Correctly quoted, but written to a message file that is left behind.
    "message-file": lambda p: (
        f"printf '%s\\n' {single_quoted_concat(p['message'])} > msg.txt && cd {p['repo']} && git add -A "
        "&& git commit -q -F ../msg.txt"
    ),
}
EXPECTED_WRONG = {
    "backslash-in-single-quotes": {1: "shell-syntax", 2: "pass", 3: "shell-syntax"},
    "unquoted-heredoc": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "printf-format": {1: "pass", 2: "pass", 3: "silent-wrong"},
    "message-file": {1: "environment-invalid", 2: "environment-invalid", 3: "environment-invalid"},
}


def test_committing_only_tracked_changes_leaves_the_tree_dirty(outcome):
    # `git commit -a` skips the untracked file: the clean-tree requirement must catch it.
    task = TASKS[0]
    failure, execution = outcome(
        task, f"cd repo && git commit -q -am {single_quoted_concat(task.params['message'])}"
    )
    assert failure == "silent-wrong", execution


test_correct_strategy_passes, test_wrong_strategy_fails_as_expected, test_two_wrong_reject_each_hostile = (
    strategy_tests(TASKS, CORRECT, WRONG, EXPECTED_WRONG)
)
