"""json-write: write a JSON file holding an exact string (JSON escaping x shell quoting)."""

from quotebench.model import Task, literal
from quotebench.shellesc import json_document, quote

SCENARIO = "json-write"
TARGET = "data.json"
KEY = "message"

VARIANTS = [
    (0, "plain", (), "Deploy finished at noon"),
    (1, "apostrophe", ("apostrophe",), "It's Bob's turn to deploy"),
    (
        2,
        "quote-backslash",
        ("double-quote", "backslash", "json-escape"),
        # \U, \b and \n are two characters each: unescaped they are invalid or mean something else.
        'Path is "C:\\Users\\bob\\new" and the regex is \\d+\\.json',
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
            "newline",
            "unicode",
            "json-escape",
            "percent",
            "SC2016",
        ),
        # A real line break (JSON \n) next to a literal backslash-n (JSON \\n), and non-ASCII text
        # under LC_ALL=C, where $'\u00e9' does not produce UTF-8.
        'Bob\'s "café" costs $5 (100%) → run `id` or $(whoami)\nnot a break: \\n, C:\\temp\\ ✓ naïve',
    ),
]


def make(tier: int, slug: str, hazards: tuple[str, ...], value: str) -> Task:
    instruction = (
        f"Create the file {literal(TARGET)} in the working directory. It must contain one JSON object "
        f"with exactly one key, {literal(KEY)}, whose value is a JSON string equal to exactly the text "
        "below (the text has no trailing newline; any valid JSON formatting, whitespace or escaping "
        f"is fine, and the file may end with a newline). Create no other files.\n{literal(value)}"
    )
    return Task(
        scenario=SCENARIO,
        tier=tier,
        slug=slug,
        hazards=hazards,
        instruction=instruction,
        fixture={},
        expect={"checks": [{"kind": "json", "path": f"work/{TARGET}", "value": {KEY: value}}]},
        # Two layers, innermost first: JSON escaping of the document, then one shell word for printf.
        oracle=f"printf '%s\\n' {quote(json_document({KEY: value}))} > {TARGET}",
        # The tempting form: the JSON written by hand inside single quotes, with the value pasted in
        # verbatim (neither JSON-escaped nor shell-escaped).
        naive=f'echo \'{{"{KEY}": "{value}"}}\' > {TARGET}',
        params={"value": value, "key": KEY, "target": TARGET},
    )


def tasks() -> list[Task]:
    return [make(*variant) for variant in VARIANTS]
