"""json-write: several correct strategies pass every hostile tier; plausible wrong ones fail."""

import json

from quotebench.scenarios import json_write
from tests.scenarios.matrix import strategy_tests
from tests.strategies import ansi_c, base64_pipe, double_quoted, heredoc, single_quoted_concat

TASKS = json_write.tasks()


def document(p: dict) -> str:
    """The JSON text a careful author escapes by hand (non-ASCII kept as UTF-8)."""
    return json.dumps({p["key"]: p["value"]}, ensure_ascii=False)


def unescaped(p: dict) -> str:
    """The JSON text pasted together by hand, without JSON escaping."""
    return '{"' + p["key"] + '": "' + p["value"] + '"}'


def ansi_c_unicode(text: str) -> str:
    """$'...' written the way people do it: \\' \\\\ \\n escapes and \\uXXXX for non-ASCII. Under
    LC_ALL=C bash cannot encode \\uXXXX and leaves the escape as literal text."""
    out = []
    for ch in text:
        if ch in "\\'":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif not ch.isascii():
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"


CORRECT = {
    "jq-arg-ansi-c": lambda p: f"jq -n --arg v {ansi_c(p['value'])} '{{{p['key']}: $v}}' > {p['target']}",
    "jq-raw-base64": lambda p: f"{base64_pipe(p['value'])} | jq -Rs '{{{p['key']}: .}}' > {p['target']}",
    "hand-json-heredoc": lambda p: f"cat > {p['target']} {heredoc(document(p))}",
    "hand-json-printf": lambda p: f"printf '%s\\n' {single_quoted_concat(document(p))} > {p['target']}",
    "python-environ": lambda p: (
        f"V={double_quoted(p['value'])} python3 -c 'import json, os, sys; "
        f'json.dump({{"{p["key"]}": os.environ["V"]}}, sys.stdout)\' > {p["target"]}'
    ),
}

WRONG = {
    # Correct shell quoting of a hand-written document, but the value is not JSON-escaped.
    "unescaped-json": lambda p: f"printf '%s\\n' {single_quoted_concat(unescaped(p))} > {p['target']}",
    # Correct shell layer around python source, but the value pasted into a Python '...' literal.
    "python-literal": lambda p: (
        "python3 -c "
        + double_quoted(
            f"import json; json.dump({{'{p['key']}': '{p['value']}'}}, open('{p['target']}', 'w'))"
        )
    ),
    # $'\u00e9' needs a UTF-8 locale; the command runs under LC_ALL=C.
    "ansi-c-unicode": lambda p: (
        f"jq -n --arg v {ansi_c_unicode(p['value'])} '{{{p['key']}: $v}}' > {p['target']}"
    ),
    # The right document, but through a helper file that is left behind.
    "helper-file": lambda p: (
        f"cat > value.txt {heredoc(p['value'])}\njq -Rs '{{{p['key']}: .[:-1]}}' value.txt > {p['target']}"
    ),
}
EXPECTED_WRONG = {
    "unescaped-json": {1: "pass", 2: "silent-wrong", 3: "silent-wrong"},
    "python-literal": {1: "runtime-error", 2: "runtime-error", 3: "runtime-error"},
    "ansi-c-unicode": {1: "pass", 2: "pass", 3: "silent-wrong"},
    "helper-file": {1: "environment-invalid", 2: "environment-invalid", 3: "environment-invalid"},
}


test_correct_strategy_passes, test_wrong_strategy_fails_as_expected, test_two_wrong_reject_each_hostile = (
    strategy_tests(TASKS, CORRECT, WRONG, EXPECTED_WRONG)
)
