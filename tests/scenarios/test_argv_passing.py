"""argv-passing: several correct strategies pass every hostile tier; plausible wrong ones fail."""

from quotebench.scenarios import argv_passing
from tests.scenarios.matrix import strategy_tests
from tests.strategies import ansi_c, double_quoted, single_quoted_concat

TASKS = argv_passing.tasks()
HOSTILE = [t for t in TASKS if t.hostile]


def words(args: list[str], quote) -> str:
    return " ".join(quote(a) for a in args)


CORRECT = {
    "ansi-c": lambda p: f"probe {words(p['args'], ansi_c)}",
    "double-quoted": lambda p: f"probe {words(p['args'], double_quoted)}",
    "array": lambda p: f'args=({words(p["args"], single_quoted_concat)}); probe "${{args[@]}}"',
    "printf-nul-xargs": lambda p: f"printf '%s\\0' {words(p['args'], single_quoted_concat)} | xargs -0 probe",
    "python-subprocess": lambda p: (
        "python3 -c " + single_quoted_concat(f"import subprocess; subprocess.run({['probe', *p['args']]!r})")
    ),
}

WRONG = {
    # Backslash-escaping an apostrophe inside single quotes, which does not work in sh.
    "backslash-in-single-quotes": lambda p: (
        "probe " + " ".join("'" + a.replace("'", "\\'") + "'" for a in p["args"])
    ),
    # xargs without -0 drops empty lines, splits on blanks and chokes on apostrophes.
    "printf-lines-xargs": lambda p: f"printf '%s\\n' {words(p['args'], single_quoted_concat)} | xargs probe",
    # Arguments collected with echo: echo swallows -n as its own option.
    "echo-lines-array": lambda p: (
        "mapfile -t args < <("
        + "; ".join(f"echo {single_quoted_concat(a)}" for a in p["args"])
        + '); probe "${args[@]}"'
    ),
    # The habit from rm and grep: `--` before a dashed argument, but probe takes no options.
    "double-dash": lambda p: (
        "probe "
        + ("-- " if any(a.startswith("-") for a in p["args"]) else "")
        + words(p["args"], single_quoted_concat)
    ),
}
EXPECTED_WRONG = {
    "backslash-in-single-quotes": {1: "shell-syntax", 2: "pass", 3: "shell-syntax"},
    "printf-lines-xargs": {1: "runtime-error", 2: "silent-wrong", 3: "runtime-error"},
    "echo-lines-array": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "double-dash": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
}


def test_glob_decoys_exist_so_an_unquoted_pattern_expands(outcome):
    task = next(t for t in HOSTILE if "*.txt" in t.params["args"])
    failure, execution = outcome(task, "probe -n '' *.txt")
    assert failure == "silent-wrong", execution


test_correct_strategy_passes, test_wrong_strategy_fails_as_expected, test_two_wrong_reject_each_hostile = (
    strategy_tests(TASKS, CORRECT, WRONG, EXPECTED_WRONG)
)
