"""write-file: create a file with exact content (quote choice; $ and backticks in content, SC2016)."""

from quotebench.model import Task, literal
from quotebench.shellesc import naive_wrap, quote

SCENARIO = "write-file"
TARGET = "note.txt"

VARIANTS = [
    (0, "plain", (), "Meeting moved to Thursday at noon."),
    (1, "apostrophe", ("apostrophe",), "Don't touch Bob's keyboard, it's fragile."),
    (
        2,
        "dollar-backtick",
        ("dollar", "backtick", "command-substitution", "semicolon", "SC2016"),
        "Price: $5 per $USER, total ${TOTAL:-0}; run `date` first",
    ),
    (
        3,
        "everything",
        (
            "apostrophe",
            "double-quote",
            "backslash",
            "dollar",
            "backtick",
            "command-substitution",
            "percent",
            "exclamation",
            "newline",
            "SC2016",
        ),
        'She said "it\'s $(whoami)\\n" at 100%!\nC:\\temp\\new -- `ls` & $HOME\n  -indented line',
    ),
]


def make(tier: int, slug: str, hazards: tuple[str, ...], payload: str) -> Task:
    instruction = (
        f"Create the file {literal(TARGET)} in the working directory. Its content must be exactly the "
        f"text below, followed by a single newline:\n{literal(payload)}"
    )
    return Task(
        scenario=SCENARIO,
        tier=tier,
        slug=slug,
        hazards=hazards,
        instruction=instruction,
        fixture={},
        expect={"checks": [{"kind": "file", "path": f"work/{TARGET}", "text": payload + "\n"}]},
        oracle=f"printf '%s\\n' {quote(payload)} > {TARGET}",
        naive=f"echo {naive_wrap(payload)} > {TARGET}",
        params={"payload": payload, "target": TARGET},
    )


def tasks() -> list[Task]:
    return [make(*variant) for variant in VARIANTS]
