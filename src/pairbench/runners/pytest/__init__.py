"""Kinds "pytest" and "asv": the tests of a pytest-benchmark suite, or the benchmarks of an asv
suite, unchanged, timed in each variant's interpreter.

    runner.py   the Runner: loop counts calibrated once on the baseline, one pytest worker per
                variant and block running every test, per-process samples
    harness/    what runs inside the interpreter: pytest started beside pairbench's `benchmark`
                fixture plugin (no import of pairbench; pytest is all a variant needs), and
                the asv worker (asv itself is not needed)
    options.py  the typed options
    kind.py     its metrics and runner for the kinds table

The names other layers use are importable from here; the runner itself is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pairbench.runners.pytest.kind import PYTEST_METRICS
from pairbench.runners.pytest.options import PytestOptions, parse_pytest_options

if TYPE_CHECKING:
    from pairbench.runners.pytest.runner import PytestRunner

__all__ = ["PytestRunner", "PytestOptions", "parse_pytest_options", "PYTEST_METRICS"]


def __getattr__(name: str) -> Any:
    if name == "PytestRunner":
        from pairbench.runners.pytest.runner import PytestRunner

        return PytestRunner
    raise AttributeError(name)
