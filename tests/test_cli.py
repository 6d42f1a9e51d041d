"""The command line as users see it: output shapes, exit codes, one-line errors."""

import json
import subprocess
import sys

import pytest

from quotebench import catalogue


def qb(*args):
    return subprocess.run([sys.executable, "-m", "quotebench", *args], capture_output=True, text=True)


def test_list_json_has_the_documented_fields():
    done = qb("list", "--json")
    rows = json.loads(done.stdout)
    assert done.returncode == 0 and len(rows) == len(catalogue.all_tasks())
    for key in ("id", "scenario", "tier", "hazards", "instruction", "oracle", "naive"):
        assert all(key in row for row in rows)


def test_show_prints_instruction_oracle_and_naive():
    task = catalogue.all_tasks()[-1]
    done = qb("show", task.id)
    assert done.returncode == 0
    assert task.instruction in done.stdout and task.oracle in done.stdout and task.naive in done.stdout


def test_validate_json_report_shape():
    done = qb("validate", "--contract", "json", "--json")
    report = json.loads(done.stdout)
    assert done.returncode == (0 if report["ok"] else 1)
    entry = report["contracts"]["json"]
    assert entry["oracle"]["total"] == len(catalogue.all_tasks())
    assert set(entry) == {"oracle", "naive_controls", "naive_hostile", "failures"}


@pytest.mark.parametrize(
    "args, words",
    [
        (["show", "no/such-task"], "unknown task id"),
        (["validate", "--contract", "yaml"], "unknown contract"),
        (["validate", "--executor", "cloud"], "unknown executor"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, words):
    done = qb(*args)
    assert done.returncode == 2
    assert words in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_validate_exits_1_when_a_check_fails(monkeypatch, capsys):
    """The exit code is what CI trusts: a failed check must not exit 0."""
    import quotebench.validate
    from quotebench import cli

    def failing(tasks, contracts, executor, workers, progress):
        return {
            "ok": False,
            "contracts": {
                "raw": {
                    "oracle": {"passed": 0, "total": 1},
                    "naive_controls": {"passed": 0, "total": 0},
                    "naive_hostile": {"passed": 0, "total": 0},
                    "failures": [
                        {
                            "task_id": "x",
                            "role": "oracle",
                            "expected": "pass",
                            "failure_class": "silent-wrong",
                            "why": "broken",
                        }
                    ],
                }
            },
        }

    monkeypatch.setattr(quotebench.validate, "validate", failing)
    monkeypatch.setattr(sys, "argv", ["quotebench", "validate"])
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code == 1 and "CHECKS FAILED" in capsys.readouterr().out
