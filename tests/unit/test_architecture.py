"""The import rules of docs/architecture.md, read from the source with ast (no module is imported).

Every `import` and `from ... import` counts, also the ones inside functions: a lazy import still
ties the layers together. The checker is shown to fail on a tree with a planted violation.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "pairbench"

LAYERS: dict[str, tuple[str, ...]] = {
    # layer -> the module prefixes (under pairbench) that belong to it, the most specific first
    "base": ("model", "errors", "interrupts", "__init__"),
    "helpers": ("budget", "plan", "machine", "builds", "importers"),
    "stats": ("stats",),
    "runners": ("runners",),
    "store": ("store",),
    "analysis": ("analysis",),
    "suite": ("suite",),
    "report": ("report",),
    "session": ("session",),
    "cluster": ("cluster",),
    "forges": ("forges",),
    "flows": ("flows",),
    "commands": ("commands", "cli", "__main__", "api"),
    "data": ("data",),
}

ALLOWED: dict[str, set[str]] = {
    "base": set(),
    "helpers": {"base"},
    "stats": {"base"},
    "runners": {"base"},
    "store": {"base"},
    "analysis": {"base", "stats"},
    "suite": {"base", "helpers", "runners"},
    # store: the JSON exporter writes the run-file format (store.runfile) through the one writer
    # (store.output); report reads no history and recomputes no statistics (no "stats"), and
    # renders kinds from its own presentation table (no "runners").
    "report": {"base", "analysis", "store"},
    "session": {"base", "helpers", "stats", "runners", "store", "analysis", "suite"},
    "cluster": {"base", "helpers", "stats", "runners", "store", "analysis", "suite", "session"},
    "forges": {"base"},
    "flows": {"base", "helpers", "stats", "runners", "store", "analysis", "suite", "report", "session", "cluster",
              "forges"},
    "commands": set(LAYERS),
    "data": set(),
}

FACADE: set[tuple[str, str]] = {("pairbench", "pairbench.api")}
"""The package re-exports the Python API on first use (module __getattr__ in __init__.py); no other
module of the base layer reaches up."""

KNOWN_EXCEPTIONS: set[tuple[str, str]] = set()
"""(importing module, imported module) pairs another piece of work is still removing, each with a
comment saying which; `test_the_known_exceptions_still_exist` makes sure a fixed one is deleted.
(analysis -> report.wording was the last one: the verdict sentences left analysis.)"""


def layer_of(module: str) -> str | None:
    """The layer of a dotted module name under `pairbench` (None outside pairbench)."""
    parts = module.split(".")
    if parts[0] != "pairbench":
        return None
    head = parts[1] if len(parts) > 1 else "__init__"
    for layer, prefixes in LAYERS.items():
        if head in prefixes:
            return layer
    return "unknown"


def _module_name(root: Path, path: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, module: str) -> set[str]:
    """Every pairbench module `path` imports, resolved to dotted names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.add(target)
            out.update(f"{target}.{a.name}" for a in node.names if a.name != "*")
    return {m for m in out if m == "pairbench" or m.startswith("pairbench.")}


