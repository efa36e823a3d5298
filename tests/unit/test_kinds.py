"""The kinds table: one descriptor per kind, looked up by name, and one way to make every runner."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest
from rich.console import Console

from pairbench.errors import UserError
from pairbench.model import Benchmark, Metric, Run, Sample, Variant
from pairbench.flows.measure import make_runners, run_pipeline
from pairbench.report.kinds import PRESENTATIONS, kind_title
from pairbench.report.markdown import render_markdown
from pairbench.runners.fake import FakeRunner
from pairbench.runners.kinds import KINDS, get_kind, secondary_metrics
from pairbench.runners.micro import MicroRunner
from pairbench.session import RunOptions, execute
from pairbench.suite import parse_suite


def test_the_table_holds_every_kind_and_an_unknown_name_lists_them() -> None:
    assert list(KINDS) == ["command", "http", "micro", "pytest", "asv", "fake"]
    with pytest.raises(UserError, match=r"unknown kind 'comand' \(did you mean 'command'\?\); valid: command, http, micro, pytest, asv, fake"):
        get_kind("comand")
    assert secondary_metrics("command") == {"user", "sys", "rss", "exit_code"}
    assert secondary_metrics("http") == frozenset()


def test_a_suite_accepts_every_kind_of_the_table_and_gets_its_metrics() -> None:
    text = '''
[variants.a]
command = "python3"
[variants.b]
command = "pypy3"
[benchmarks.fast]
kind = "fake"
[benchmarks.loop]
kind = "micro"
stmt = "sum(range(10))"
'''
    suite = parse_suite(text, "s.toml")
    kinds = {b.name: b for b in suite.benchmarks}
    assert kinds["fast"].kind == "fake" and kinds["fast"].metrics[0].name == "time"
    assert kinds["loop"].metrics[0].name == "time_per_op"
    assert kinds["loop"].options["target_time"] == 0.1  # the parsed options, defaults filled, are what runs
    assert "warmup" not in kinds["loop"].options  # unset: by interpreter, so python3 and pypy3 differ (warmup.py)
    assert "samples" not in kinds["loop"].options  # unset: the runner plans them from the run's spreads


def _micro_run() -> Run:
    variants = [Variant("py", command="python3", baseline=True), Variant("pypy", command="pypy3")]
    bench = Benchmark("loop", "micro", (Metric("time_per_op"),), {"language": "python", "stmt": "pass"})
    return Run(metadata={}, variants=variants, benchmarks=[bench])


def test_every_subcommand_gets_its_runner_from_the_kind_with_the_run_seed() -> None:
    # `pairbench run` used to build MicroRunner() without the seed `pairbench micro` passes
    first = make_runners(_micro_run(), seed=7)["micro"]
    again = make_runners(_micro_run(), seed=7)["micro"]
    other = make_runners(_micro_run(), seed=8)["micro"]
    assert isinstance(first, MicroRunner)
    variant = Variant("py", command="python3")
    pads = [len(r._env(variant)["PAIRBENCH_ENV_PAD"]) for r in (first, again, other) for _ in range(3)]
    assert pads[:3] == pads[3:6] and pads[:3] != pads[6:]


def test_micro_figures_are_printed_on_the_one_path(tmp_path: Path) -> None:
    run = _micro_run()
    out = io.StringIO()
    options = RunOptions(runs=6, warmup=0, seed=1, export_json=str(tmp_path / "r.json"), record_history=False)
    code = run_pipeline(run, options, runners={"micro": FakeRunner(factors={"pypy": 0.5}, base=1e-6)},
                        console=Console(file=out, width=120, color_system=None))
    assert code == 0
    text = out.getvalue()
    assert "Calculating ----" in text  # the benchmark-ips block of the micro kind
    assert text.index("Calculating") < text.index("loop  (6 blocks, micro)")


def test_reports_present_every_kind_of_the_table_in_its_order() -> None:
    """The presentation table is the report's own (reports import no runner): it must not drift."""
    assert list(PRESENTATIONS) == list(KINDS)


def test_reports_title_a_kind_they_do_not_know() -> None:
    assert kind_title("http") == "HTTP benchmarks"
    assert kind_title("counts") == "Counts benchmarks"
    variants = [Variant("a", baseline=True), Variant("b")]
    run = Run({}, variants, [Benchmark("x", "counts", (Metric("n"),))],
              [Sample("x", v.name, "n", 1.0, 0) for v in variants], status="complete")
    assert "## Counts benchmarks" in render_markdown(run)


def test_the_session_asks_each_kind_for_its_secondary_metrics(tmp_path: Path) -> None:
    """A `user` metric of a fake benchmark is not the command runner's: it holds stopping open."""

    class TwoMetrics(FakeRunner):
        def measure(self, benchmark, variant, block, warmup, progress):  # type: ignore[no-untyped-def]
            rep = super().measure(benchmark, variant, block, warmup, progress)
            wild = 1.0 + self._rng.random() * 4  # never settles
            rep.samples.append(Sample(benchmark.name, variant.name, "user", wild, block, warmup=warmup))
            return rep

    def run_with(kind: str) -> Run:
        run = Run({}, [Variant("a", baseline=True), Variant("b")],
                  [Benchmark("x", kind, (Metric("time"), Metric("user")))])
        ticks = iter(range(100000))
        execute(run, {kind: TwoMetrics(noise=0.0001)},
                RunOptions(runs=6, warmup=0, max_time=1000.0, max_runs=60, threshold=5.0, seed=3,
                           export_json=str(tmp_path / f"{kind}.json"), record_history=False),
                clock=lambda: float(next(ticks)))
        return run

    assert run_with("command").metadata["blocks"] < 60  # user is secondary for commands: settled early
    assert run_with("fake").metadata["blocks"] == 60  # and not for the fake kind


def test_parsed_flags_reach_the_runner_options() -> None:
    from pairbench.commands.cmd import build_command_run, register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    run = build_command_run(parser.parse_args(["cmd", "true", "false", "--timeout", "2"]))
    assert run.benchmarks[0].options["timeout"] == 2.0 and run.benchmarks[0].options["shell"] is True
    assert [m.name for m in run.benchmarks[0].metrics] == ["time", "user", "sys", "rss", "exit_code"]
