"""The analysis computes sweep tables and suite summaries once, the Run holds them, reports render them."""

from __future__ import annotations

import io

from rich.console import Console

from pairbench.analysis import analyze, suite_summary
from pairbench.analysis.sweep import sweep_tables
from pairbench.model import Benchmark
from pairbench.summaries import SuiteSummary
from pairbench.runners.fake import FakeRunner
from pairbench.session import RunOptions, execute, finish_analysis
from tests.unit.test_sweep_report import make_run as make_sweep_run
from tests.unit.test_session import make_run


def test_the_session_stores_suite_summaries_and_sweep_tables(tmp_path) -> None:
    run = make_run(2, 2)
    execute(run, {"command": FakeRunner(factors={"v1": 0.8}, noise=0.01)},
            RunOptions(runs=8, seed=1, record_history=False, export_json=str(tmp_path / "run.json")))
    (s,) = run.summaries
    assert s.candidate == "v1" and s.benchmarks == 2 and s.ci[0] < 0.8 < s.ci[1]
    assert run.summaries == suite_summary(run, run.comparisons, confidence=0.95)
    assert run.sweeps == []  # no sweeps in this suite

    sweep = make_sweep_run({"3": 1.0, "1": 0.5, "2": 0.8})
    finish_analysis(sweep, RunOptions(record_history=False))
    assert [t.benchmark for t in sweep.sweeps] == ["loop"]
    assert sweep.sweeps == sweep_tables(sweep, sweep.comparisons)


def test_the_suite_summary_view_renders_the_stored_numbers() -> None:
    from pairbench.report.suite_summary import render_suite_summary

    run = make_sweep_run({"3": 1.0, "1": 0.9})
    run.benchmarks.append(Benchmark("other", "command", run.benchmarks[0].metrics))
    run.comparisons, _ = analyze(run)
    run.summaries = [SuiteSummary("py/N=1", "py/N=3", 0.5, (0.4, 0.625), 0.95, 2, 12)]
    out = io.StringIO()
    render_suite_summary(run, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    assert "0.500" in text and "[0.400, 0.625]" in text and "12 blocks" in text
