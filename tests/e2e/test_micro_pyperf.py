"""`pairbench micro` on coroutines and on pyperf-style benchmarks (pyperformance), real interpreters."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path
from typing import Any

import pytest

from pairbench.model import Run
from pairbench.store.runfile import load_run

PY = sys.executable
FAST = ["--samples", "3", "--warmup-samples", "1", "--target-time", "0.05", "--no-alloc"]


def flat(proc: Any) -> str:
    return " ".join((proc.stdout + proc.stderr).split())


def op_times(run: Run, bench: str, variant: str) -> list[float]:
    return [s.value for s in run.samples if s.benchmark == bench and s.variant == variant
            and s.metric == "time_per_op" and not s.warmup]


def run_micro(run_cli: Any, tmp_path: Path, *args: str, runs: int = 2) -> tuple[Any, Run]:
    out = tmp_path / "run.json"
    proc = run_cli("micro", *args, *FAST, "--runs", str(runs), "--seed", "1", "--export-json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc, load_run(out)


NAPS = '''
import asyncio, os

NAP = float(os.environ["PB_NAP"])

async def bench_nap():
    await asyncio.sleep(NAP)

def bench_forgets_await():
    return asyncio.sleep(NAP)

async def bench_agen():
    yield NAP
'''


@pytest.mark.slow
def test_an_async_bench_function_is_awaited_and_its_sleep_is_timed(run_cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "naps.py"
    path.write_text(NAPS)
    proc, run = run_micro(run_cli, tmp_path, str(path), "-b", "nap",
                          "--python", f"env PB_NAP=0.01 {PY}", "--python", f"env PB_NAP=0.02 {PY}",
                          "--name", "short", "--name", "long")
    short, long = op_times(run, "nap", "short"), op_times(run, "nap", "long")
    assert len(short) == 6 and len(long) == 6
    # A sleep never ends early; a loaded machine may add a few milliseconds, far under 2x.
    assert 0.008 < statistics.median(short) < 0.02, short
    assert 0.016 < statistics.median(long) < 0.04, long
    (c,) = [c for c in run.comparisons if c.metric == "time_per_op"]
    assert c.ratio is not None and 1.5 < c.ratio < 2.6, c.sentence


@pytest.mark.slow
@pytest.mark.parametrize("bench, words", [
    ("forgets_await", "returned a coroutine that nothing awaits"),
    ("agen", "is an async generator function"),
])
def test_a_bench_whose_call_is_never_run_is_refused_in_one_line(run_cli: Any, tmp_path: Path, bench: str,
                                                                 words: str) -> None:
    path = tmp_path / "naps.py"
    path.write_text(NAPS)
    proc = run_cli("micro", str(path), "-b", bench, "--python", f"env PB_NAP=0.01 {PY}", *FAST, "--runs", "2")
    text = flat(proc)
    assert proc.returncode == 1, text
    assert "Traceback" not in text and "never awaited" not in text, text
    assert words in text and f"bench_{bench}" in text, text
    assert [line for line in proc.stderr.splitlines() if line.startswith("error:")], proc.stderr


DEBIAN_PY = "/usr/bin/python3"


def pyperformance_benchmarks() -> Path:
    """pyperformance's benchmark directory (the `test` extra installs pyperformance==1.14.0)."""
    try:
        import pyperformance
    except ImportError:
        pytest.skip("pyperformance is not installed (pip install -e '.[test]')")
    root = Path(pyperformance.__file__).parent / "data-files" / "benchmarks"
    if not root.is_dir():
        pytest.skip(f"no benchmarks under {root}")
    return root


def need(*exes: str) -> None:
    for exe in exes:
        if not Path(exe).is_file():
            pytest.skip(f"{exe} not installed")


# Every Runner method pyperformance uses, with sleeps of known length (wall clock, 20%+ margins).
PYPERF_SCRIPT = '''
import asyncio, sys, time
import pyperf

def nap_loops(loops, seconds):
    t0 = pyperf.perf_counter()
    for _ in range(loops):
        time.sleep(seconds)
    return pyperf.perf_counter() - t0

def nap(seconds, times):
    for _ in range(times):
        time.sleep(seconds)

async def anap(seconds):
    await asyncio.sleep(seconds)

if __name__ == "__main__":
    runner = pyperf.Runner()
    runner.argparser.add_argument("--nap", type=float, default=0.02)
    runner.metadata["description"] = "naps"
    args = runner.parse_args()
    assert runner.bench_time_func("time_func", nap_loops, 4 * args.nap, inner_loops=4) is None
    runner.bench_func("func", nap, args.nap, 3)
    runner.bench_async_func("async_func", anap, 2 * args.nap)
    runner.bench_command("command", [sys.executable, "-c", "import time; time.sleep(0.03)"])
'''


def median_op(run: Run, bench: str, variant: str) -> float:
    return statistics.median(op_times(run, bench, variant))


