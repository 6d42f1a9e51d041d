"""sed-replace: several correct strategies pass every hostile tier; plausible wrong ones fail."""

import subprocess

import pytest

from quotebench.scenarios import sed_replace
from quotebench.shellesc import sed_bre_pattern, sed_replacement
from tests.scenarios.matrix import strategy_tests
from tests.strategies import ansi_c, base64_word, double_quoted, heredoc, single_quoted_concat

TASKS = sed_replace.tasks()
HOSTILE = [t for t in TASKS if t.hostile]


def bracket_bre(text: str) -> str:
    """A BRE for text that neutralises metacharacters with bracket expressions instead of backslashes."""
    out = []
    for ch in text:
        if ch in ".*[$":
            out.append(f"[{ch}]")
        elif ch in "\\^#":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def hash_replacement(text: str) -> str:
    return "".join("\\" + ch if ch in "\\&#" else ch for ch in text)


AWK_REPLACE = (
    '{ s = $0; out = ""; while ((i = index(s, ENVIRON["OLD"])) > 0) '
    '{ out = out substr(s, 1, i - 1) ENVIRON["NEW"]; s = substr(s, i + length(ENVIRON["OLD"])) } '
    "print out s }"
)

CORRECT = {
    "python-argv": lambda p: (
        "python3 -c 'import sys; f, a, b = sys.argv[1:]; s = open(f).read(); "
        'open(f, "w").write(s.replace(a, b))\' '
        f"{p['target']} {ansi_c(p['old'])} {ansi_c(p['new'])}"
    ),
    "perl-quotemeta-env": lambda p: (
        f"OLD={single_quoted_concat(p['old'])} NEW={single_quoted_concat(p['new'])} "
        f"perl -pi -e 's/\\Q$ENV{{OLD}}\\E/$ENV{{NEW}}/g' {p['target']}"
    ),
    "sed-brackets-double-quoted": lambda p: (
        f"sed -i {double_quoted('s#' + bracket_bre(p['old']) + '#' + hash_replacement(p['new']) + '#g')} "
        f"{p['target']}"
    ),
    "awk-index-env-then-mv": lambda p: (
        f"export OLD={base64_word(p['old'])} NEW={base64_word(p['new'])}; "
        f"awk '{AWK_REPLACE}' {p['target']} > {p['target']}.new && mv {p['target']}.new {p['target']}"
    ),
    "python-heredoc": lambda p: (
        f"python3 - {p['target']} "
        + heredoc(
            "import sys\n"
            "f = sys.argv[1]\n"
            "s = open(f).read()\n"
            f"open(f, 'w').write(s.replace({p['old']!r}, {p['new']!r}))"
        )
    ),
}


def sed_script(p: dict) -> str:
    return f"s/{sed_bre_pattern(p['old'])}/{sed_replacement(p['new'])}/g"


WRONG = {
    # both escaping layers right for sed, but the apostrophe "escaped" as \' inside single quotes.
    "backslash-apostrophe": lambda p: (
        f"sed -i '{sed_script(p).replace(chr(39), chr(92) + chr(39))}' {p['target']}"
    ),
    # the shell layer right, the sed layer forgotten (a delimiter that avoids the / clash).
    "regex-unescaped": lambda p: (
        f"sed -i {single_quoted_concat('s#' + p['old'] + '#' + p['new'] + '#g')} {p['target']}"
    ),
    # the sed layer right, the shell layer forgotten: a double-quoted script.
    "sed-escaped-double-quoted": lambda p: f'sed -i "{sed_script(p)}" {p["target"]}',
    # both layers right, but GNU sed's I flag makes the match case-insensitive: the case variant changes.
    "case-insensitive-flag": lambda p: f"sed -i {single_quoted_concat(sed_script(p) + 'I')} {p['target']}",
    # the right replacement through a helper script left behind.
    "helper-script": lambda p: (
        "cat > fix.sed " + heredoc(sed_script(p)) + f"\nsed -i -f fix.sed {p['target']}"
    ),
}
EXPECTED_WRONG = {
    "backslash-apostrophe": {1: "shell-syntax", 2: "pass", 3: "shell-syntax"},
    "regex-unescaped": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "sed-escaped-double-quoted": {1: "pass", 2: "silent-wrong", 3: "tool-error"},
    "case-insensitive-flag": {1: "silent-wrong", 2: "silent-wrong", 3: "silent-wrong"},
    "helper-script": {1: "environment-invalid", 2: "environment-invalid", 3: "environment-invalid"},
}


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_a_case_variant_must_stay_unchanged(outcome, task):
    """Every tier, the control included, has a line that only a case-insensitive match would change."""
    assert task.params["old"].lower() in task.params["text"].replace(task.params["old"], "").lower()
    failure, execution = outcome(task, WRONG["case-insensitive-flag"](task.params))
    assert failure == "silent-wrong", execution


@pytest.mark.parametrize("task", [t for t in HOSTILE if t.tier >= 2], ids=lambda t: t.id)
def test_regex_reading_hits_only_decoys(tmp_path, task):
    """Read as a BRE, the pattern must hit decoy lines and miss every line with the literal text."""
    path = tmp_path / "text"
    path.write_text(task.params["text"])
    done = subprocess.run(["grep", "-e", task.params["old"], str(path)], capture_output=True, text=True)
    hits = done.stdout.splitlines()
    assert hits and all(task.params["old"] not in line for line in hits), hits


test_correct_strategy_passes, test_wrong_strategy_fails_as_expected, test_two_wrong_reject_each_hostile = (
    strategy_tests(TASKS, CORRECT, WRONG, EXPECTED_WRONG)
)
