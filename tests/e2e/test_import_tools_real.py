"""Import what the real tools write in this test run, check their own figures against pairbench's
reading, and compare two imports: pytest-benchmark, Google Benchmark (libbenchmark-dev), Go's
`go test -bench` (golang-go), asv. criterion (Rust) does not run here: its files are written in the
documented layout (its book's `new/` directory: benchmark.json, sample.json, estimates.json).

Each tool measures a small workload twice, the second many times heavier (a 5x+ effect on any
machine), so `pairbench compare` of the two imports must say slower.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from pairbench.importers import import_file


def _tool(args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 240) -> str:
    proc = subprocess.run(args, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"{args[0]} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return proc.stdout


def _verdict(run_cli, base: str, patched: str, benchmark: str) -> str:
    proc = run_cli("compare", base, patched)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith(benchmark))
    return line.split()[-1]


@pytest.mark.slow
def test_pytest_benchmark_files_import_with_every_round(tmp_path: Path, run_cli) -> None:
    pytest.importorskip("pytest_benchmark")
    (tmp_path / "test_b.py").write_text(
        "import os\n\ndef test_sum(benchmark):\n    benchmark(sum, range(int(os.environ['N'])))\n")
    quick = ["--benchmark-max-time=0.05", "--benchmark-min-rounds=5", "-p", "no:cacheprovider", "-q"]
    pytest_cmd = [sys.executable, "-m", "pytest", "test_b.py", *quick]
    # --benchmark-json always holds every round; a saved file only with --benchmark-save-data
    _tool([*pytest_cmd, "--benchmark-json=base.json", "--benchmark-save=summary"], tmp_path, {"N": "50"})
    _tool([*pytest_cmd, "--benchmark-save=patched", "--benchmark-save-data"], tmp_path, {"N": "3000"})
    (summary_file,) = (tmp_path / ".benchmarks").rglob("0001_summary.json")
    (saved,) = (tmp_path / ".benchmarks").rglob("0002_patched.json")
    for path in (tmp_path / "base.json", saved):
        stats = json.loads(path.read_text())["benchmarks"][0]["stats"]
        run = import_file(path)
        values = [s.value for s in run.samples if s.benchmark == "test_b.py::test_sum"]
        assert len(values) == stats["rounds"] and statistics.fmean(values) == pytest.approx(stats["mean"], rel=1e-9)
    summary = import_file(summary_file)
    stats = json.loads(summary_file.read_text())["benchmarks"][0]["stats"]
    assert [s.value for s in summary.samples] == [stats["mean"]]
    assert "summary-only" in [n.kind for n in summary.notices]
    shutil.copy(saved, tmp_path / "patched.json")
    assert _verdict(run_cli, "base.json", "patched.json", "test_b.py::test_sum") == "slower"


_GOOGLE_BENCH = """#include <benchmark/benchmark.h>
#include <cstdlib>
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
static void BM_fib(benchmark::State& state) {
  int n = std::atoi(std::getenv("FIB_N"));
  for (auto _ : state) benchmark::DoNotOptimize(fib(n));
}
BENCHMARK(BM_fib);
BENCHMARK_MAIN();
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None or not Path("/usr/include/benchmark/benchmark.h").exists(),
                    reason="g++ and Google Benchmark not installed (scripts/test.sh installs libbenchmark-dev)")
def test_google_benchmark_repetitions_import_as_blocks(tmp_path: Path, run_cli) -> None:
    (tmp_path / "b.cc").write_text(_GOOGLE_BENCH)
    _tool(["g++", "-O2", "b.cc", "-o", "b", "-lbenchmark", "-lpthread"], tmp_path)
    for name, n in (("base", "12"), ("patched", "20")):  # fib(20) is ~100x fib(12)
        _tool(["./b", "--benchmark_repetitions=5", "--benchmark_min_time=0.01", f"--benchmark_out={name}.json",
               "--benchmark_out_format=json"], tmp_path, {"FIB_N": n})
    doc = json.loads((tmp_path / "base.json").read_text())
    written = [b["real_time"] * 1e-9 for b in doc["benchmarks"] if b["run_type"] == "iteration"]
    run = import_file(tmp_path / "base.json")
    assert len(written) == 5 and any(b["run_type"] == "aggregate" for b in doc["benchmarks"])
    assert [s.value for s in sorted(run.samples, key=lambda s: s.block) if s.metric == "time"] == pytest.approx(written)
    assert _verdict(run_cli, "base.json", "patched.json", "BM_fib") == "slower"


