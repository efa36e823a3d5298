"""The import rules of docs/architecture.md, read from the source with ast (no module is imported).

The rules are the doc's own layers table, parsed here (`read_map`): there is one map, not a copy.

Every `import` and `from ... import` counts, also the ones inside functions: a lazy import still
ties the layers together. The checker is shown to fail on a tree with a planted violation.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "pairbench"

MAP = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def read_map(text: str) -> tuple[dict[str, tuple[str, ...]], dict[str, set[str]]]:
    """The layers table of docs/architecture.md: layer -> its module prefixes (under pairbench),
    and layer -> the layers it may import ("—": none, "all": every layer)."""
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip().strip("|").split("|") for line in section.splitlines() if line.startswith("|")]
    layers: dict[str, tuple[str, ...]] = {}
    may: dict[str, str] = {}
    for cells in rows[2:]:  # after the header and its rule
        layer, modules, imports = (c.strip() for c in cells[:3])
        layers[layer] = tuple(re.findall(r"`(\w+)`", modules))
        may[layer] = imports
    allowed = {layer: set(layers) if imports == "all" else
               {w.strip() for w in imports.split(",") if w.strip() not in ("", "—")}
               for layer, imports in may.items()}
    return layers, allowed


LAYERS, ALLOWED = read_map(MAP.read_text(encoding="utf-8"))
"""The one map: what docs/architecture.md says, read from it."""

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


def test_the_map_names_every_module_and_only_layers() -> None:
    assert {"base", "runners", "stats", "report", "commands"} <= set(LAYERS)
    assert all(may <= set(LAYERS) for may in ALLOWED.values()), ALLOWED
    assert ALLOWED["stats"] == {"base"} and ALLOWED["commands"] == set(LAYERS)
    tops = {p.stem if p.is_file() else p.name for p in SRC.iterdir()
            if (p.suffix == ".py") or (p.is_dir() and (p / "__init__.py").exists())}
    assert [t for t in sorted(tops) if layer_of(f"pairbench.{t}") == "unknown"] == []
    prefixes = [p for ps in LAYERS.values() for p in ps]
    assert sorted(prefixes) == sorted(set(prefixes))  # a module sits in one layer


def test_a_changed_map_changes_the_rules() -> None:
    """The test's rules are the doc's: a row edited in the doc is a rule changed here."""
    text = MAP.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| stats |"))
    layers, allowed = read_map(text.replace(row, row.replace("| base |", "| base, runners |")))
    assert allowed["stats"] == {"base", "runners"} and layers == LAYERS
    layers, _ = read_map(text.replace("`plan`, ", ""))
    assert "plan" not in layers["helpers"]


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

MAX_MODULE_LINES = 450

LONG_MODULES: set[str] = set()
"""Modules over MAX_MODULE_LINES that other work is still splitting (none since runners/ has a folder per kind)."""


def _is_harness(path: Path) -> bool:
    """The interpreter harnesses (a `harness` folder, wherever micro's harness lives) run inside the
    measured interpreter, one file each, and are exempt from the module size."""
    return "harness" in path.relative_to(SRC).parts[:-1]


def _module_lines() -> dict[str, int]:
    return {_module_name(SRC, path): len(path.read_text(encoding="utf-8").splitlines())
            for path in sorted(SRC.rglob("*.py")) if not _is_harness(path)}


def test_no_module_over_450_lines_and_no_function_over_80() -> None:
    long_modules, long_functions = [], []
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        module = _module_name(SRC, path)
        if len(text.splitlines()) > MAX_MODULE_LINES and not _is_harness(path) and module not in LONG_MODULES:
            long_modules.append(module)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 80:
                if f"{module}.{node.name}" not in LONG_FUNCTIONS:
                    long_functions.append(f"{module}.{node.name}")
    assert long_modules == [] and long_functions == []


def test_the_long_modules_are_still_long() -> None:
    """A module split below the size is removed from LONG_MODULES, so it cannot grow back unseen."""
    lines = _module_lines()
    assert [m for m in LONG_MODULES if lines.get(m, 0) <= MAX_MODULE_LINES] == []
    assert any(_is_harness(p) for p in SRC.rglob("*.py"))  # the exemption still names a folder that exists


def _runtime_imports(path: Path, module: str) -> set[str]:
    """The pairbench modules `path` imports when it runs (lazy imports included, `if TYPE_CHECKING:` not)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module or ""
            out.add(target)
            out.update(f"{target}.{a.name}" for a in node.names)
    return {m for m in out if m.startswith("pairbench.")}


def import_cycles(root: Path) -> list[list[str]]:
    """Groups of modules that import one another at run time (Tarjan's strongly connected components).

    A package importing its own modules (an `__init__` re-export) is not an edge: Python finishes
    the package first."""
    modules = {_module_name(root, p): p for p in root.rglob("*.py")}
    graph = {m: sorted(t for t in _runtime_imports(p, m) if t in modules and t != m and not m.startswith(t + "."))
             for m, p in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_no_module_imports_itself_back_at_run_time(tmp_path: Path) -> None:
    """A cycle (commands.common -> calibrate -> cmd -> common once) makes import order matter; none is left."""
    assert import_cycles(SRC) == []
    pkg = tmp_path / "pairbench"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from pairbench.b import g\n")
    (pkg / "b.py").write_text("from pairbench.a import f\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pairbench.a import f\n")
    assert import_cycles(pkg) == [["pairbench.a", "pairbench.b"]]
