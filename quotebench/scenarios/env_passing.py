"""env-passing: run a program with an environment variable holding an exact value."""

from quotebench.model import Task, literal
from quotebench.shellesc import naive_wrap, quote

SCENARIO = "env-passing"
VAR = "QB_VALUE"

VARIANTS = [
    (0, "plain", (), "release candidate 7"),
    (1, "apostrophe", ("apostrophe",), "it's Bob's build"),
    (
        2,
        "dollar-backtick",
        ("dollar", "backtick", "command-substitution", "SC2016"),
        "cost=$PRICE per `uname` for ${USER:-nobody}",
    ),
    (
        3,
        "multiline-everything",
        (
            "newline",
            "double-quote",
            "backslash",
            "apostrophe",
            "dollar",
            "backtick",
            "command-substitution",
            "exclamation",
            "percent",
            "SC2016",
        ),
        # Trailing backslashes and a backslash before the line break defeat double-quote escaping
        # by hand; the lines are only safe as one word.
        'line one: "quoted" and back\\slash\\\n'
        "it's $HOME, $(id -u) and `uname` -- 100% done!\n"
        '  C:\\new\\ "end\\"',
    ),
]


def make(tier: int, slug: str, hazards: tuple[str, ...], value: str) -> Task:
    instruction = (
        "Run the program `probe` (it is on PATH) exactly once, with no arguments, with the environment "
        f"variable {literal(VAR)} set to exactly the text below (the value has no trailing newline). "
        f"Create no files.\n{literal(value)}"
    )
    return Task(
        scenario=SCENARIO,
        tier=tier,
        slug=slug,
        hazards=hazards,
        instruction=instruction,
        fixture={"helpers": ["probe"]},
        expect={"checks": [{"kind": "probe", "calls": [{"argv": [], "env": value}]}]},
        oracle=f"{VAR}={quote(value)} probe",
        naive=f"{VAR}={naive_wrap(value)} probe",
        params={"value": value, "var": VAR},
    )


def tasks() -> list[Task]:
    return [make(*variant) for variant in VARIANTS]