_GO_BENCH = """package fib

import (
\t"os"
\t"strconv"
\t"testing"
)

func fib(n int) int {
\tif n < 2 {
\t\treturn n
\t}
\treturn fib(n-1) + fib(n-2)
}

func BenchmarkFib(b *testing.B) {
\tn, _ := strconv.Atoi(os.Getenv("FIB_N"))
\tfor i := 0; i < b.N; i++ {
\t\t_ = make([]byte, 8+n)
\t\tfib(n)
\t}
}
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("go") is None, reason="Go not installed (scripts/test.sh installs golang-go)")
def test_go_bench_lines_import_as_blocks(tmp_path: Path, run_cli) -> None:
    (tmp_path / "go.mod").write_text("module example.com/fib\n\ngo 1.19\n")
    (tmp_path / "fib_test.go").write_text(_GO_BENCH)
    env = {"HOME": str(tmp_path), "GOCACHE": str(tmp_path / "cache"), "GOPATH": str(tmp_path / "gopath"),
           "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"}
    for name, n in (("base", "10"), ("patched", "20")):  # fib(20) is ~100x fib(10)
        out = _tool(["go", "test", "-run", "^$", "-bench", ".", "-benchmem", "-count", "5", "-benchtime", "1000x"],
                    tmp_path, {**env, "FIB_N": n})
        (tmp_path / f"{name}.txt").write_text(out)
    lines = re.findall(r"^BenchmarkFib\S*\s+\d+\s+([\d.]+) ns/op\s+([\d.]+) B/op\s+([\d.]+) allocs/op",
                       (tmp_path / "base.txt").read_text(), re.M)
    run = import_file(tmp_path / "base.txt")
    assert len(lines) == 5 and [b.name for b in run.benchmarks] == ["Fib"]
    for metric, column, scale in (("time", 0, 1e-9), ("alloc_bytes", 1, 1.0), ("allocs", 2, 1.0)):
        read = [s.value for s in sorted(run.samples, key=lambda s: s.block) if s.metric == metric]
        assert read == pytest.approx([float(line[column]) * scale for line in lines])
    assert _verdict(run_cli, "base.txt", "patched.txt", "Fib") == "slower"


_ASV_BENCH = """from pathlib import Path

N = int((Path(__file__).parent.parent / "n.txt").read_text())


class Sum:
    number = 50
    repeat = 6
    rounds = 1
    warmup_time = 0
    params = [1, 2]
    param_names = ["k"]

    def time_sum(self, k):
        sum(range(N * k))
