"""The formats beside pyperf and hyperfine, each from a document shaped as its tool writes it:
pytest-benchmark, Google Benchmark, criterion, Go's -bench text, asv, Bencher's BMF."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pairbench.errors import UserError
from pairbench.importers import FORMATS, IMPORTERS, Source, detect_format, import_file
from pairbench.model import Run


def _values(run: Run, benchmark: str, metric: str = "time", variant: str | None = None) -> list[float]:
    return [s.value for s in sorted(run.samples, key=lambda s: s.block)
            if s.benchmark == benchmark and s.metric == metric and (variant is None or s.variant == variant)]


def _write(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


def _pytest_benchmark(data: bool) -> dict[str, Any]:
    stats: dict[str, Any] = {"min": 1e-6, "max": 3e-6, "mean": 2e-6, "stddev": 1e-6, "rounds": 3, "median": 2e-6,
                             "iterations": 10, "ops": 5e5}
    if data:
        stats["data"] = [1e-6, 2e-6, 3e-6]
    return {"machine_info": {"node": "vm", "python_version": "3.11.7", "cpu": {"brand_raw": "Xeon"}},
            "commit_info": {"id": "abc123", "dirty": False}, "datetime": "2026-12-02T12:00:00", "version": "5.2.3",
            "benchmarks": [{"group": None, "name": "test_sum[10]", "fullname": "test_b.py::test_sum[10]",
                            "params": {"n": 10}, "param": "10", "extra_info": {}, "options": {}, "stats": stats}]}


def test_pytest_benchmark_rounds_are_blocks_named_by_node_id(tmp_path: Path) -> None:
    run = import_file(_write(tmp_path / "0001_abc.json", _pytest_benchmark(data=True)))
    assert [b.name for b in run.benchmarks] == ["test_b.py::test_sum[10]"]
    assert _values(run, "test_b.py::test_sum[10]") == [1e-6, 2e-6, 3e-6]
    assert run.variants[0].name == "0001_abc" and run.variants[0].meta["git_commit"] == "abc123"
    assert "summary-only" not in [n.kind for n in run.notices] and run.metadata["interleaved"] is False


def test_pytest_benchmark_without_data_is_its_mean_marked_summary_only(tmp_path: Path) -> None:
    run = import_file(_write(tmp_path / "b.json", _pytest_benchmark(data=False)), name="main")
    assert _values(run, "test_b.py::test_sum[10]") == [2e-6]
    assert "summary-only" in [n.kind for n in run.notices]
    assert run.metadata["summary_only"]["test_b.py::test_sum[10]"]["median"] == 2e-6


GOOGLE = {"context": {"date": "2026-12-02T12:24:32+00:00", "host_name": "vm", "executable": "./b",
                      "library_build_type": "release"},
          "benchmarks": [
              {"name": "BM_fib/10", "run_name": "BM_fib/10", "run_type": "iteration", "repetitions": 2,
               "repetition_index": 1, "iterations": 100, "real_time": 62.0, "cpu_time": 61.0, "time_unit": "ns"},
              {"name": "BM_fib/10", "run_name": "BM_fib/10", "run_type": "iteration", "repetitions": 2,
               "repetition_index": 0, "iterations": 100, "real_time": 61.0, "cpu_time": 60.0, "time_unit": "ns"},
              {"name": "BM_fib/10_mean", "run_name": "BM_fib/10", "run_type": "aggregate", "aggregate_name": "mean",
               "iterations": 2, "real_time": 61.5, "cpu_time": 60.5, "time_unit": "ns"},
              {"name": "BM_copy", "run_name": "BM_copy", "run_type": "iteration", "iterations": 5, "real_time": 2.0,
               "cpu_time": 2.0, "time_unit": "ms", "bytes_per_second": 1e9, "cache misses": 12.0}]}


def test_google_benchmark_repetitions_are_blocks_and_aggregates_are_left_out(tmp_path: Path) -> None:
    run = import_file(_write(tmp_path / "gb.json", GOOGLE))
    assert [b.name for b in run.benchmarks] == ["BM_fib/10", "BM_copy"]
    assert _values(run, "BM_fib/10") == pytest.approx([61e-9, 62e-9])  # in repetition order, ns -> s
    assert _values(run, "BM_fib/10", "cpu_time") == pytest.approx([60e-9, 61e-9])
    assert _values(run, "BM_copy") == pytest.approx([2e-3])
    assert run.benchmark("BM_copy").metric("bytes_per_s").direction == "higher"
    assert run.benchmark("BM_copy").metric("cache_misses").direction == "none"  # a user counter: kept, not judged
    assert _values(run, "BM_copy", "cache_misses") == [12.0]


def _criterion_sample(iters: list[float], times: list[float]) -> dict[str, Any]:
    return {"sampling_mode": "Linear", "iters": iters, "times": times}


def _criterion_bench(root: Path, group: str, function: str, baseline: str, sample: Any) -> None:
    d = root / group / function / baseline
    _write(d / "benchmark.json", {"group_id": group, "function_id": function, "value_str": None, "throughput": None,
                                  "full_id": f"{group}/{function}", "directory_name": f"{group}/{function}",
                                  "title": f"{group}/{function}"})
    _write(d / "sample.json", sample)
    _write(d / "estimates.json", {"mean": {"confidence_interval": {"confidence_level": 0.95, "lower_bound": 1.0,
                                                                   "upper_bound": 3.0},
                                           "point_estimate": 2.0, "standard_error": 0.1}})


def test_criterion_baselines_are_variants_and_samples_are_time_over_iters(tmp_path: Path) -> None:
    root = tmp_path / "criterion"
    _criterion_bench(root, "Fibonacci", "Recursive", "new", _criterion_sample([10, 20], [1000, 3000]))
    _criterion_bench(root, "Fibonacci", "Recursive", "base", [[10, 20], [500, 1000]])  # criterion 0.2's layout
    _write(root / "Fibonacci" / "Recursive" / "change" / "estimates.json", {"mean": {"point_estimate": 0.5}})
    assert detect_format(Source(root)) == "criterion"
    run = import_file(root)
    assert [(v.name, v.baseline) for v in run.variants] == [("base", True), ("new", False)]
    assert [b.name for b in run.benchmarks] == ["Fibonacci/Recursive"]
    assert _values(run, "Fibonacci/Recursive", variant="new") == pytest.approx([100e-9, 150e-9])
    assert _values(run, "Fibonacci/Recursive", variant="base") == pytest.approx([50e-9, 50e-9])
    one = import_file(root / "Fibonacci" / "Recursive" / "new" / "sample.json", name="mine")
    assert [v.name for v in one.variants] == ["mine"] and len(one.samples) == 2


def test_criterion_estimates_alone_are_the_mean_marked_summary_only(tmp_path: Path) -> None:
    est = _write(tmp_path / "fib" / "new" / "estimates.json", {
        "mean": {"point_estimate": 19284.2, "standard_error": 50.6,
                 "confidence_interval": {"confidence_level": 0.95, "lower_bound": 19189.4, "upper_bound": 19387.9}},
        "median": {"point_estimate": 19158.0, "standard_error": 39.7,
                   "confidence_interval": {"confidence_level": 0.95, "lower_bound": 19065.2, "upper_bound": 19247.3}}})
    run = import_file(est)
    assert [b.name for b in run.benchmarks] == ["fib"]
    assert _values(run, "fib") == pytest.approx([19284.2e-9])
    assert "summary-only" in [n.kind for n in run.notices]


GO_TEXT = """goos: linux
goarch: amd64
pkg: example.com/a
cpu: Intel(R) Xeon(R) Processor
BenchmarkFib-2     \t    2000\t      2814 ns/op\t       0 B/op\t       0 allocs/op
BenchmarkFib-2     \t    2000\t      2121 ns/op\t       0 B/op\t       0 allocs/op
BenchmarkRead/size=64-2   \t 100\t 50.5 ns/op\t 1267.33 MB/s\t 3.00 items/op
PASS
ok  \texample.com/a\t0.045s
pkg: example.com/b
BenchmarkFib-2     \t    2000\t      1000 ns/op
"""


def test_go_lines_are_blocks_and_units_are_metrics(tmp_path: Path) -> None:
    path = tmp_path / "old.txt"
    path.write_text(GO_TEXT)
    run = import_file(path)
    names = [b.name for b in run.benchmarks]
    assert names == ["example.com/a.Fib", "example.com/a.Read/size=64", "example.com/b.Fib"]
    assert _values(run, "example.com/a.Fib") == pytest.approx([2814e-9, 2121e-9])
    assert _values(run, "example.com/a.Fib", "allocs") == [0.0, 0.0]
    read = run.benchmark("example.com/a.Read/size=64")
    assert [m.name for m in read.metrics] == ["time", "bytes_per_s", "items/op"]
    assert _values(run, "example.com/a.Read/size=64", "bytes_per_s") == pytest.approx([1267.33e6])
    assert run.metadata["go"]["cpu"] == "Intel(R) Xeon(R) Processor"


def _asv_doc() -> dict[str, Any]:
    return {"commit_hash": "6c04d35a633eb220476fb29f7f69bf22b4825cbd", "env_name": "existing-py", "date": 1796214275000,
            "params": {"machine": "vm", "cpu": "Xeon"}, "python": "3.11", "requirements": {}, "env_vars": {},
            "result_columns": ["result", "params", "version", "started_at", "duration", "stats_ci_99_a",
                               "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number", "stats_repeat", "samples",
                               "profile"],
            "results": {
                "bench.Sizes.time_range": [[1.5e-6, 2.3e-6], [["10", "100"]], "v", 0, 0.4, [float("-inf")] * 2,
                                           [float("inf")] * 2, [1.5e-6, 2.3e-6], [1.5e-6, 2.3e-6], [1, 1], [2, 2],
                                           [[1.4e-6, 1.6e-6], [2.2e-6, 2.4e-6]]],
                "bench.peakmem_list": [[36073472], [], "v", 0, 0.2],
                "bench.time_broken": [[None], [], "v", 0, 0.2]},
            "durations": {}, "version": 2}


def test_asv_parameters_are_benchmarks_samples_are_blocks_and_results_alone_are_summaries(tmp_path: Path) -> None:
    results = tmp_path / "results"
    _write(results / "benchmarks.json", {"bench.Sizes.time_range": {"type": "time", "unit": "seconds",
                                                                    "param_names": ["n"]}, "version": 2})
    run = import_file(_write(results / "vm" / "6c04d35a-existing-py.json", _asv_doc()))
    assert [b.name for b in run.benchmarks] == [
        "bench.Sizes.time_range(10)", "bench.Sizes.time_range(100)", "bench.peakmem_list"]
    assert _values(run, "bench.Sizes.time_range(100)") == [2.2e-6, 2.4e-6]
    assert run.benchmark("bench.Sizes.time_range(10)").options == {"asv_params": {"n": "10"}}
    assert run.benchmark("bench.peakmem_list").metrics[0].unit == "B"
    assert _values(run, "bench.peakmem_list", "peak_rss") == [36073472.0]
    assert run.variants[0].name == "6c04d35a" and run.metadata["git_commit"].startswith("6c04d35a")
    kinds = [n.kind for n in run.notices]
    assert "summary-only" in kinds and "failed" in kinds


def test_asv_older_format_asks_for_asv_update(tmp_path: Path) -> None:
    old = {**_asv_doc(), "version": 1}
    with pytest.raises(UserError, match="asv update"):
        import_file(_write(tmp_path / "old.json", old))


def test_bmf_measures_become_metrics_in_si_units(tmp_path: Path) -> None:
    doc = {"parse": {"latency": {"value": 88.0, "lower_value": 87.4, "upper_value": 88.6},
                     "throughput": {"value": 1000.0}},
           "binary": {"file-size": {"value": 4096}}}
    run = import_file(_write(tmp_path / "bmf.json", doc))
    assert _values(run, "parse") == pytest.approx([88e-9])
    assert run.benchmark("parse").metric("throughput").direction == "higher"
    assert _values(run, "binary", "file_size") == [4096.0]
    assert "summary-only" in [n.kind for n in run.notices]


def test_every_format_is_detected_and_told_apart(tmp_path: Path) -> None:
    go = tmp_path / "go.txt"
    go.write_text(GO_TEXT)
    criterion = tmp_path / "c"
    _criterion_bench(criterion, "g", "f", "new", _criterion_sample([1], [2]))
    sources = {"pytest-benchmark": Source.of(_pytest_benchmark(True)), "google-benchmark": Source.of(GOOGLE),
               "go": Source(go), "asv": Source.of(_asv_doc()), "criterion": Source(criterion),
               "bmf": Source.of({"b": {"latency": {"value": 1.0}}}),
               "pyperf": Source.of({"version": "1.0", "benchmarks": [{"runs": []}]}),
               "hyperfine": Source.of({"results": [{"command": "x", "times": [1.0]}]})}
    assert set(sources) == set(FORMATS) == set(IMPORTERS)
    assert {name: detect_format(source) for name, source in sources.items()} == {name: name for name in sources}
    assert detect_format(Source.of({"schema": "pairbench.run"})) == "pairbench"


def test_a_format_named_that_the_file_is_not_says_what_it_looks_like(tmp_path: Path) -> None:
    path = _write(tmp_path / "gb.json", GOOGLE)
    with pytest.raises(UserError, match="is not asv results JSON .*; it looks like Google Benchmark"):
        import_file(path, fmt="asv")
    with pytest.raises(UserError, match="unknown import format 'nope'; choose one of: auto, pyperf"):
        import_file(path, fmt="nope")
    text = tmp_path / "notes.txt"
    text.write_text("nothing measured here\n")
    with pytest.raises(UserError, match="is not a results file pairbench imports"):
        import_file(text)


def test_the_docs_table_lists_every_format_in_the_tables_order() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "reports.md").read_text()
    section = doc[doc.index("## import"):]
    rows = [line for line in section.splitlines() if line.startswith("| `") and "what the tool" not in line]
    listed = [row.split("`")[1] for row in rows]
    assert listed == list(FORMATS)


def test_a_damaged_or_empty_criterion_directory_is_one_clear_message(tmp_path: Path) -> None:
    _write(tmp_path / "crit" / "f" / "new" / "sample.json", {"iters": [1], "times": "x"})
    with pytest.raises(UserError, match="sample.json is not criterion's sample.json"):
        import_file(tmp_path / "crit")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="empty is not a results file pairbench imports"):
        import_file(tmp_path / "empty")


def test_asv_types_without_benchmarks_json_come_from_the_name(tmp_path: Path) -> None:
    doc = {**_asv_doc(), "results": {"m.mem_list": [[8056], [], "v", 0, 0.1], "m.track_x": [[42], [], "v", 0, 0.1],
                                     "m.peakmem_y": [[1e6], [], "v", 0, 0.1]}}
    run = import_file(_write(tmp_path / "r.json", doc))
    assert [(b.metrics[0].name, b.metrics[0].unit) for b in run.benchmarks] == [
        ("memory", "B"), ("value", ""), ("peak_rss", "B")]


def test_many_rounds_are_grouped_in_order_into_at_most_a_hundred_blocks_every_value_kept(tmp_path: Path) -> None:
    # The unpaired tests compare every block of one side with every block of the other: 20 000
    # rounds a side took minutes and gigabytes; a hundred blocks of means keep the test's power
    from pairbench.analysis.replicates import replicate_values

    doc = _pytest_benchmark(data=True)
    data = [1e-6 * (1 + (i % 7) / 10) for i in range(1001)]
    doc["benchmarks"][0]["stats"]["data"] = data
    run = import_file(_write(tmp_path / "many.json", doc))
    assert sorted(s.value for s in run.samples) == sorted(data)
    assert [s.value for s in sorted(run.samples, key=lambda s: (s.block, s.iteration))] == data  # in order
    blocks = replicate_values(run, "test_b.py::test_sum[10]", "time")["many"]
    assert len(blocks) == 100 and {len([s for s in run.samples if s.block == b]) for b in blocks} == {10, 11}
    few = import_file(_write(tmp_path / "few.json", _pytest_benchmark(data=True)))
    assert [(s.block, s.iteration) for s in few.samples] == [(0, 0), (1, 0), (2, 0)]


def test_asv_results_of_two_pythons_for_one_commit_get_two_run_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`import m/6c04d35a-existing-py3.11.json m/6c04d35a-existing-py3.12.json` wrote both to
    `6c04d35a-existing-py3.run.json`: the stem was cut at the first dot, so the second refused (or,
    with --force, overwrote the first). Only the format's suffixes are dropped."""
    from pairbench.flows.saved import import_files

    results = tmp_path / "results" / "vm"
    files = [str(_write(results / f"6c04d35a-existing-py3.{minor}.json", _asv_doc())) for minor in (11, 12)]
    assert import_files(files, record=False) == 0
    made = sorted(p.name for p in results.glob("*.run.json"))
    assert made == ["6c04d35a-existing-py3.11.run.json", "6c04d35a-existing-py3.12.run.json"]
    from pairbench.flows import saved

    assert saved._run_file_beside(tmp_path / "bm.json.gz").name == "bm.run.json"
    assert saved._run_file_beside(tmp_path / "old.txt").name == "old.run.json"
