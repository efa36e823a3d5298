"""Flags and messages that said something untrue: -r 0, 'report --markdown RUN', '1 blocks', names twice."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from pairbench.analysis import analyze
from pairbench.cli import build_parser
from pairbench.model import Benchmark, Metric, Run, Sample, Variant
from pairbench.report.terminal import render_terminal


def _parse_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args(argv)
    assert info.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-3"])
def test_runs_below_one_are_refused_saying_at_least_one(value: str, capsys) -> None:
    err = _parse_error(["cmd", "true", "false", "-r", value], capsys)
    assert "must be at least 1" in err and "0 or more" not in err


def test_warmup_zero_is_fine_and_negative_says_zero_or_more(capsys) -> None:
    assert build_parser().parse_args(["cmd", "true", "false", "-w", "0"]).warmup == 0
    assert "must be 0 or more" in _parse_error(["cmd", "true", "false", "-w", "-1"], capsys)


def test_cmd_benchmark_name_is_spelled_benchmark_and_name_still_works() -> None:
    assert build_parser().parse_args(["cmd", "a", "b", "--benchmark", "start-up"]).benchmark == "start-up"
    assert build_parser().parse_args(["cmd", "a", "b", "--name", "start-up"]).benchmark == "start-up"


def _one_block_run() -> Run:
    samples = [Sample("sort", v, "time", x, 0) for v, x in (("A", 0.1), ("B", 0.09))]
    return Run(metadata={"blocks": 1}, variants=[Variant("A", baseline=True), Variant("B")],
               benchmarks=[Benchmark("sort", "command", (Metric("time"),))], samples=samples)


def test_one_block_is_singular_and_the_notice_names_benchmark_and_variant_once() -> None:
    run = _one_block_run()
    run.comparisons, run.notices = analyze(run)
    buf = io.StringIO()
    render_terminal(run, Console(file=buf, width=200, color_system=None, force_terminal=False))
    text = " ".join(buf.getvalue().split())
    assert "(1 block, command)" in text
    assert "1 blocks" not in text and "1 paired blocks" not in text
    assert "warning [sort · B]: only 1 paired block, no verdict" in text
    assert "sort / B" not in text
