"""Re-execute every stored command under another executor or toolchain, without calling the model."""

from __future__ import annotations

import datetime

from quotebench.model import Task
from quotebench.runner import execution_fields
from quotebench.store import ResultsFile


def replay(header: dict, records: list[dict], tasks: dict[str, Task], executor, out: str) -> dict:
    new_header = dict(
        header,
        executor=executor.name,
        toolchain=executor.toolchain(),
        replay_of_started_at=header.get("started_at"),
        started_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds"),
    )
    new_header.pop("type", None)
    store = ResultsFile(out, new_header, resume=False)
    counts = {"replayed": 0, "copied": 0, "stale": 0}
    try:
        for record in records:
            task = tasks.get(record["task_id"])
            if task is None or task.digest != record.get("task_digest"):
                counts["stale"] += 1  # the task changed since: its old reply no longer answers it
                continue
            if record.get("command") is None:  # contract-error, no-reply, api-error: nothing to run
                store.append({k: v for k, v in record.items() if k != "type"})
                counts["copied"] += 1
                continue
            execution = executor.run(task, record["command"])
            kept = {k: v for k, v in record.items() if k != "type"}
            store.append({**kept, **execution_fields(record["command"], execution)})
            counts["replayed"] += 1
    finally:
        store.close()
    return counts
