"""hostile-filenames: rename exactly one file with a hostile name; look-alike neighbours must survive.

The neighbours differ from the target in exactly the characters a sloppy command gets wrong (an
apostrophe turned into `_`, a dropped trailing space, single instead of double quotes), so globbing,
word splitting or option injection hits them and shows up as collateral damage or a wrong rename.
"""

from quotebench.model import Task, literal
from quotebench.shellesc import naive_wrap, quote

SCENARIO = "hostile-filenames"
TARGET = "final.txt"

# Leading dash, bracket glob, apostrophe, double quotes around $HOME, a line break, $(...), a
# backtick command, Windows backslashes, a literal star and a trailing space, all in one name.
NASTY = '-[v2] it\'s "$HOME"\n$(id) `date` C:\\temp\\new *.txt '

VARIANTS = [
    (0, "plain", (), "report.txt", ["report.txt.bak", "report2.txt", "report"]),
    (
        1,
        "apostrophe-space",
        ("apostrophe", "space", "collateral-damage"),
        "Bob's draft notes.txt",
        ["Bob_s draft notes.txt", "Bob's draft.txt", "notes.txt", "Bob's"],
    ),
    (
        2,
        "leading-dash",
        ("leading-dash", "space", "collateral-damage"),
        "-rf (old copy).txt",
        ["_rf (old copy).txt", "rf (old copy).txt", "old"],
    ),
    (
        3,
        "everything",
        (
            "leading-dash",
            "glob",
            "apostrophe",
            "double-quote",
            "dollar",
            "newline",
            "command-substitution",
            "backtick",
            "backslash",
            "space",
            "collateral-damage",
            "SC2016",
        ),
        NASTY,
        [NASTY.rstrip(" "), NASTY.replace('"', "'"), "v.txt", "new *.txt"],
    ),
]


def content(n: int) -> str:
    return f"file number {n}: keep these bytes\n"


def make(tier: int, slug: str, hazards: tuple[str, ...], name: str, neighbours: list[str]) -> Task:
    files = {f"work/{n}": content(i) for i, n in enumerate([name, *neighbours])}
    instruction = (
        f"In the working directory, rename the file named {literal(name)} to {literal(TARGET)} (same "
        "directory, content unchanged). The name is exactly the text between the markers: a line break "
        "inside it is part of the name, and so is any space at its start or end. Several other files "
        "have similar names; leave every other file exactly as it is."
    )
    return Task(
        scenario=SCENARIO,
        tier=tier,
        slug=slug,
        hazards=hazards,
        instruction=instruction,
        fixture={"files": files},
        expect={
            "checks": [
                {"kind": "absent", "path": f"work/{name}"},
                {"kind": "file", "path": f"work/{TARGET}", "text": content(0)},
            ]
        },
        oracle=f"mv -- {quote(name)} {TARGET}",
        naive=f"mv {naive_wrap(name)} {TARGET}",
        params={"name": name, "target": TARGET, "neighbours": neighbours},
    )


def tasks() -> list[Task]:
    return [make(*variant) for variant in VARIANTS]
