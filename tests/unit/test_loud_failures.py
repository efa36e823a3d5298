"""Tests that fail when they should: no skip hides a broken core import, no model class without a user."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "pairbench"


def test_no_test_skips_when_a_pairbench_module_fails_to_import() -> None:
    """importorskip of our own modules turns a broken core import into a skip; only optional
    third-party packages (pyperf, psycopg) may be skipped."""
    tests = SRC.parents[1] / "tests"
    found = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "importorskip"
                    and node.args and isinstance(node.args[0], ast.Constant)
                    and str(node.args[0].value).split(".")[0] == "pairbench"):
                found.append(f"{path.relative_to(tests)}:{node.lineno}")
    assert found == []


def test_every_model_class_is_used_outside_the_model() -> None:
    """The model holds what the program speaks in; a class nothing uses is a promise, not data
    (model.WorkUnit was one: the scale-out work brings it back with its first user)."""
    import inspect

    import pairbench.model as model

    classes = {n for n in model.__all__ if inspect.isclass(getattr(model, n))}

    used: set[str] = set()
    for path in SRC.rglob("*.py"):
        if path.name == "model.py" and path.parent == SRC:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "pairbench.model":
                used.update(a.name for a in node.names)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "model":
                used.add(node.attr)
    assert sorted(classes - used) == []
