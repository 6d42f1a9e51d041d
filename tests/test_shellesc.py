"""Each escaper on every hazard character, including a round trip through the real tool."""

import subprocess

import pytest

from quotebench.shellesc import (
    awk_v_value,
    dq_embed_escape,
    json_document,
    naive_wrap,
    quote,
    sed_bre_pattern,
    sed_replacement,
)

HAZARD_CHARS = list("'\"$`\\!*?[]{}()<>|&;#~%^.+/=,:@- \n") + ["é", "✓", "-n", "a\\nb", "\\", "&&", "$(id)"]
SINGLE_LINE = [c for c in HAZARD_CHARS if "\n" not in c]


def bash(script: str, stdin: str = "") -> str:
    done = subprocess.run(["bash", "-c", script], input=stdin.encode(), capture_output=True, check=True)
    return done.stdout.decode()


@pytest.mark.parametrize("ch", HAZARD_CHARS)
def test_dq_embed_escape_round_trips_through_bash(ch):
    text = f"a{ch}b{ch}"
    assert bash(f'printf %s "{dq_embed_escape(text)}"') == text


@pytest.mark.parametrize("ch", SINGLE_LINE)
def test_sed_escapers_replace_literally_with_real_sed(ch):
    old, new = f"x{ch}y", f"<{ch}&\\1>"
    line = f"keep {old} and {old} but not xy\n"
    script = f"s/{sed_bre_pattern(old)}/{sed_replacement(new)}/g"
    assert bash(f"sed {quote(script)}", line) == line.replace(old, new)


@pytest.mark.parametrize("delimiter", ["|", "#", ","])
def test_sed_escapers_honour_another_delimiter(delimiter):
    old, new = f"a{delimiter}b", f"c{delimiter}d"
    d = delimiter
    script = f"s{d}{sed_bre_pattern(old, d)}{d}{sed_replacement(new, d)}{d}g"
    assert bash(f"sed {quote(script)}", f"{old}\n") == f"{new}\n"


def test_sed_replacement_newline_becomes_a_line_break():
    assert bash(f"sed {quote('s/x/' + sed_replacement('1' + chr(10) + '2') + '/')}", "x\n") == "1\n2\n"


def test_sed_pattern_refuses_a_newline():
    with pytest.raises(ValueError):
        sed_bre_pattern("a\nb")


@pytest.mark.parametrize("ch", HAZARD_CHARS)
def test_awk_v_value_survives_escape_processing(ch):
    text = f"k{ch}v{ch}"
    assert bash(f"awk -v s={quote(awk_v_value(text))} 'BEGIN {{ printf \"%s\", s }}'") == text


@pytest.mark.parametrize("ch", HAZARD_CHARS)
def test_shlex_quote_round_trips(ch):
    text = f"{ch}x{ch}"
    assert bash(f"printf %s {quote(text)}") == text


@pytest.mark.parametrize(
    "payload, expected",
    [
        ("plain words", '"plain words"'),
        ("it's", "'it's'"),
        ("it's $HOME", '"it\'s $HOME"'),
        ('say "hi"', '"say "hi""'),
        ("a\\b", '"a\\b"'),
    ],
)
def test_naive_wrap_picks_the_tempting_quote(payload, expected):
    assert naive_wrap(payload) == expected


@pytest.mark.parametrize("ch", HAZARD_CHARS)
def test_json_document_round_trips_through_printf_and_a_json_parser(ch):
    value = {"m": f"{ch}x{ch}"}
    reader = "python3 -c 'import json, sys; sys.stdout.write(json.load(sys.stdin)[\"m\"])'"
    out = bash(f"printf '%s\\n' {quote(json_document(value))} | {reader}")
    assert out == value["m"]
