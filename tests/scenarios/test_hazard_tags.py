"""ShellCheck-code tags follow fixed rules, so per-hazard totals mean the same thing in every scenario.

(The character-class tags are checked against the payload by tests/test_tasks.py.)
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from quotebench import catalogue
from quotebench.model import CLOSE, OPEN

TASKS = catalogue.all_tasks()
HOSTILE = [t for t in TASKS if t.hostile]
by_id = {"ids": lambda t: t.id}

# Scenarios where a $ in the payload is a heredoc or remote-side hazard with its own tags
# (heredoc-expansion, SC2029, SC2087) rather than a literal typed into a local single-quoted word.
HEREDOC_OR_SSH = {"heredoc-write", "ssh-heredoc", "ssh-nested"}


def payload_text(task) -> str:
    literals = re.findall(f"{OPEN}(.*?){CLOSE}", task.instruction, re.S)
    return "".join(literals) + "".join(task.fixture.get("files", {}))


@pytest.mark.parametrize("task", HOSTILE, **by_id)
def test_sc2016_tags_every_literal_dollar_typed_on_the_local_command_line(task):
    """SC2016 ("expressions don't expand in single quotes") is the info that tempts a model to turn
    correct single quotes into double quotes; it applies wherever a literal $ must be typed locally."""
    wanted = "$" in payload_text(task) and task.scenario not in HEREDOC_OR_SSH
    assert ("SC2016" in task.hazards) == wanted


@pytest.mark.parametrize("task", HOSTILE, **by_id)
def test_sc2087_only_where_shellcheck_emits_it(task):
    """ShellCheck emits SC2087 only for an unquoted heredoc fed to ssh whose body expands something."""
    wanted = task.scenario == "ssh-heredoc" and bool(set(task.params["payload"]) & set("$`"))
    assert ("SC2087" in task.hazards) == wanted
    if wanted:
        shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).parent / "shellcheck")
        # a delimiter the content does not collide with, so ShellCheck can parse the whole body
        body = task.params["payload"]
        unquoted = f"ssh box 'cat > {task.params['target']}' <<QB_END\n{body}\nQB_END\n"
        done = subprocess.run(
            [shellcheck, "-s", "bash", "-f", "gcc", "-"], input=unquoted, capture_output=True, text=True
        )
        assert "SC2087" in done.stdout


@pytest.mark.parametrize("task", HOSTILE, **by_id)
def test_sc2029_tags_client_side_expansion_through_ssh(task):
    wanted = task.scenario in {"ssh-nested", "ssh-heredoc"} and bool(set(task.params["payload"]) & set("$`"))
    assert ("SC2029" in task.hazards) == wanted


def test_awk_dollar_is_not_claimed_by_a_payload():
    """The awk program's $1 is the same in every field-lookup tier, control included, so the
    shell-vs-awk collision is not a property of any hostile payload."""
    assert not [t.id for t in TASKS if "awk-dollar" in t.hazards]
