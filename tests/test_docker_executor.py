"""The docker executor: the same verdicts as local, with the command contained in a container.

Needs a reachable engine (DOCKER_HOST; a Podman service works) and, where no registry is reachable,
QB_DOCKER_BASE naming a local Debian bookworm image to build the runner image on.
"""

import contextlib
import os
import socket
import subprocess
import time

import pytest

from quotebench import catalogue
from quotebench.classify import classify
from quotebench.contracts import CONTRACTS
from quotebench.executors import get
from quotebench.executors.docker_executor import LABEL, OWNER
from quotebench.model import Task
from quotebench.validate import validate


def _engine_problem() -> str | None:
    try:
        import docker

        docker.from_env(timeout=5).ping()
    except Exception as err:
        return f"no container engine is reachable (set DOCKER_HOST or start Docker/Podman): {err}"
    return None


PROBLEM = _engine_problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or "")

TASKS = list(catalogue.all_tasks())
TASK = catalogue.get("write-file/t0-plain")
WRITE = f"printf '%s\\n' {TASK.params['payload']!r} > note.txt"
HAZARD_DIR = 'dir it\'s "q" $HOME `id` -n ✓\nline'


@pytest.fixture(scope="module")
def docker_ex():
    with get("docker") as ex:
        yield ex


def _processes_with(marker: str, patience: float = 2.0) -> list[str]:
    """Host processes whose command line contains marker (a rootful engine's are visible here), after
    giving killed ones a moment to be reaped."""
    deadline = time.monotonic() + patience
    while (found := _scan(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def _scan(marker: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmdline = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append(f"{pid}: {cmdline}")
    return found


def _containers(ex) -> list:
    return ex._client.containers.list(all=True, filters={"label": f"{LABEL}={ex._token}"})


def test_validate_holds_in_containers(docker_ex):
    report = validate(TASKS, [CONTRACTS["raw"], CONTRACTS["wrapped"]], docker_ex, workers=2)
    assert report["ok"], [e["failures"] for e in report["contracts"].values()]


def test_toolchain_is_the_containers(docker_ex):
    versions = docker_ex.toolchain()
    assert set(versions) == {"bash", "sed", "grep", "awk", "git"}
    assert versions["bash"].startswith("GNU bash, version 5.2")
    assert versions["awk"].startswith("mawk")


def test_no_network(docker_ex, executor):
    """A port listening on the host's loopback is reachable locally but not from the container."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        connect = f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), timeout=2)'"
        assert executor.run(TASK, connect).exit_code == 0
        execution = docker_ex.run(TASK, connect)
        assert execution.exit_code != 0 and "ConnectionRefusedError" in execution.stderr_tail
    interfaces = docker_ex.run(TASK, "ls /sys/class/net")
    assert interfaces.stdout_tail.split() == ["lo"]


def test_host_environment_is_invisible(docker_ex, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret2")
    execution = docker_ex.run(TASK, "env")
    assert "sk-secret" not in execution.stdout_tail
    names = {line.split("=", 1)[0] for line in execution.stdout_tail.splitlines()}
    assert names <= {"HOME", "PATH", "LC_ALL", "GIT_CONFIG_NOSYSTEM", "USER", "TMPDIR", "PWD", "SHLVL", "_"}


def test_runs_as_the_caller_in_the_work_dir_with_empty_stdin(docker_ex):
    execution = docker_ex.run(TASK, f'test "$HOME" = "$PWD" && cat && id -u && id -g && {WRITE}')
    assert classify(execution) == "pass", execution
    assert execution.stdout_tail.split() == [str(os.getuid()), str(os.getgid())]


def test_the_system_is_read_only(docker_ex):
    execution = docker_ex.run(TASK, f"touch /usr/qb-escape; {WRITE}")
    assert "Read-only file system" in execution.stderr_tail
    assert classify(execution) == "pass"


def test_timeout_kills_background_children():
    marker = "29.4817"  # an argument no other process on this machine has
    with get("docker", timeout=1) as ex:
        started = time.monotonic()
        execution = ex.run(TASK, f"sleep {marker} & (setsid sleep {marker} &) ; sleep {marker}")
        assert time.monotonic() - started < 10
        assert classify(execution) == "timeout" and execution.exit_code is None
        assert _processes_with(f"sleep {marker}") == []
        # The pool goes on with a fresh container.
        assert classify(ex.run(TASK, WRITE)) == "pass"


def test_background_children_are_killed_after_a_normal_exit(docker_ex):
    marker = "28.7316"
    execution = docker_ex.run(
        TASK, f"sleep {marker} & (setsid sleep {marker} &) ; nohup sleep {marker} & {WRITE}"
    )
    assert classify(execution) == "pass"
    assert _processes_with(f"sleep {marker}") == []


def test_syntax_errors_are_confirmed_by_the_containers_bash(docker_ex):
    assert classify(docker_ex.run(TASK, "if then")) == "shell-syntax"
    assert docker_ex.run(TASK, "exit 2").syntax_ok


def test_attempt_trees_and_containers_are_cleaned_up(tmp_path):
    """A hazardous base directory reaches the container byte-exact (the probe finds its log through
    its own path), and nothing is left of the attempts or the containers, whatever they did."""
    base = tmp_path / HAZARD_DIR
    base.mkdir()
    checks = [{"kind": "probe", "calls": [{"argv": ["it's", "$x"]}]}]
    probe_task = Task(
        "probe-task", 0, "x", (), "write ⟪ok⟫", {"helpers": ["probe"]}, {"checks": checks}, "", ""
    )
    with get("docker", base_dir=str(base), timeout=2) as ex:
        execution = ex.run(probe_task, "probe \"it's\" '$x'; pwd")
        assert classify(execution) == "pass", execution
        assert execution.stdout_tail.startswith(str(base) + "/")
        assert _containers(ex)
        ex.run(TASK, "mkdir -p d/e && touch d/e/f && chmod 0 d/e d")
        assert classify(ex.run(TASK, "sleep 30")) == "timeout"
        ex.run(TASK, "kill -9 $PPID")  # the command kills its own wrapper: that container goes too
        client, token = ex._client, ex._token
    assert client.containers.list(all=True, filters={"label": f"{LABEL}={token}"}) == []
    assert os.listdir(base) == []


def test_containers_of_a_dead_process_are_swept(docker_ex):
    """An executor killed before close() leaves its containers running; the next one removes them."""
    dead = subprocess.Popen(["true"])
    dead.wait()
    orphan = docker_ex._client.containers.run(
        docker_ex.image,
        ["sleep", "600"],
        detach=True,
        network_mode="none",
        labels={OWNER: f"{socket.gethostname()}:{dead.pid}"},
    )
    try:
        with get("docker"):
            pass
        assert orphan.id not in {c.id for c in docker_ex._client.containers.list(all=True)}
    finally:
        with contextlib.suppress(Exception):
            orphan.remove(force=True)


def test_an_unreachable_engine_is_one_clear_line(monkeypatch, tmp_path):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    with pytest.raises(LookupError) as raised:
        get("docker")
    message = str(raised.value)
    assert "\n" not in message and "DOCKER_HOST" in message