def violations(root: Path, known: set[tuple[str, str]] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """Every import that breaks a rule, as 'importer -> imported (layer -> layer)'."""
    found = []
    existing = {_module_name(root, p) for p in root.rglob("*.py")}
    for path in sorted(root.rglob("*.py")):
        module = _module_name(root, path)
        src = layer_of(module)
        for target in sorted(imports_of(path, module)):
            if target not in existing and target.rpartition(".")[0] in existing:
                continue  # `from pairbench.x import name`: the module x is listed on its own
            dst = layer_of(target)
            if src is None or dst is None or dst == src or (module, target) in known:
                continue
            bad = dst == "unknown" or src == "unknown" or dst not in ALLOWED[src]
            if bad:
                found.append(f"{module} -> {target} ({src} -> {dst})")
    return found


def test_the_source_keeps_the_import_rules() -> None:
    assert violations(SRC, KNOWN_EXCEPTIONS | FACADE) == []
    assert violations(SRC, KNOWN_EXCEPTIONS) == ["pairbench -> pairbench.api (base -> commands)"]


def test_the_known_exceptions_still_exist() -> None:
    """An exception that was fixed is removed from the list, so it cannot come back unseen."""
    stale = [pair for pair in KNOWN_EXCEPTIONS
             if pair[1] not in imports_of(SRC.parent / (pair[0].replace(".", "/") + ".py"), pair[0])]
    assert stale == []


def test_the_checker_fails_on_a_planted_violation(tmp_path: Path) -> None:
    root = tmp_path / "pairbench"
    (root / "stats").mkdir(parents=True)
    (root / "runners").mkdir()
    (root / "__init__.py").write_text("")
    (root / "model.py").write_text("X = 1\n")
    (root / "stats" / "__init__.py").write_text("")
    (root / "runners" / "__init__.py").write_text("")
    (root / "stats" / "estimate.py").write_text("from pairbench.model import X\n")
    (root / "runners" / "fast.py").write_text(
        "from pairbench.model import X\n\ndef f():\n    from ..stats import estimate\n    return estimate\n")
    assert violations(root) == ["pairbench.runners.fast -> pairbench.stats (runners -> stats)",
                                "pairbench.runners.fast -> pairbench.stats.estimate (runners -> stats)"]
    (root / "model.py").write_text("import pairbench.runners.fast\n")
    assert "pairbench.model -> pairbench.runners.fast (base -> runners)" in violations(root)


def test_model_knows_no_kinds_and_reports_no_live_runner() -> None:
    """The two edges this house work removed: model -> runners (kinds) and report -> plan (progress)."""
    assert not any(t.startswith("pairbench.runners") for t in imports_of(SRC / "model.py", "pairbench.model"))
    for path in (SRC / "report").glob("*.py"):
        name = f"pairbench.report.{path.stem}"
        assert not {t for t in imports_of(path, name) if t.startswith(("pairbench.plan", "pairbench.runners.base"))}, name


_SQL = re.compile(r"\b(SELECT|INSERT INTO|CREATE (TABLE|INDEX)|UPDATE \w+ SET|DELETE FROM|ALTER TABLE)\b")


def test_no_sql_outside_the_store() -> None:
    """The history store owns its tables: every query is a store function that returns plain data."""
    found = [f"{_module_name(SRC, path)}: {m.group(0)}" for path in sorted(SRC.rglob("*.py"))
             if "store" not in path.relative_to(SRC).parts[:1]
             for m in _SQL.finditer(path.read_text(encoding="utf-8"))]
    assert found == []
    assert _SQL.search('rows = backend.execute("SELECT metrics FROM benchmarks")')


def test_reports_import_no_runner_and_only_the_cli_imports_by_name() -> None:
    """Kind presentation is report's own table (report/kinds.py), with its renderers referenced, not
    named by strings: an import by name is an arrow the layer check cannot see."""
    for path in sorted((SRC / "report").rglob("*.py")):
        name = _module_name(SRC, path)
        assert not {t for t in imports_of(path, name) if t.startswith("pairbench.runners")}, name
    by_name = []
    # the harnesses run inside the measured interpreter and import the user's benchmark suites by name
    for path in sorted(p for p in SRC.rglob("*.py") if "harness" not in p.parts):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            if any(n.startswith("importlib") and not n.startswith("importlib.resources") for n in names):
                by_name.append(_module_name(SRC, path))
    assert by_name == ["pairbench.cli"]


LONG_FUNCTIONS: set[str] = {
    # module.function: over 80 lines, in rooms other work is changing now; delete when split
    "pairbench.session.execute",  # the block loop with adaptive stopping and signal handling
    "pairbench.analysis.comparisons.analyze",  # the analysis rules
    "pairbench.runners.micro.harness.py_alloc._alloc_pass",  # the micro worker's allocation pass
    "pairbench.report.terminal.render_terminal",  # the terminal report
}


def test_no_module_over_500_lines_and_no_function_over_80() -> None:
    long_modules, long_functions = [], []
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        module = _module_name(SRC, path)
        if len(text.splitlines()) > 500:
            long_modules.append(module)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 80:
                if f"{module}.{node.name}" not in LONG_FUNCTIONS:
                    long_functions.append(f"{module}.{node.name}")
    assert long_modules == [] and long_functions == []


def test_no_runner_module_over_450_lines() -> None:
    """Each kind is a folder of modules named for what they hold; the interpreter harnesses, which
    run inside the measured interpreter as single files, are exempt."""
    long_modules = [_module_name(SRC, p) for p in sorted((SRC / "runners").rglob("*.py"))
                    if "harness" not in p.parts and len(p.read_text(encoding="utf-8").splitlines()) > 450]
    assert long_modules == []
