"""The quotebench command line. Thin: one function per command, heavy imports inside commands."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="QuoteBench: measure whether a model composes one correct bash -c command for hostile payloads.",
)


class UsageProblem(Exception):
    """Bad input from the user: reported as one line on stderr with exit code 2."""


def _contracts(name: str):
    from quotebench import contracts

    if name == "all":
        return list(contracts.CONTRACTS.values())
    try:
        return [contracts.get(name)]
    except LookupError as err:
        raise UsageProblem(str(err).strip("'\"")) from None


def _executor(name: str):
    from quotebench import executors

    try:
        return executors.get(name)
    except LookupError as err:
        raise UsageProblem(str(err).strip("'\"")) from None


def _task(task_id: str):
    from quotebench import catalogue

    try:
        return catalogue.get(task_id)
    except LookupError as err:
        raise UsageProblem(str(err).strip("'\"")) from None


@app.command("list")
def list_tasks(as_json: Annotated[bool, typer.Option("--json", help="Print a JSON array.")] = False) -> None:
    """List the tasks: id, tier and hazard tags."""
    from quotebench import catalogue

    tasks = catalogue.all_tasks()
    if as_json:
        keys = ("id", "scenario", "tier", "hazards", "instruction", "oracle", "naive")
        rows = [{k: t.to_json()[k] for k in keys} | {"digest": t.digest} for t in tasks]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    for t in tasks:
        print(f"{t.id:42} t{t.tier}  {', '.join(t.hazards) or 'control'}")
    print(
        f"{len(tasks)} tasks, {len(catalogue.scenario_names())} scenarios, task-set digest "
        f"{catalogue.task_set_digest()}"
    )


@app.command()
def show(task_id: Annotated[str, typer.Argument(help="A task id from `quotebench list`.")]) -> None:
    """Show one task: instruction, hazards, oracle, naive command and fixture summary."""
    task = _task(task_id)
    fixture = task.fixture
    print(f"id:        {task.id}\ntier:      {task.tier} ({'hostile' if task.hostile else 'control'})")
    print(f"hazards:   {', '.join(task.hazards) or '-'}\ndigest:    {task.digest}")
    print(f"\ninstruction:\n{task.instruction}\n\noracle:\n{task.oracle}\n\nnaive:\n{task.naive}\n")
    print("fixture:")
    for rel in fixture.get("files", {}):
        print(f"  file    {rel}")
    for name in fixture.get("helpers", []):
        print(f"  helper  {name}")
    for repo in fixture.get("git", []):
        print(
            f"  git     {repo['path']} ({len(repo.get('commits', []))} commit(s), "
            f"{len(repo.get('pending', {}))} pending file(s))"
        )
    print(f"allowed new paths: {', '.join(task.expect.get('allowed_new', [])) or '-'}")


@app.command()
def validate(
    contract: Annotated[str, typer.Option(help="raw, json, wrapped or all.")] = "raw",
    executor: Annotated[str, typer.Option(help="Where commands run: local.")] = "local",
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    workers: Annotated[int, typer.Option(help="Parallel executions.")] = 2,
) -> None:
    """Prove the task set: oracles pass, naive fails every hostile task and passes every raw control."""
    from quotebench import catalogue
    from quotebench.progress import Progress
    from quotebench.validate import summary_lines
    from quotebench.validate import validate as run_validate

    chosen = _contracts(contract)
    tasks = list(catalogue.all_tasks())
    with _executor(executor) as runner, Progress(2 * len(tasks) * len(chosen), "validate") as bar:
        report = run_validate(tasks, chosen, runner, workers=max(1, workers), progress=bar.advance)
    if as_json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        print("\n".join(summary_lines(report)))
    raise typer.Exit(0 if report["ok"] else 1)


def main() -> None:
    try:
        app(standalone_mode=False)
    except UsageProblem as err:
        print(f"quotebench: error: {err}", file=sys.stderr)
        sys.exit(2)
    except typer.Exit as done:
        sys.exit(done.exit_code)
    except KeyboardInterrupt:
        print("quotebench: interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as err:  # click's own usage errors
        import click

        if isinstance(err, click.exceptions.ClickException):
            err.show()
            sys.exit(err.exit_code)
        if isinstance(err, click.exceptions.Abort):
            sys.exit(130)
        raise
