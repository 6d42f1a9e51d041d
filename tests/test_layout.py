"""The import direction of the architecture, checked on the source."""

import ast
from pathlib import Path

import quotebench

PACKAGE = Path(quotebench.__file__).parent


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("quotebench")}


def test_scenarios_import_only_the_model_and_escapers():
    for path in (PACKAGE / "scenarios").glob("*.py"):
        allowed = {"quotebench.model", "quotebench.shellesc", "quotebench.fsstate"}
        assert {i for i in imports_of(path) if not i.startswith("quotebench.scenarios")} <= allowed, path


def test_low_layers_do_not_import_high_layers():
    high = {"quotebench.cli", "quotebench.runner", "quotebench.validate", "quotebench.adapters"}
    for name in ("model.py", "shellesc.py", "fsstate.py", "catalogue.py", "classify.py", "contracts.py"):
        assert not imports_of(PACKAGE / name) & high, name


def test_no_grab_bag_modules():
    names = {p.stem for p in PACKAGE.rglob("*.py")}
    assert not names & {"utils", "helpers", "common", "misc"}
