"""pyperformance benchmark directories as `pairbench micro` targets.

A `bm_NAME/` directory holds `run_benchmark.py` (a pyperf script) and `pyproject.toml`, whose
`[tool.pyperformance]` table names the benchmark and gives its `extra_opts` (the script's
arguments); each further `bm_*.toml` in it is another benchmark of the same script with its own
name and `extra_opts` (pyperformance's `<local:NAME>` metafiles). A directory holding `bm_*`
directories (pyperformance's `data-files/benchmarks/`) is all of them, in name order.
"""

from __future__ import annotations

import glob
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pairbench.errors import UserError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 needs the backport
    import tomli as tomllib

__all__ = ["PyperfTarget", "is_benchmark_dir", "expand_pyperformance"]

SCRIPT = "run_benchmark.py"
GLOB_CHARS = "*?["


@dataclass(frozen=True, slots=True)
class PyperfTarget:
    """One pyperformance benchmark: a script and the arguments it is run with."""

    script: Path
    """The directory's run_benchmark.py (absolute)."""
    name: str
    """pyperformance's name for it (`[tool.pyperformance] name`, else the directory without bm_)."""
    argv: tuple[str, ...] = ()
    """`extra_opts`: the script's own arguments."""
    requires_python: str = ""
    """`[project] requires-python` (the metafile's, else the directory's): interpreters that do not
    meet it skip the benchmark, as `pyperformance run` does."""
    requires_from: str = ""
    """The file that says so, named when a variant skips it."""


def is_benchmark_dir(path: Path) -> bool:
    """True for a pyperformance `bm_*` directory: a run_benchmark.py beside a pyproject.toml."""
    return (path / SCRIPT).is_file() and (path / "pyproject.toml").is_file()


def _document(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read it: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: not valid TOML: {exc}") from None


def _requires(path: Path) -> str:
    """The file's `[project] requires-python`, checked ("" when it has none)."""
    from pairbench.runners.micro import check_requires_python

    project = _document(path).get("project", {})
    spec = project.get("requires-python", "") if isinstance(project, dict) else ""
    if not isinstance(spec, str):
        raise UserError(f"{path}: [project] requires-python must be a string such as '>=3.8'")
    try:
        check_requires_python(spec) if spec.strip() else None
    except ValueError as exc:
        raise UserError(f"{path}: requires-python {spec!r}: {exc}") from None
    return spec.strip()


def _table(path: Path) -> dict[str, Any]:
    doc = _document(path)
    table = doc.get("tool", {}).get("pyperformance", {})
    if not isinstance(table, dict):
        raise UserError(f"{path}: [tool.pyperformance] must be a table")
    return table


def _target(script: Path, meta: Path, default_name: str, base: dict[str, Any]) -> PyperfTarget:
    table = {**base, **_table(meta)}  # a metafile's keys replace the directory's (pyperformance)
    name = table.get("name") or default_name
    opts = table.get("extra_opts", [])
    if not isinstance(name, str) or not isinstance(opts, list) or not all(isinstance(o, str) for o in opts):
        raise UserError(f"{meta}: [tool.pyperformance] needs a string name and extra_opts as a list of strings")
    requires, source = _requires(meta), meta
    if not requires and meta.name != "pyproject.toml":
        requires, source = _requires(meta.parent / "pyproject.toml"), meta.parent / "pyproject.toml"
    return PyperfTarget(script.resolve(), name, tuple(opts), requires, source.name if requires else "")


def benchmarks_of(directory: Path) -> list[PyperfTarget]:
    """The benchmarks of one bm_* directory: its pyproject.toml's, then each bm_*.toml's."""
    script = directory / SCRIPT
    default = directory.name[3:] if directory.name.startswith("bm_") else directory.name
    main = _table(directory / "pyproject.toml")
    out = [_target(script, directory / "pyproject.toml", default, {})]
    for meta in sorted(directory.glob("bm_*.toml")):
        out.append(_target(script, meta, meta.stem[3:], {k: v for k, v in main.items() if k != "extra_opts"}))
    return out


def expand_pyperformance(text: str) -> list[PyperfTarget] | None:
    """The benchmarks a target names, or None when it is no pyperformance directory or glob.

    Accepts a bm_* directory, a directory of them, or a glob matching either (quoted, so the shell
    leaves it alone)."""
    if any(c in text for c in GLOB_CHARS) and "\n" not in text:
        matches = [Path(m) for m in sorted(glob.glob(text))]
        dirs = [m for m in matches if m.is_dir()]
        if not dirs:
            return None
        out: list[PyperfTarget] = []
        for d in dirs:
            out.extend(_from_dir(d) or [])
        if not out:
            raise UserError(f"{text!r}: no pyperformance bm_* directory among the {len(dirs)} it matches")
        return out
    path = Path(text)
    return _from_dir(path) if path.is_dir() else None


def _from_dir(path: Path) -> list[PyperfTarget] | None:
    if is_benchmark_dir(path):
        return benchmarks_of(path)
    children = sorted(c for c in path.iterdir() if c.is_dir() and is_benchmark_dir(c))
    if not children:
        raise UserError(f"{path}: not a pyperformance benchmark directory (no {SCRIPT} with a pyproject.toml, "
                        "nor bm_* directories holding them)")
    return [t for c in children for t in benchmarks_of(c)]
