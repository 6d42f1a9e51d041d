"""find-glob: list the files matching a find -name pattern (unquoted pattern + cwd trap file, SC2061).

Every hostile fixture has a matching "trap" file directly in the working directory: an unquoted
pattern is globbed by bash against the cwd first, so find receives the trap's own name and lists
only that. Decoys in subdirectories differ from the matches in one literal character (or are what a
wrongly expanded pattern would match), so a wrong pattern cannot tie with the right one. Every tier
has a decoy that matches only case-insensitively, so -iname fails everywhere.
"""

import re

from quotebench.model import Task, literal
from quotebench.shellesc import naive_wrap, quote

SCENARIO = "find-glob"
OUTPUT = "matches.txt"

# (tier, slug, hazards, pattern, matching paths, decoy paths, structural naive); paths are relative
# to the working directory. The matches are declared by hand; the tests cross-check them with fnmatch.
VARIANTS = [
    (
        0,
        "plain",
        (),
        "*.log",
        ["logs/app.log", "logs/old/app-1.log", "src/build.log"],
        ["logs/app.log.1", "logs/app.LOG", "src/notes.txt", "README.md"],
        True,
    ),
    (
        1,
        "apostrophe",
        ("apostrophe", "glob", "SC2061"),
        "*'s-*.log",
        ["sam's-x.log", "logs/bob's-app.log", "logs/old/ann's-build.log"],
        [
            "logs/bobs-app.log",
            "logs/bob's app.log",
            "logs/bob's-app.log.1",
            "logs/bob-s-app.log",
            "logs/Bob's-app.LOG",
        ],
        False,
    ),
    (
        2,
        "dollar",
        ("dollar", "glob", "SC2061", "SC2016"),
        "report-$USER-$1*.log",
        ["report-$USER-$10.log", "logs/report-$USER-$1.log", "logs/2024/report-$USER-$1-final.log"],
        # what "report-$USER-$1*.log" becomes in double quotes (USER=quotebench), near misses and a
        # case variant
        [
            "logs/report-quotebench-7.log",
            "logs/report-$USER-1.log",
            "logs/report-$USER-$1.txt",
            "logs/REPORT-$USER-$1.log",
        ],
        False,
    ),
    (
        3,
        "everything",
        (
            "apostrophe",
            "double-quote",
            "dollar",
            "command-substitution",
            "backtick",
            "space",
            "glob",
            "SC2061",
            "SC2016",
        ),
        '*it\'s "$(whoami)" `id` [0-9]*.log',
        [
            'it\'s "$(whoami)" `id` 9.log',
            'logs/it\'s "$(whoami)" `id` 1.log',
            'logs/old/Bob-it\'s "$(whoami)" `id` 2 final.log',
        ],
        [
            "logs/it's '$(whoami)' `id` 1.log",
            'logs/its "$(whoami)" `id` 1.log',
            'logs/it\'s "$(whoami)" `id` x.log',
            'logs/it\'s "$(whoami)" `id` 1.log.bak',
            "logs/it's \"$(whoami)\" 'id' 1.log",
            'logs/IT\'S "$(whoami)" `id` 1.log',
        ],
        True,
    ),
]

_WILDCARD = re.compile(r"(\*|\?|\[[^]]*\])")


def unquoted_wildcards(pattern: str) -> str:
    """The SC2061 mistake: literal parts quoted correctly, the wildcards left bare for bash to glob."""
    parts = _WILDCARD.split(pattern)
    return "".join(part if i % 2 else quote(part) if part else "" for i, part in enumerate(parts))


def make(tier, slug, hazards, pattern, matches, decoys, structural) -> Task:
    instruction = (
        "Find every file under the working directory (searching all its subdirectories) whose name "
        f"matches the find -name pattern {literal(pattern)}, exactly as `find -name` interprets it "
        "(*, ? and [...] are wildcards; every other character is literal). Write their paths to the "
        f"file {literal(OUTPUT)} in the working directory, one path per line, in any order. Write each "
        "path relative to the working directory, either as `find .` prints it (for example "
        "./logs/a.log) or without the leading ./ (logs/a.log). Create no other file."
    )
    files = {f"work/{path}": f"{path}\n" for path in [*matches, *decoys]}
    naive_pattern = unquoted_wildcards(pattern) if structural else naive_wrap(pattern)
    return Task(
        scenario=SCENARIO,
        tier=tier,
        slug=slug,
        hazards=hazards,
        instruction=instruction,
        fixture={"files": files},
        expect={"checks": [{"kind": "lines", "path": f"work/{OUTPUT}", "lines": sorted(matches)}]},
        oracle=f"find . -name {quote(pattern)} > {OUTPUT}",
        naive=f"find . -name {naive_pattern} > {OUTPUT}",
        params={"pattern": pattern, "output": OUTPUT, "matches": matches, "decoys": decoys},
    )


def tasks() -> list[Task]:
    return [make(*variant) for variant in VARIANTS]