"""


@pytest.mark.slow
def test_asv_results_import_with_their_samples(tmp_path: Path, run_cli) -> None:
    pytest.importorskip("asv")
    bench = tmp_path / "benchmarks"
    bench.mkdir()
    (bench / "__init__.py").write_text("")
    (bench / "bench.py").write_text(_ASV_BENCH)
    (tmp_path / "asv.conf.json").write_text(json.dumps({
        "version": 1, "project": "demo", "repo": ".", "environment_type": "existing", "benchmark_dir": "benchmarks",
        "results_dir": "results", "html_dir": "html", "branches": ["HEAD"]}))
    env = {"HOME": str(tmp_path)}
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    _tool(["git", "init", "-q", "."], tmp_path)
    _tool(["asv", "machine", "--yes", "--machine", "vm"], tmp_path, env)
    commits = []
    for n in ("50", "3000"):
        (tmp_path / "n.txt").write_text(n)
        _tool([*git, "add", "-A"], tmp_path)
        _tool([*git, "commit", "-qm", f"n={n}"], tmp_path)
        commits.append(_tool(["git", "rev-parse", "HEAD"], tmp_path).strip())
        _tool(["asv", "run", "-E", f"existing:{sys.executable}", "--record-samples", "--set-commit-hash", commits[-1],
               "--machine", "vm"], tmp_path, env)
    files = [next((tmp_path / "results" / "vm").glob(f"{c[:8]}-*.json")) for c in commits]
    doc = json.loads(files[0].read_text())
    row = dict(zip(doc["result_columns"], doc["results"]["bench.Sum.time_sum"]))
    run = import_file(files[0])
    assert [b.name for b in run.benchmarks] == ["bench.Sum.time_sum(1)", "bench.Sum.time_sum(2)"]
    assert run.variants[0].name == commits[0][:8]
    for i, name in enumerate(b.name for b in run.benchmarks):
        values = [s.value for s in run.samples if s.benchmark == name]
        assert values == row["samples"][i] and statistics.median(values) == pytest.approx(row["result"][i])
    for i, path in enumerate(files):
        shutil.copy(path, tmp_path / f"{('base', 'patched')[i]}.json")
    assert _verdict(run_cli, "base.json", "patched.json", "bench.Sum.time_sum(1)") == "slower"


def _criterion_benchmark(root: Path, baseline: str, per_iteration_ns: float, noise: list[float]) -> None:
    """One benchmark's baseline directory as criterion writes it (its book's html_report example)."""
    d = root / "Fibonacci" / "Recursive" / baseline
    d.mkdir(parents=True)
    (d / "benchmark.json").write_text(json.dumps({
        "group_id": "Fibonacci", "function_id": "Recursive", "value_str": None, "throughput": None,
        "full_id": "Fibonacci/Recursive", "directory_name": "Fibonacci/Recursive", "title": "Fibonacci/Recursive"}))
    iters = [52.0 * (i + 1) for i in range(len(noise))]
    times = [n * per_iteration_ns * (1 + e) for n, e in zip(iters, noise)]
    (d / "sample.json").write_text(json.dumps({"sampling_mode": "Linear", "iters": iters, "times": times}))
    mean = statistics.fmean(t / n for n, t in zip(iters, times))
    bounds = {"confidence_level": 0.95, "lower_bound": mean * 0.99, "upper_bound": mean * 1.01}
    estimate = {"confidence_interval": bounds, "point_estimate": mean, "standard_error": mean * 0.005}
    keys = ("mean", "median", "std_dev", "median_abs_dev", "slope")
    (d / "estimates.json").write_text(json.dumps({key: estimate for key in keys}))


def test_criterion_directory_new_against_base(tmp_path: Path, run_cli) -> None:
    noise = [0.01 * ((i * 7) % 5 - 2) for i in range(30)]  # ±2%, fixed
    root = tmp_path / "target" / "criterion"
    _criterion_benchmark(root, "base", 19284.0, noise)
    _criterion_benchmark(root, "new", 19284.0 * 1.5, noise[::-1])
    run = import_file(root)
    sample = json.loads((root / "Fibonacci" / "Recursive" / "new" / "sample.json").read_text())
    read = [s.value for s in sorted(run.samples, key=lambda s: s.block) if s.variant == "new"]
    assert read == pytest.approx([t / n * 1e-9 for n, t in zip(sample["iters"], sample["times"])])
    proc = run_cli("import", "target/criterion", "--no-history")
    assert proc.returncode == 0, proc.stderr
    assert "wrote " in proc.stdout and "2 variants, 1 benchmark, 60 samples" in proc.stdout
    proc = run_cli("compare", "target/criterion")  # criterion's own question: new against base
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("Fibonacci/Recursive"))
    assert line.split()[-1] == "slower"


def test_compare_of_summary_only_files_says_why_it_has_no_verdict(tmp_path: Path, run_cli) -> None:
    (tmp_path / "a.json").write_text(json.dumps({"parse": {"latency": {"value": 88.0}}}))
    (tmp_path / "b.json").write_text(json.dumps({"parse": {"latency": {"value": 120.0}}}))
    proc = run_cli("compare", "a.json", "b.json")
    assert proc.returncode == 0, proc.stderr
    assert next(x for x in proc.stdout.splitlines() if x.startswith("parse")).split()[-1] == "insufficient"
    assert "Bencher Metric Format's summary statistics (a.json)" in proc.stderr
    assert "Bencher Metric Format's summary statistics (b.json)" in proc.stderr
