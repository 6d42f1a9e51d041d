"""The precedence table of failure classes, one row per case."""

import pytest

from quotebench.classify import classify
from quotebench.executors import Execution
from quotebench.model import FAILURE_CLASSES


def facts(exit_code=0, timed_out=False, syntax_ok=True, stderr="", state_ok=True, env_ok=True):
    verdict = {
        "state_ok": state_ok,
        "env_ok": env_ok,
        "problems": [],
        "stray": [],
        "collateral": [],
        "marker_leak": [],
    }
    return Execution(exit_code, timed_out, syntax_ok, "", stderr, 0.0, verdict)


TABLE = [
    ("all good", facts(), "pass"),
    ("exit 0, wrong state", facts(state_ok=False), "silent-wrong"),
    ("right state but non-zero exit", facts(exit_code=1), "runtime-error"),
    ("stray file with right state", facts(env_ok=False), "environment-invalid"),
    ("stray file with wrong state", facts(env_ok=False, state_ok=False), "environment-invalid"),
    ("stray file and error exit", facts(exit_code=1, env_ok=False, state_ok=False), "environment-invalid"),
    ("parse error", facts(exit_code=2, syntax_ok=False, state_ok=False), "shell-syntax"),
    ("parse error beats stray file", facts(exit_code=2, syntax_ok=False, env_ok=False), "shell-syntax"),
    (
        "nested shell parse error",
        facts(exit_code=2, state_ok=False, stderr="bash: -c: line 1: syntax error near unexpected token `('"),
        "shell-syntax",
    ),
    ("timeout beats everything below", facts(exit_code=None, timed_out=True, syntax_ok=False), "timeout"),
    (
        "sed expression error",
        facts(exit_code=1, state_ok=False, stderr="sed: -e expression #1, char 9: unknown option to `s'"),
        "tool-error",
    ),
    (
        "grep invalid option",
        facts(
            exit_code=2,
            state_ok=False,
            stderr="grep: invalid option -- 'q'\nUsage: grep [OPTION]... PATTERNS [FILE]...",
        ),
        "tool-error",
    ),
    (
        "mv option injection",
        facts(
            exit_code=1,
            state_ok=False,
            stderr="mv: invalid option -- ' '\nTry 'mv --help' for more information.",
        ),
        "tool-error",
    ),
    (
        "git fatal",
        facts(exit_code=128, state_ok=False, stderr="fatal: pathspec 'x' did not match"),
        "tool-error",
    ),
    (
        "mawk syntax",
        facts(exit_code=2, state_ok=False, stderr="mawk: line 1: syntax error at or near }"),
        "tool-error",
    ),
    (
        "missing file",
        facts(exit_code=1, state_ok=False, stderr="cat: nope: No such file or directory"),
        "runtime-error",
    ),
]


@pytest.mark.parametrize("name, execution, expected", TABLE, ids=[row[0] for row in TABLE])
def test_precedence(name, execution, expected):
    assert classify(execution) == expected


def test_contract_error_wins():
    assert classify(None, contract_error=True) == "contract-error"
    assert classify(facts(), contract_error=True) == "contract-error"


def test_every_class_is_reachable_from_the_table():
    reached = {row[2] for row in TABLE} | {"contract-error"}
    assert reached == set(FAILURE_CLASSES)
