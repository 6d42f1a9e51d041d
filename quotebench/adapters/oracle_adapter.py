"""The oracle: replies with the task's known-good command, encoded for the contract."""

from quotebench import contracts
from quotebench.adapters import Reply, Request


class OracleAdapter:
    name = "oracle"

    def complete(self, request: Request) -> Reply:
        return Reply(contracts.get(request.contract).encode(request.task.oracle))


def build(**_options) -> OracleAdapter:
    return OracleAdapter()
