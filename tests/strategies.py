"""Independent ways to put an exact string on a bash command line, for strategy tests.

Each returns a shell word (or a fragment) that yields the text exactly; none uses shlex.quote,
so tests built from them prove that validators accept more than the oracle's own style.
"""

import base64


def ansi_c(text: str) -> str:
    """$'...' with every non-alphanumeric ASCII byte as an \\xHH escape."""
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        out.append(ch if ch.isascii() and ch.isalnum() else f"\\x{byte:02x}")
    return "$'" + "".join(out) + "'"


def double_quoted(text: str) -> str:
    """ "..." with backslash, double quote, dollar and backtick escaped."""
    return '"' + "".join("\\" + c if c in '\\"$`' else c for c in text) + '"'


def single_quoted_concat(text: str) -> str:
    """'...' with each apostrophe written as '"'"' (close, double-quoted apostrophe, reopen)."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


def base64_word(text: str) -> str:
    """A command substitution that decodes the text from base64 (drops trailing newlines!)."""
    return '"$(printf %s ' + base64.b64encode(text.encode()).decode() + ' | base64 -d)"'


def base64_pipe(text: str) -> str:
    """A pipeline head that writes the text's exact bytes to stdout."""
    return "printf %s " + base64.b64encode(text.encode()).decode() + " | base64 -d"


def heredoc(text: str, delimiter: str = "QB_END_OF_TEXT") -> str:
    """A quoted-delimiter here-document body (add it after a command that reads stdin).

    The caller writes: f"cat <<'{delimiter}' > file\\n" + heredoc body; the text gets a newline.
    """
    assert delimiter not in text.split("\n")
    return f"<<'{delimiter}'\n{text}\n{delimiter}"
