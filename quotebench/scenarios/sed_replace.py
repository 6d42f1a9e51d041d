"""sed-replace: literal string replace in a file, in place (shell quoting x sed BRE/replacement escaping)."""

from quotebench.model import Task, literal
from quotebench.shellesc import naive_wrap, quote, sed_bre_pattern, sed_replacement

SCENARIO = "sed-replace"
TARGET = "notes.txt"

# (tier, slug, hazards, old, new, file text). Decoy lines: near misses (a case variant in every tier, so
# a case-insensitive replace fails everywhere; a missing apostrophe) and lines that the pattern read as a
# regex would hit while it misses the literal occurrences.
VARIANTS = [
    (
        0,
        "plain",
        (),
        "colour",
        "color",
        "The colour of the sky.\n"
        "colour, colour everywhere.\n"
        "Colour is capitalised here.\n"
        "Nothing to change here.\n",
    ),
    (
        1,
        "apostrophe",
        ("apostrophe",),
        "can't",
        "won't",
        # The naive 's/can't/won't/g' parses as s/cant/wont/g: it rewrites the "cant" decoy instead.
        "I can't stop now.\n"
        "You can't, I can't, nobody can't.\n"
        "The cant of thieves is old slang.\n"
        "Can't is capitalised here.\n",
    ),
    (
        2,
        "regex-replacement",
        ("sed-delimiter", "regex-meta", "sed-replacement", "backslash"),
        "data/*.csv",
        "D:\\exports\\&new\\*.csv",
        # As a BRE, data/*.csv matches data.csv, data/xcsv and data//1csv but not data/*.csv itself.
        "input: data/*.csv\n"
        "copy data/*.csv to data/*.csv.bak\n"
        "data.csv is a single file\n"
        "see data/xcsv and data//1csv\n"
        "datacsv\n"
        "archive: DATA/*.CSV is upper case\n",
    ),
    (
        3,
        "script-line",
        (
            "apostrophe",
            "double-quote",
            "dollar",
            "command-substitution",
            "backslash",
            "percent",
            "regex-meta",
            "sed-delimiter",
            "sed-replacement",
            "SC2016",
        ),
        'echo "it\'s $HOME/[a-z]*.txt"',
        "printf '%s\\n' \"it's $(ls ~/[a-z]*.txt)\" & wait",
        # Line 3 is what the unescaped BRE matches ([a-z]* eats "notes", . eats "."); the last two
        # lines are near misses: no apostrophe and other quotes, then a capital I.
        "#!/bin/sh\n"
        'echo "it\'s $HOME/[a-z]*.txt"\n'
        'echo "it\'s $HOME/notes.txt"\n'
        '[ -d ~ ] && echo "it\'s $HOME/[a-z]*.txt" || echo "it\'s $HOME/[a-z]*.txt" >&2\n'
        "echo 'its $HOME/[a-z]*.txt'\n"
        'echo "It\'s $HOME/[a-z]*.txt"\n',
    ),
]


def make(tier: int, slug: str, hazards: tuple[str, ...], old: str, new: str, text: str) -> Task:
    assert old in text, "the pattern must occur in the file"
    instruction = (
        f"In the file {literal(TARGET)} in the working directory, replace every occurrence of the text "
        f"{literal(old)} with the text {literal(new)}. Both are literal text, not patterns, and matching "
        "is case-sensitive; a line may contain the text more than once and every occurrence must be "
        "replaced. Edit the file in place: everything else in it, including the final newline, stays "
        "exactly as it is. Do not leave a backup copy or any other new file behind."
    )
    script = f"s/{sed_bre_pattern(old)}/{sed_replacement(new)}/g"
    return Task(
        scenario=SCENARIO,
        tier=tier,
        slug=slug,
        hazards=hazards,
        instruction=instruction,
        fixture={"files": {f"work/{TARGET}": text}},
        # str.replace is the definition of a literal, left-to-right, non-overlapping replace-all.
        expect={"checks": [{"kind": "file", "path": f"work/{TARGET}", "text": text.replace(old, new)}]},
        oracle=f"sed -i {quote(script)} {TARGET}",
        naive=f"sed -i {naive_wrap(f's/{old}/{new}/g')} {TARGET}",
        params={"old": old, "new": new, "target": TARGET, "text": text},
    )


def tasks() -> list[Task]:
    return [make(*variant) for variant in VARIANTS]
