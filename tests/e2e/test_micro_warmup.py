"""Warm-up samples per process in real `pairbench micro` and suite runs: by interpreter, unless given.

Why: each warm-up sample costs as much as a measured one; CPython has no JIT to warm up, so it
takes one (pyperf's default), PyPy and Ruby two. What a run did is read from its run file: the
samples it flagged as warm-up, and each variant's `warmup_samples`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pairbench.model import Run
from pairbench.store.runfile import load_run
from tests.e2e.test_micro import DEBIAN_PY, need

SHORT = ["--samples", "2", "--target-time", "0.005", "--no-alloc", "--runs", "2", "--seed", "1", "--no-history"]


def warm_per_process(run: Run) -> dict[tuple[str, str], set[int]]:
    """(benchmark, variant) -> the numbers of warm-up samples its processes took."""
    counts: Counter[tuple[str, str, int]] = Counter()
    procs: set[tuple[str, str, int]] = set()
    for s in run.samples:
        if s.metric == "time_per_op" and s.block >= 0:
            procs.add((s.benchmark, s.variant, s.block))
            counts[(s.benchmark, s.variant, s.block)] += s.warmup
    out: dict[tuple[str, str], set[int]] = {}
    for bench, variant, block in procs:
        out.setdefault((bench, variant), set()).add(counts[(bench, variant, block)])
    return out


def micro(run_cli: Any, tmp_path: Path, *args: str) -> Run:
    out = tmp_path / "r.json"
    proc = run_cli("micro", *args, *SHORT, "--export-json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return load_run(out)


@pytest.mark.slow
def test_cpython_takes_one_warm_up_sample_a_process_and_pypy_two(run_cli: Any, tmp_path: Path) -> None:
    need(DEBIAN_PY, "pypy3")
    run = micro(run_cli, tmp_path, "-s", "x = 1", "x + 1", "--python", DEBIAN_PY, "--python", "pypy3",
                "--name", "cpython", "--name", "pypy")
    assert warm_per_process(run) == {("x + 1", "cpython"): {1}, ("x + 1", "pypy"): {2}}
    assert {v.name: v.meta.get("warmup_samples") for v in run.variants} == {"cpython": 1, "pypy": 2}


@pytest.mark.slow
def test_ruby_takes_two_warm_up_samples_with_or_without_yjit(run_cli: Any, tmp_path: Path) -> None:
    need("ruby")
    run = micro(run_cli, tmp_path, "-s", "x = 1", "x + 1", "--ruby", "ruby", "--ruby", "ruby --yjit",
                "--name", "plain", "--name", "yjit")
    assert warm_per_process(run) == {("x + 1", "plain"): {2}, ("x + 1", "yjit"): {2}}
    assert {v.name: v.meta.get("warmup_samples") for v in run.variants} == {"plain": 2, "yjit": 2}


@pytest.mark.slow
@pytest.mark.parametrize("given", [0, 3])
def test_warmup_samples_flag_wins_on_cpython_and_pypy(run_cli: Any, tmp_path: Path, given: int) -> None:
    need(DEBIAN_PY, "pypy3")
    run = micro(run_cli, tmp_path, "-s", "x = 1", "x + 1", "--python", DEBIAN_PY, "--python", "pypy3",
                "--name", "cpython", "--name", "pypy", "--warmup-samples", str(given))
    assert warm_per_process(run) == {("x + 1", "cpython"): {given}, ("x + 1", "pypy"): {given}}
    assert {v.name: v.meta.get("warmup_samples") for v in run.variants} == {"cpython": given, "pypy": given}


SUITE = f'''
[defaults]
runs = 2
warmup = 0
seed = 1

[variants.cpython]
command = "{DEBIAN_PY}"
baseline = true

[variants.pypy]
command = "pypy3"

[benchmarks.default]
kind = "micro"
stmt = "x + 1"
setup = "x = 1"
samples = 2
target_time = 0.005
alloc = false

[benchmarks.given]
kind = "micro"
stmt = "x + 2"
setup = "x = 1"
samples = 2
target_time = 0.005
alloc = false
warmup = 3
'''


@pytest.mark.slow
def test_a_suites_micro_benchmark_takes_its_interpreters_default_unless_it_sets_warmup(
        run_cli: Any, tmp_path: Path) -> None:
    need(DEBIAN_PY, "pypy3")
    (tmp_path / "bench.toml").write_text(SUITE)
    out = tmp_path / "r.json"
    proc = run_cli("run", "bench.toml", "--no-history", "--export-json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert warm_per_process(load_run(out)) == {("default", "cpython"): {1}, ("default", "pypy"): {2},
                                               ("given", "cpython"): {3}, ("given", "pypy"): {3}}
