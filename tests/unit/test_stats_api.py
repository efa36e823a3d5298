"""The public API of the statistics layer: every name in __all__ exists, and layering holds."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "pairbench"
MODULES = ["pairbench.stats." + p.stem for p in sorted((SRC / "stats").glob("*.py"))
           if not p.stem.startswith("_")] + ["pairbench.analysis", "pairbench.report.wording"]


@pytest.mark.parametrize("name", MODULES)
def test_all_names_exist_and_modules_name_their_method(name):
    mod = importlib.import_module(name)
    assert mod.__doc__ and len(mod.__doc__.strip()) > 40
    for attr in getattr(mod, "__all__", []):
        assert hasattr(mod, attr), f"{name}.__all__ lists missing {attr}"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_stats_never_import_runners_sessions_or_reports():
    for path in (SRC / "stats").glob("*.py"):
        bad = {m for m in _imports(path) if m.startswith(("pairbench.runners", "pairbench.session",
                                                             "pairbench.report", "pairbench.commands",
                                                             "subprocess", "socket"))}
        assert not bad, f"{path.name} imports {bad}"


def test_wording_stays_light():
    """The terminal report imports wording; it must not pull numpy/scipy in (pairbench --help)."""
    mods = _imports(SRC / "report" / "wording.py")
    assert not {m for m in mods if m.split(".")[0] in ("numpy", "scipy")}
    assert not _imports(SRC / "stats" / "__init__.py")


def test_analysis_imports_stats_lazily():
    """report/terminal imports replicate_values; importing analysis must not pull numpy/scipy in."""
    for path in sorted((SRC / "analysis").glob("*.py")):
        top = [n for n in ast.parse(path.read_text()).body if isinstance(n, (ast.Import, ast.ImportFrom))]
        mods = {n.module for n in top if isinstance(n, ast.ImportFrom) and n.module}
        assert not {m for m in mods if m.startswith("pairbench.stats") or m.split(".")[0] in ("numpy", "scipy")}, path
