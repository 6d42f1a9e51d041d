"""The naive baseline: the most tempting wrong quoting, sent as a one-shell-layer quoter would."""

from quotebench import contracts
from quotebench.adapters import Reply, Request


class NaiveAdapter:
    name = "naive"

    def complete(self, request: Request) -> Reply:
        return Reply(contracts.get(request.contract).naive_reply(request.task.naive))


def build(**_options) -> NaiveAdapter:
    return NaiveAdapter()