@pytest.mark.slow
def test_a_pyperf_script_runs_with_or_without_pyperf_installed(run_cli: Any, tmp_path: Path) -> None:
    need(DEBIAN_PY)
    path = tmp_path / "naps.py"
    path.write_text(PYPERF_SCRIPT)
    # Debian's python has no pyperf; pyenv's has the real one, which pairbench's own shadows.
    _, run = run_micro(run_cli, tmp_path, str(path), "--python", DEBIAN_PY, "--python", PY,
                       "--name", "debian", "--name", "pyenv")
    assert [b.name for b in run.benchmarks] == ["time_func", "func", "async_func", "command"]
    for v in ("debian", "pyenv"):
        # bench_time_func: 80 ms per loop over 4 inner loops = 20 ms per op (pyperf's dt / (loops * inner)).
        # A sleep never ends early; a busy machine adds a few milliseconds per wake-up.
        assert 0.016 < median_op(run, "time_func", v) < 0.035
        assert 0.05 < median_op(run, "func", v) < 0.1           # 3 naps of 20 ms per call
        assert 0.035 < median_op(run, "async_func", v) < 0.07   # awaited, 40 ms
        assert 0.03 < median_op(run, "command", v) < 2.0        # a whole process that sleeps 30 ms


@pytest.mark.slow
def test_pyperformance_scripts_run_unchanged_across_two_cpythons(run_cli: Any, tmp_path: Path) -> None:
    need(DEBIAN_PY)
    root = pyperformance_benchmarks()
    files = [str(root / f"bm_{name}" / "run_benchmark.py") for name in ("unpack_sequence", "nbody", "deepcopy")]
    proc, run = run_micro(run_cli, tmp_path, *files, "--python", DEBIAN_PY, "--python", PY)
    # The names the scripts give their benchmarks (deepcopy registers three).
    assert [b.name for b in run.benchmarks] == ["unpack_sequence", "nbody", "deepcopy", "deepcopy_reduce",
                                                "deepcopy_memo"], flat(proc)
    for b in run.benchmarks:
        for v in (DEBIAN_PY, PY):
            assert len(op_times(run, b.name, v)) == 6, (b.name, v)
    # unpack_sequence times 400 unpackings per loop: nanoseconds per op, nbody milliseconds.
    assert median_op(run, "unpack_sequence", PY) < 1e-6
    assert 1e-3 < median_op(run, "nbody", PY) < 2.0
    assert "Traceback" not in flat(proc)


BROKEN_ON_DEBIAN = '''
import sys
import pyperf

def work(loops):
    t0 = pyperf.perf_counter()
    for _ in range(loops):
        sum(range(2000))
    return pyperf.perf_counter() - t0

if __name__ == "__main__":
    runner = pyperf.Runner()
    if sys.executable == "/usr/bin/python3":
        raise RuntimeError("not on this interpreter")
    runner.bench_time_func("picky", work)
'''


def copy_benchmarks(root: Path, dest: Path, names: list[str]) -> Path:
    import shutil

    for name in names:
        shutil.copytree(root / f"bm_{name}", dest / f"bm_{name}", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


@pytest.mark.slow
def test_a_directory_of_pyperformance_benchmarks_with_extra_opts_and_a_suite_summary(run_cli: Any,
                                                                                      tmp_path: Path) -> None:
    need(DEBIAN_PY)
    suite = copy_benchmarks(pyperformance_benchmarks(), tmp_path / "benchmarks", ["argparse", "unpack_sequence"])
    picky = suite / "bm_picky"
    picky.mkdir()
    (picky / "run_benchmark.py").write_text(BROKEN_ON_DEBIAN)
    (picky / "pyproject.toml").write_text('[project]\nname = "bm_picky"\n\n[tool.pyperformance]\nname = "picky"\n')
    proc, run = run_micro(run_cli, tmp_path, str(suite), "--python", PY, "--python", DEBIAN_PY,
                          "--name", "pyenv", "--name", "debian")
    # bm_argparse's pyproject.toml and its bm_argparse_subparsers.toml metafile: two benchmarks of
    # one script, told apart by their extra_opts; named as pyperformance names them.
    names = [b.name for b in run.benchmarks]
    assert names == ["argparse_many_optionals", "argparse_subparsers", "picky", "unpack_sequence"], names
    assert run.benchmark("argparse_subparsers").options["argv"] == ["subparsers"]
    for name in ("argparse_many_optionals", "argparse_subparsers", "unpack_sequence"):
        assert len(op_times(run, name, "pyenv")) == 6 and len(op_times(run, name, "debian")) == 6, name
    # the benchmark that fails on one variant: that variant's error, its other variant measured
    assert len(op_times(run, "picky", "pyenv")) == 6 and not op_times(run, "picky", "debian")
    text = flat(proc)
    assert "'picky' on variant 'debian': RuntimeError: not on this interpreter" in text, text
    # the geometric mean over the benchmarks with its CI, as `pyperformance compare` gives
    (summary,) = run.summaries
    assert summary.candidate == "debian" and summary.ratio > 0 and summary.ci[0] <= summary.ratio <= summary.ci[1]
    assert "suite summary" in text


@pytest.mark.slow
def test_a_quoted_glob_of_benchmark_directories(run_cli: Any, tmp_path: Path) -> None:
    suite = copy_benchmarks(pyperformance_benchmarks(), tmp_path / "benchmarks", ["nbody", "nqueens", "chaos"])
    _, run = run_micro(run_cli, tmp_path, str(suite / "bm_n*"), "--python", PY, "--python", PY, runs=1)
    assert [b.name for b in run.benchmarks] == ["nbody", "nqueens"]


def test_a_directory_that_holds_no_benchmark_is_one_clear_line(run_cli: Any, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    proc = run_cli("micro", str(tmp_path / "empty"), "--python", PY)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "not a pyperformance benchmark directory" in proc.stderr, proc.stderr
