"""The exports other tools read, each read by the consumer itself (pyperf) or checked against the
consumer's documented shape (Bencher Metric Format, github-action-benchmark's custom tools)."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pyperf
import pytest

from tests.unit.runs_by_hand import make_run

from pairbench.report.command import command_stats
from pairbench.report.exporters import export, render_export


def test_pyperf_reads_one_file_per_variant_with_pairbenchs_numbers(tmp_path: Path) -> None:
    run = make_run()
    export(run, "pyperf", str(tmp_path / "r.json"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.head.json", "r.patched.json"]
    for v in ("head", "patched"):
        suite = pyperf.BenchmarkSuite.load(str(tmp_path / f"r.{v}.json"))
        assert sorted(suite.get_benchmark_names()) == ["Object.new", "startup"]
        bench = suite.get_benchmark("startup")
        stats = command_stats(run, run.benchmarks[0], v)
        assert stats is not None and bench.get_nvalue() == stats.runs
        assert math.isclose(bench.mean(), stats.mean) and math.isclose(bench.stdev(), stats.stddev or 0)
        assert bench.get_unit() == "second"
    show = subprocess.run([sys.executable, "-m", "pyperf", "show", str(tmp_path / "r.head.json")],
                          capture_output=True, text=True, check=True)
    head = command_stats(run, run.benchmarks[0], "head")
    shown = re.search(r"Mean \+- std dev: ([\d.]+) ms", show.stdout)  # pyperf rounds to the std dev
    assert head is not None and shown and float(shown.group(1)) == pytest.approx(head.mean * 1e3, rel=0.01), show.stdout
    compared = subprocess.run([sys.executable, "-m", "pyperf", "compare_to", str(tmp_path / "r.head.json"),
                               str(tmp_path / "r.patched.json")], capture_output=True, text=True, check=True)
    speed = re.search(r"startup: Mean \+- std dev: .*: ([\d.]+)x faster", compared.stdout)
    patched = command_stats(run, run.benchmarks[0], "patched")
    assert speed and patched is not None, compared.stdout
    assert float(speed.group(1)) == pytest.approx(head.mean / patched.mean, abs=0.01)


def test_pyperf_text_of_several_variants_is_one_suite_with_distinct_names() -> None:
    suite = pyperf.BenchmarkSuite.loads(render_export(make_run(), "pyperf"))
    assert sorted(suite.get_benchmark_names()) == ["Object.new/head", "Object.new/patched", "startup/head",
                                                    "startup/patched"]


def test_bmf_has_bencher_shape_and_the_runs_figures() -> None:
    run = make_run()
    bmf = json.loads(render_export(run, "bmf"))
    for bench, measures in bmf.items():
        assert isinstance(bench, str) and measures
        for entry in measures.values():
            assert set(entry) <= {"value", "lower_value", "upper_value"} and "value" in entry
            assert all(isinstance(x, float) for x in entry.values())
    for v in ("head", "patched"):
        stats = command_stats(run, run.benchmarks[0], v)
        assert stats is not None and stats.stddev is not None
        latency = bmf[f"startup/{v}"]["latency"]
        assert latency == {"value": pytest.approx(stats.mean * 1e9), "lower_value": pytest.approx((stats.mean - stats.stddev) * 1e9),
                           "upper_value": pytest.approx((stats.mean + stats.stddev) * 1e9)}
    comparison = next(c for c in run.comparisons if (c.benchmark, c.metric) == ("startup", "time"))
    assert bmf["startup/patched"]["latency-ratio"] == {"value": comparison.ratio, "lower_value": comparison.verdict_ci[0],
                                                      "upper_value": comparison.verdict_ci[1]}
    assert "latency-ratio" not in bmf["startup/head"]


def test_github_benchmark_writes_each_direction_to_its_file(tmp_path: Path) -> None:
    run = make_run()
    export(run, "github-benchmark", str(tmp_path / "gh.json"))
    smaller = json.loads((tmp_path / "gh.json").read_text())
    bigger = json.loads((tmp_path / "gh.bigger.json").read_text())
    for entries in (smaller, bigger):
        for e in entries:  # github-action-benchmark's custom tools: name, unit, value; range, extra optional
            assert isinstance(e["name"], str) and isinstance(e["unit"], str) and isinstance(e["value"], float)
            assert set(e) <= {"name", "unit", "value", "range", "extra"}
    assert {e["name"] for e in bigger} == {"issues page/head", "issues page/patched"}
    assert all(e["unit"] != "req/s" for e in smaller)
    by_name = {e["name"]: e for e in smaller}
    stats = command_stats(run, run.benchmarks[0], "patched")
    assert stats is not None and by_name["startup/patched"]["value"] == pytest.approx(stats.mean)
    assert "7.4% faster" in by_name["startup/patched"]["extra"]


def test_pyperf_reads_the_export_of_a_run_with_times_of_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a command shorter than its shell's start-up reads 0; pyperf refused the whole file
    # ("values must be a sequence of number > 0.0"), the benchmarks without a 0 with it
    from dataclasses import replace

    run = make_run()
    zeroed = [replace(s, value=0.0) if (s.benchmark, s.variant, s.metric, s.block) == ("startup", "patched", "time", 1)
              else s for s in run.samples]
    run = replace(run, samples=zeroed)
    export(run, "pyperf", str(tmp_path / "r.json"))
    head = pyperf.BenchmarkSuite.load(str(tmp_path / "r.head.json"))
    patched = pyperf.BenchmarkSuite.load(str(tmp_path / "r.patched.json"))
    assert sorted(head.get_benchmark_names()) == ["Object.new", "startup"]
    assert patched.get_benchmark_names() == ["Object.new"]
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "startup (patched) left out of the pyperf export: 1 of its" in err
    assert "pyperf reads only times above 0" in err
    subprocess.run([sys.executable, "-m", "pyperf", "compare_to", str(tmp_path / "r.head.json"),
                    str(tmp_path / "r.patched.json")], capture_output=True, text=True, check=True)


def test_bmf_gives_no_ratio_beside_a_zero_baseline() -> None:
    # sys 0 ns against 217 µs: the tables show no ratio, and BMF exported `sys-ratio` 1.0 [1.0, 5.08]
    from dataclasses import replace

    run = make_run()
    run.comparisons = [replace(c, baseline_value=0.0, candidate_value=2.2e-4, ratio=1.0, ci=(1.0, 5.08))
                       if c.metric == "rss" else c for c in run.comparisons]
    bmf = json.loads(render_export(run, "bmf"))
    assert "rss" in bmf["startup/patched"] and "rss-ratio" not in bmf["startup/patched"]
    assert "latency-ratio" in bmf["startup/patched"]


def test_bmf_latency_bounds_never_go_below_zero() -> None:
    # a command shorter than its shell's start-up: mean 0.93 ms, σ 1.7 ms; lower_value was -770 µs
    from dataclasses import replace

    run = make_run()
    run.samples = [replace(s, value=0.0 if s.block % 2 else 0.004) if (s.benchmark, s.metric) == ("startup", "time")
                   else s for s in run.samples]
    bmf = json.loads(render_export(run, "bmf"))
    latency = bmf["startup/head"]["latency"]
    assert latency["lower_value"] == 0.0 and latency["upper_value"] > latency["value"] > 0
