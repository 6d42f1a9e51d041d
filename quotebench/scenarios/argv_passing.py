"""argv-passing: run a program with three exact arguments (word splitting, globs, a leading dash)."""

from quotebench.model import Task, literal
from quotebench.shellesc import naive_wrap, quote

SCENARIO = "argv-passing"

# Files an unquoted *.txt or * would expand to, so a glob accident changes the argv.
FIXTURE = {
    "helpers": ["probe"],
    "files": {"work/a.txt": "first\n", "work/b.txt": "second\n", "work/notes.md": "notes\n"},
}

VARIANTS = [
    (0, "plain", (), ("alpha", "beta", "gamma")),
    (1, "apostrophe-space", ("apostrophe", "space", "SC2086"), ("Bob's", "draft copy", "gamma")),
    (
        2,
        "dash-empty-glob",
        ("leading-dash", "empty-arg", "glob", "SC2086"),
        ("-n", "", "*.txt"),
    ),
    (
        3,
        "everything",
        (
            "leading-dash",
            "empty-arg",
            "space",
            "glob",
            "apostrophe",
            "double-quote",
            "dollar",
            "backtick",
            "command-substitution",
            "backslash",
            "SC2086",
            "SC2016",
        ),
        # Leading, trailing and doubled spaces survive only inside one quoted word.
        ("-n", "", '  it\'s *.txt  "$HOME" `id` \\n  '),
    ),
]


def make(tier: int, slug: str, hazards: tuple[str, ...], args: tuple[str, str, str]) -> Task:
    first, second, third = (literal(a) for a in args)
    instruction = (
        "Run the program `probe` (it is on PATH) exactly once, with exactly three arguments, in this "
        f"order: first {first}, second {second}, third {third}. An argument shown as {literal('')} is "
        "the empty string. Pass nothing else on the command line, and create no files."
    )
    return Task(
        scenario=SCENARIO,
        tier=tier,
        slug=slug,
        hazards=hazards,
        instruction=instruction,
        fixture=FIXTURE,
        expect={"checks": [{"kind": "probe", "calls": [{"argv": list(args)}]}]},
        oracle="probe " + " ".join(quote(a) for a in args),
        # The SC2086 mistake: each value stored in a variable, then expanded unquoted (word
        # splitting drops the empty argument, splits on spaces and expands globs).
        naive="a={}; b={}; c={}; probe $a $b $c".format(*(naive_wrap(a) for a in args)),
        params={"args": list(args)},
    )


def tasks() -> list[Task]:
    return [make(*variant) for variant in VARIANTS]
