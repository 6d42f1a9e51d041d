"""field-lookup: awk column lookup by key ($1 shell-vs-awk collision, awk -v escape processing)."""

from quotebench.model import Task, literal
from quotebench.shellesc import awk_v_value, naive_wrap, quote

SCENARIO = "field-lookup"
SOURCE = "table.txt"
TARGET = "result.txt"
SEP = "|"

# (tier, slug, hazards, key, rows, value). Rows are lists of fields; exactly one row's first field
# equals the key. In every tier the rows before the target hold a superstring of the key (as a prefix
# of the first field, so a prefix or substring match that stops at the first hit is wrong) and the key
# itself as a whole later field followed by the separator (so "KEY|" unanchored is wrong). Other
# decoys: case variants, suffix superstrings and the keys a mangled key would match.
VARIANTS = [
    (
        0,
        "plain",
        (),
        "alice",
        [
            ["alice2", "4013", "user"],
            ["carol", "alice", "deputy"],
            ["malice", "4016", "user"],
            ["alice", "4012", "admin"],
            ["Alice", "4014", "user"],
            ["bob", "4015", "alice"],
        ],
        "4012",
    ),
    (
        1,
        "apostrophe",
        ("apostrophe",),
        "Pat O'Brien",
        [
            ["Pat O'Brien Jr", "2204", "sales"],
            ["Ann Lee", "Pat O'Brien", "deputy"],
            ["Pat OBrien", "2201", "sales"],
            ["Pat O'Brien", "2202", "support"],
            ["pat o'brien", "2203", "sales"],
            ["Pat O", "2205", "temp"],
            ["Mr Pat O'Brien", "2206", "sales"],
        ],
        "2202",
    ),
    (
        2,
        "unc-path",
        ("backslash", "awk-escape"),
        # awk -v turns \\ into \, \f into a form feed, \n into a newline and \t into a tab.
        "\\\\fileserver\\new\\temp",
        [
            ["\\\\fileserver\\new\\temp2", "archive", "weekly"],
            ["mirror", "\\\\fileserver\\new\\temp", "daily"],
            ["\\fileserver\\new\\temp", "ops", "old"],  # the key after one round of backslash collapsing
            ["\\\\fileserver\\new\\temp", "backup", "nightly"],
            ["//fileserver/new/temp", "web", "hourly"],
            ["\\\\FILESERVER\\new\\temp", "legacy", "never"],
        ],
        "backup",
    ),
    (
        3,
        "catalogue-entry",
        ("apostrophe", "double-quote", "dollar", "backslash", "awk-escape", "SC2016"),
        # A C-style message id: the \n is two characters, $1 is text for both the shell and awk.
        'Can\'t open "$1"\\n',
        [
            ['Can\'t open "$1"\\n (old)', 'Impossible d\'ouvrir "$1"\\n (ancien)', "fr"],
            ['Error: Can\'t open "$1"\\n', 'Erreur : impossible d\'ouvrir "$1"\\n', "fr"],
            ["msgid", 'Can\'t open "$1"\\n', "en"],
            ['Can\'t open "$1"', 'Impossible d\'ouvrir "$1"', "fr"],
            ['Can\'t open "$1"\\n', 'Impossible d\'ouvrir "$1"\\n', "fr"],
            ['Can\'t open ""\\n', 'Impossible d\'ouvrir ""\\n', "fr"],  # $1 expanded by the shell
            ['can\'t open "$1"\\n', 'impossible d\'ouvrir "$1"\\n', "fr"],
            ['Can\'t open "$2"\\n', 'Impossible d\'ouvrir "$2"\\n', "fr"],
            ['Can\'t open \\"$1\\"\\n', 'Impossible d\'ouvrir \\"$1\\"\\n', "fr"],
        ],
        'Impossible d\'ouvrir "$1"\\n',
    ),
]

PROGRAM = "$1 == key { print $2 }"


def make(tier: int, slug: str, hazards: tuple[str, ...], key: str, rows: list[list[str]], value: str) -> Task:
    assert [r[1] for r in rows if r[0] == key] == [value], "exactly one row must carry the key"
    instruction = (
        f"The file {literal(SOURCE)} in the working directory holds one record per line; the fields of a "
        f"record are separated by the single character {literal(SEP)} and nothing else (spaces, quotes "
        f"and backslashes are ordinary field characters). Exactly one line has a first field equal to "
        f"{literal(key)} (the whole field, compared exactly and case-sensitively). Write that line's "
        f"second field, followed by a single newline, to the file {literal(TARGET)} in the working "
        f"directory. Do not change {SOURCE}."
    )
    return Task(
        scenario=SCENARIO,
        tier=tier,
        slug=slug,
        hazards=hazards,
        instruction=instruction,
        fixture={"files": {f"work/{SOURCE}": "".join(SEP.join(r) + "\n" for r in rows)}},
        expect={"checks": [{"kind": "file", "path": f"work/{TARGET}", "text": value + "\n"}]},
        oracle=(f"awk -F {quote(SEP)} -v key={quote(awk_v_value(key))} {quote(PROGRAM)} {SOURCE} > {TARGET}"),
        naive=f"awk -F {quote(SEP)} -v key={naive_wrap(key)} {quote(PROGRAM)} {SOURCE} > {TARGET}",
        params={"key": key, "sep": SEP, "source": SOURCE, "target": TARGET, "value": value},
    )


def tasks() -> list[Task]:
    return [make(*variant) for variant in VARIANTS]
