"""What the kinds table knows of kinds "pytest" and "asv": the metrics a test yields and their runner."""

from __future__ import annotations

from pairbench.model import Metric
from pairbench.runners.base import Runner
from pairbench.runners.pytest.options import PytestOptions, parse_pytest_options

__all__ = ["parse_pytest_options", "pytest_kind_metrics", "make_pytest", "make_asv", "PYTEST_METRICS"]

PYTEST_METRICS = (
    Metric("time_per_op", "s", "lower", description="time per call of the benchmarked function"),
    Metric("ops_per_s", "op/s", "higher", description="calls per second"),
)


def pytest_kind_metrics(options: PytestOptions, declared: tuple[Metric, ...]) -> tuple[Metric, ...]:
    """Time per call first, then calls per second; an asv track_* benchmark's number alone."""
    if options.measure == "track":  # asv's default: a larger value is a regression
        return (Metric("value", options.unit or "count", "lower", description="the number the track_* benchmark returns"),)
    return PYTEST_METRICS


def make_pytest(seed: int | None, options: PytestOptions | None) -> Runner:
    """One runner for every pytest benchmark of a run (the sample plan is in each benchmark's options)."""
    from pairbench.runners.pytest.runner import PytestRunner

    return PytestRunner(seed=seed)


def make_asv(seed: int | None, options: PytestOptions | None) -> Runner:
    """The same runner with the asv worker in place of pytest (harness/asv_worker.py)."""
    from pairbench.runners.pytest.runner import PytestRunner

    return PytestRunner(seed=seed, harness="asv")
