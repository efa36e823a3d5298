"""suite/ is a package of rooms of the right size; its public names stay importable from pairbench.suite."""

from __future__ import annotations

import ast
from pathlib import Path

import pairbench.suite as suite

PACKAGE = Path(suite.__file__).parent


def test_public_names_are_importable_from_the_package() -> None:
    for name in ("Defaults", "GitSource", "VariantSpec", "Sweep", "Suite", "SWEEP_AS", "load_suite", "parse_suite",
                 "expand_matrix", "select_benchmarks", "suite_record", "DEFAULT_COMMAND_METRIC"):
        assert name in suite.__all__ and hasattr(suite, name), name
    assert sorted(suite.__all__) == sorted(set(suite.__all__))


def test_each_room_is_small_and_the_reader_lives_in_the_package() -> None:
    rooms = {p.stem: p for p in PACKAGE.glob("*.py")}
    assert {"tomlcheck", "schema", "overrides", "validation", "matrix", "selection", "record"} <= set(rooms)
    for name, path in rooms.items():
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 500, name
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef):
                assert node.end_lineno - node.lineno < 80, f"{name}.{node.name}"
