"""grep-count: count the lines containing an exact substring (regex-vs-literal, $ expansion, leading dash)."""

from quotebench.model import Task, literal
from quotebench.shellesc import naive_wrap, quote

SCENARIO = "grep-count"
SOURCE = "log.txt"
TARGET = "count.txt"

# (tier, slug, hazards, needle, lines, count). In every tier one line holds the needle twice (so
# counting occurrences is wrong) and a case variant exists (so -i is wrong); in t2 and t3 decoys make
# the regex count differ from the literal and the case-insensitive counts.
VARIANTS = [
    (
        0,
        "plain",
        (),
        "timeout",
        [
            "request 1 ok",
            "request 2 timeout after 30s",
            "request 3 timeout, retry timeout",
            "request 4 Timeout (upstream)",
            "request 5 ok",
        ],
        2,
    ),
    (
        1,
        "apostrophe",
        ("apostrophe",),
        "rock 'n' roll",
        [
            "I like rock 'n' roll.",
            "rock 'n' roll forever, rock 'n' roll!",
            "Rock 'n' Roll Hall of Fame",
            "rock n roll without apostrophes",  # what 'rock 'n' roll' becomes after shell quote removal
            "rock and roll",
            "rock 'n'roll is missing a space",
        ],
        2,
    ),
    (
        2,
        "regex-meta",
        ("regex-meta",),
        "[ERROR] *.tmp",
        [
            "[ERROR] *.tmp could not be removed",
            "[INFO] *.tmp removed",
            "[ERROR] *.tmp still locked; [ERROR] *.tmp again",
            "[error] *.tmp lowercase tag",
            "cleanup ERROR .tmp files left",  # the only regex match: [ERROR] is one letter, . any char
            "[ERROR] x.tmp is fine",
            "[ERROR]  *.tmp with two spaces",
        ],
        2,
    ),
    (
        3,
        "dash-dollar-bracket",
        ("leading-dash", "dollar", "regex-meta", "apostrophe", "double-quote", "backslash", "SC2016"),
        # --exclude=... is a real grep option, so a needle without -e/-- silently becomes an option.
        "--exclude='*.[ch]' -czf \"$OUT\" src\\ dir",
        [
            "tar --exclude='*.[ch]' -czf \"$OUT\" src\\ dir",
            "tar -v --exclude='*.[ch]' -czf \"$OUT\" src\\ dir && echo done",
            "tar --exclude='*.[ch]' -czf \"$OUT\" src\\ dir; tar --exclude='*.[ch]' -czf \"$OUT\" src\\ dir",
            "tar --exclude='*.[CH]' -czf \"$out\" SRC\\ DIR",
            "tar --exclude='*.[ch]' -czf \"\" src\\ dir",  # the needle with $OUT expanded to nothing
            "tar --exclude='xh' -czf \"$OUT\" src dir",  # the only regex match
            "tar --exclude='*.[ch]' -czf \"$OUT\" src dir",
            'tar --exclude="*.[ch]" -czf "$OUT" src\\ dir',
        ],
        3,
    ),
]


def make(tier: int, slug: str, hazards: tuple[str, ...], needle: str, lines: list[str], count: int) -> Task:
    assert sum(needle in line for line in lines) == count, "declared count disagrees with the lines"
    instruction = (
        f"Count the lines of the file {literal(SOURCE)} in the working directory that contain the text "
        f"{literal(needle)}. The text is a literal, case-sensitive substring, not a pattern; a line that "
        f"contains it several times counts once. Write the count to the file {literal(TARGET)} in the "
        f"working directory as a plain decimal number followed by a newline. Do not change {SOURCE}."
    )
    return Task(
        scenario=SCENARIO,
        tier=tier,
        slug=slug,
        hazards=hazards,
        instruction=instruction,
        fixture={"files": {f"work/{SOURCE}": "".join(line + "\n" for line in lines)}},
        # Exact bytes: the instruction asks for the number followed by a newline, nothing more or less.
        expect={"checks": [{"kind": "file", "path": f"work/{TARGET}", "text": f"{count}\n"}]},
        oracle=f"grep -cF -e {quote(needle)} {SOURCE} > {TARGET}",
        naive=f"grep -c {naive_wrap(needle)} {SOURCE} > {TARGET}",
        params={"needle": needle, "source": SOURCE, "target": TARGET, "count": count, "lines": lines},
    )


def tasks() -> list[Task]:
    return [make(*variant) for variant in VARIANTS]
