"""Reading a suite: the file's text, TOML, `--set` overrides, validation and the matrix, in order."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, Sequence

from pairbench.errors import SuiteError
from pairbench.suite.matrix import expand_points, pick_baseline
from pairbench.suite.overrides import apply_overrides
from pairbench.suite.schema import Suite
from pairbench.suite.tomlcheck import Reader
from pairbench.suite.validation import (
    check_placeholders,
    read_benchmarks,
    read_defaults,
    read_exclude,
    read_sweeps,
    read_variants,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 needs the backport
    import tomli as tomllib

__all__ = ["load_suite", "parse_suite"]

_TOP_KEYS = ("name", "description", "baseline", "defaults", "variants", "sweeps", "exclude", "benchmarks")


def load_suite(path: str | Path, overrides: Sequence[str] = ()) -> Suite:
    """Read, validate and expand a suite file; every problem is one SuiteError with file:line."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise SuiteError(f"{path}:1: cannot read the suite file: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SuiteError(f"{path}:{line}: the suite file is not UTF-8 text") from None
    return parse_suite(text, str(path), overrides)


def parse_suite(text: str, path: str = "<suite>", overrides: Sequence[str] = ()) -> Suite:
    """Validate TOML text as a suite (`path` is used in messages and to resolve relative repos)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        line = m.group(1) if m else "1"
        msg = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", msg)
        raise SuiteError(f"{path}:{line}: not valid TOML: {msg}") from None
    except (ValueError, RecursionError) as exc:  # pragma: no cover - tomllib edge cases
        raise SuiteError(f"{path}:1: not valid TOML: {exc}") from None
    return _build(apply_overrides(doc, overrides), text, path)


def _build(doc: dict[str, Any], text: str, path: str) -> Suite:
    r = Reader(path, text)
    r.keys(doc, _TOP_KEYS, (), "the suite (top level)")
    name = r.string(doc["name"], ("name",)) if "name" in doc else ""
    if "description" in doc:
        r.string(doc["description"], ("description",), empty=True)
    defaults = read_defaults(r, doc.get("defaults", {}))
    variants = read_variants(r, doc, path)
    sweeps = read_sweeps(r, doc.get("sweeps", []), variants)
    benchmarks = read_benchmarks(r, doc, defaults)
    exclude = read_exclude(r, doc.get("exclude", []), sweeps)
    matrix = expand_points(r, variants, sweeps, exclude)
    matrix = pick_baseline(r, doc, variants, matrix)
    check_placeholders(r, benchmarks, matrix)
    return Suite(path=path, defaults=defaults, variants=variants, sweeps=sweeps, benchmarks=benchmarks,
                 matrix=tuple(matrix), document=doc, text=text, name=name)
