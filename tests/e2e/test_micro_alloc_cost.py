"""`pairbench micro`'s allocation pass stays a small part of a timing run: one process per variant,
sized by the op's measured time under tracemalloc (it once took 65 s of a 69 s run)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pairbench.store.runfile import load_run

PY = sys.executable
ALLOC = ("mem_blocks_per_op", "mem_bytes_per_op", "peak_bytes_per_op", "gc_per_1k_ops")


@pytest.mark.slow
def test_allocations_are_counted_once_per_variant_and_still_compared_exactly(run_cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    proc = run_cli("micro", "-s", "x = list(range(100))", "sorted(x)", "--python", PY, "--python", f"{PY} -S",
                   "--samples", "3", "--warmup-samples", "1", "--target-time", "0.01", "--runs", "3",
                   "--seed", "1", "--export-json", str(out), "-v")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = load_run(out)
    for v in (PY, f"{PY} -S"):
        counted = [(s.metric, s.block) for s in run.samples if s.variant == v and s.metric in ALLOC]
        assert sorted(counted) == sorted((m, 0) for m in ALLOC)  # one process, the same block on both sides
        assert len({s.block for s in run.samples if s.variant == v and s.metric == "time_per_op"}) == 3
    exact = {c.metric: c.verdict for c in run.comparisons if c.exact}
    assert set(exact) == set(ALLOC)
    assert "one process per variant" in " ".join(proc.stdout.split())


@pytest.mark.slow
def test_the_allocation_pass_adds_little_to_a_pyperformance_run(run_cli: Any, tmp_path: Path) -> None:
    # unpack_sequence runs ~500x slower under tracemalloc: with an assumed 10x the pass took 65 s
    # of a 69 s run at -r 2 (3.8 s with --no-alloc)
    from tests.e2e.test_micro_pyperf import pyperformance_benchmarks

    script = str(pyperformance_benchmarks() / "bm_unpack_sequence" / "run_benchmark.py")
    took = {}
    for flag in ("--no-alloc", None):
        started = time.perf_counter()
        proc = run_cli("micro", script, "--python", PY, "--python", f"{PY} -S", "--runs", "2", "--seed", "1",
                       *([flag] if flag else []))
        took[flag] = time.perf_counter() - started
        assert proc.returncode == 0, proc.stdout + proc.stderr
    assert took[None] < 2 * took["--no-alloc"], took
