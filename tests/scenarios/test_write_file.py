"""write-file: several correct strategies pass every hostile tier; plausible wrong ones fail."""

from quotebench.scenarios import write_file
from tests.scenarios.matrix import strategy_tests
from tests.strategies import ansi_c, base64_pipe, double_quoted, heredoc, single_quoted_concat

HOSTILE = [t for t in write_file.tasks() if t.hostile]

CORRECT = {
    "printf-ansi-c": lambda p: f"printf '%s\\n' {ansi_c(p['payload'])} > {p['target']}",
    "echo-double-quoted": lambda p: f"echo {double_quoted(p['payload'])} > {p['target']}",
    "cat-quoted-heredoc": lambda p: f"cat > {p['target']} {heredoc(p['payload'])}",
    "base64": lambda p: f"{{ {base64_pipe(p['payload'])}; echo; }} > {p['target']}",
    "single-quote-concat": lambda p: f"printf '%s\\n' {single_quoted_concat(p['payload'])} > {p['target']}",
    "python": lambda p: (
        'python3 -c \'import sys; open(sys.argv[1], "w").write(sys.argv[2] + "\\n")\' '
        f"{p['target']} {ansi_c(p['payload'])}"
    ),
}

WRONG = {
    # printf with the payload as its format: % and backslashes are interpreted.
    "printf-format": lambda p: f"printf {double_quoted(p['payload'])}'\\n' > {p['target']}",
    # an unquoted heredoc delimiter: $ and backticks expand.
    "unquoted-heredoc": lambda p: f"cat > {p['target']} <<EOF\n{p['payload']}\nEOF",
    # backslash-escaping an apostrophe inside single quotes, as if it were a double-quoted string.
    "backslash-in-single-quotes": lambda p: (
        f"printf '%s\\n' '{p['payload'].replace(chr(39), chr(92) + chr(39))}' > {p['target']}"
    ),
    # double quotes with nothing escaped.
    "bare-double-quotes": lambda p: f"printf '%s\\n' \"{p['payload']}\" > {p['target']}",
    # the right content written through a helper script left behind.
    "helper-script": lambda p: (
        "cat > make.sh " + heredoc("printf '%s\\n' " + single_quoted_concat(p["payload"])) + "\n"
        f"bash make.sh > {p['target']}"
    ),
}
EXPECTED_WRONG = {
    "printf-format": {1: "pass", 2: "pass", 3: "tool-error"},
    "unquoted-heredoc": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "backslash-in-single-quotes": {1: "shell-syntax", 2: "pass", 3: "shell-syntax"},
    "bare-double-quotes": {1: "pass", 2: "silent-wrong", 3: "shell-syntax"},
    "helper-script": {1: "environment-invalid", 2: "environment-invalid", 3: "environment-invalid"},
}


test_correct_strategy_passes, test_wrong_strategy_fails_as_expected, test_two_wrong_reject_each_hostile = (
    strategy_tests(write_file.tasks(), CORRECT, WRONG, EXPECTED_WRONG)
)
