"""bulk-rename: prefix every *.txt file of a directory (the unquoted $f loop, SC2086; hostile names).

Decoys that must stay put: names that end in something other than .txt, and a .txt file in a
subdirectory. The glob look-alikes ([ab] next to a, a literal *) make an unquoted $f match other files.
"""

from quotebench.model import Task, literal
from quotebench.shellesc import naive_wrap, quote

SCENARIO = "bulk-rename"
DIR = "docs"
DECOYS = ["notes.txt.bak", "readme.TXT", "archive/old.txt"]

# (tier, slug, hazards, prefix, names to rename, extra decoys)
VARIANTS = [
    (0, "plain", (), "old_", ["a.txt", "notes.txt", "report-2024.txt"], ["image.png"]),
    (
        1,
        "spaces",
        ("space", "SC2086"),
        "old_",
        ["meeting notes.txt", "to do  list.txt", " leading space.txt", "notes.txt"],
        ["meeting"],
    ),
    (
        2,
        "leading-dash",
        ("leading-dash", "glob", "SC2086"),
        "old_",
        ["-n.txt", "--help.txt", "-[ab].txt", "-a.txt"],
        ["-n.txt.orig"],
    ),
    (
        3,
        "everything",
        (
            "glob",
            "apostrophe",
            "dollar",
            "double-quote",
            "backtick",
            "command-substitution",
            "backslash",
            "newline",
            "space",
            "leading-dash",
            "SC2086",
            "SC2016",
        ),
        # a prefix that starts with a dash and mixes both quote kinds with $USER, ending in a space
        '-$USER\'s "old" ',
        [
            "it's $HOME.txt",
            "[draft] *.txt",
            "d.txt",
            '-v "quoted" $(id).txt',
            "back\\slash `date`.txt",
            "two\nlines.txt",
        ],
        ["it's $HOME.txt.swp", "d"],
    ),
]


def content(name: str) -> str:
    return f"contents of {name!r}\n"


def make(tier, slug, hazards, prefix, names, extra_decoys) -> Task:
    decoys = DECOYS + extra_decoys
    files = {f"work/{DIR}/{n}": content(n) for n in [*names, *decoys]}
    checks = []
    for n in names:
        checks.append({"kind": "absent", "path": f"work/{DIR}/{n}"})
        checks.append({"kind": "file", "path": f"work/{DIR}/{prefix}{n}", "text": content(n)})
    instruction = (
        f"In the directory {literal(DIR)} (inside the working directory), rename every file whose name "
        f"ends in {literal('.txt')} by putting the prefix {literal(prefix)} in front of its name, so that "
        f"{DIR}/NAME becomes {DIR}/PREFIXNAME in the same directory. The prefix is exactly the text "
        "between the markers, including any space at its end. Only files directly inside "
        f"{DIR} are renamed, not files in its subdirectories; no name there starts with a dot. Files "
        "whose names end in anything else (such as .txt.bak or .TXT) stay as they are. File names may "
        "contain any character. Contents stay unchanged; create no other file."
    )
    return Task(
        scenario=SCENARIO,
        tier=tier,
        slug=slug,
        hazards=hazards,
        instruction=instruction,
        fixture={"files": files},
        expect={"checks": checks},
        oracle=f'cd {quote(DIR)} && for f in *.txt; do mv -- "$f" {quote(prefix)}"$f"; done',
        naive=f"cd {DIR} && for f in *.txt; do mv $f {naive_wrap(prefix)}$f; done",
        params={"dir": DIR, "prefix": prefix, "names": names, "decoys": decoys},
    )


def tasks() -> list[Task]:
    return [make(*variant) for variant in VARIANTS]
