"""Execution facts -> one failure class. The precedence is one table, read top to bottom."""

from __future__ import annotations

import re

from quotebench.executors import Execution

# A tool rejected its arguments: usage, option or expression errors of the userland tools.
TOOL_ERROR = re.compile(
    r"invalid option|unrecognized option|unknown option|illegal option|missing operand|extra operand"
    r"|[Uu]sage:|Try '.*--help'"
    r"|sed: -e expression|sed: can't find label|unterminated `?s'? command|unknown command:"
    r"|Unmatched [\[(]|Invalid (preceding regular expression|range end|back reference|regular expression"
    r"|content of)|Trailing backslash"
    r"|awk: (line \d+|cmd\. line)|awk: syntax error|regular expression compile failed"
    r"|^(fatal|error): |error: pathspec"
    r"|find: (unknown predicate|paths must precede|invalid argument|missing argument)"
    r"|JSONDecodeError|parse error: |invalid format character|invalid directive",
    re.MULTILINE,
)
# A nested shell (the ssh wrapper's remote side, a wrapped `bash -c "..."`) failed to parse.
NESTED_SYNTAX = re.compile(
    r"syntax error near unexpected token|unexpected EOF while looking for matching"
    r"|syntax error: unexpected end of file|here-document at line \d+ delimited by end-of-file"
)


def classify(execution: Execution | None, contract_error: bool = False) -> str:
    """First matching row wins:

    contract-error       the reply could not be turned into a command under the contract
    timeout              killed after the time limit
    shell-syntax         bash (or a nested bash) could not parse the command
    environment-invalid  non-whitelisted files left behind: zero credit whatever the state
    pass                 exit 0 and the final state is exactly as expected
    silent-wrong         exit 0 but the final state is wrong: the dangerous case
    tool-error           non-zero exit and a tool rejected its arguments or expression
    runtime-error        any other non-zero exit
    """
    if contract_error or execution is None:
        return "contract-error"
    if execution.timed_out:
        return "timeout"
    stderr = execution.stderr_tail
    if not execution.syntax_ok or (execution.exit_code != 0 and NESTED_SYNTAX.search(stderr)):
        return "shell-syntax"
    if not execution.verdict["env_ok"]:
        return "environment-invalid"
    if execution.exit_code == 0:
        return "pass" if execution.verdict["state_ok"] else "silent-wrong"
    if TOOL_ERROR.search(stderr):
        return "tool-error"
    return "runtime-error"
