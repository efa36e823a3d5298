"""After loading: keep the benchmarks a run asks for (`--only`)."""

from __future__ import annotations

import fnmatch
from dataclasses import replace

from pairbench.errors import SuiteError
from pairbench.suite.schema import Suite
from pairbench.suite.tomlcheck import choices

__all__ = ["select_benchmarks"]


def select_benchmarks(suite: Suite, pattern: str | None) -> Suite:
    """Keep the benchmarks whose name matches the glob (`--only 'issues*'`); several globs split by commas."""
    if not pattern:
        return suite
    globs = [g.strip() for g in pattern.split(",") if g.strip()]
    kept = tuple(b for b in suite.benchmarks if any(fnmatch.fnmatchcase(b.name, g) for g in globs))
    if not kept:
        raise SuiteError(f"--only {pattern!r} matches no benchmark of {suite.path}; "
                         f"benchmarks: {choices([b.name for b in suite.benchmarks])}")
    return replace(suite, benchmarks=kept)
