import pytest

from quotebench.classify import classify
from quotebench.executors.local import LocalExecutor


@pytest.fixture(scope="session")
def executor():
    with LocalExecutor() as ex:
        yield ex


@pytest.fixture(scope="session")
def outcome(executor):
    """outcome(task, command) -> (failure class, Execution) under the raw contract."""

    def run(task, command):
        execution = executor.run(task, command)
        return classify(execution), execution

    return run
