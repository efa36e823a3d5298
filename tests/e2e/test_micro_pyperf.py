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
