"""Steady state on real JITs: PyPy's and YJIT's warm-up is found per process and left out of its value."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

# A branchy function PyPy interprets for its first ~1,600 calls, then compiles: with 200 calls a
# sample, its first few samples are many times slower than the rest.
BRANCHY = '''
def _work(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            total += i * 2
        elif i % 3 == 1:
            total -= i
        else:
            total ^= i
    return total


def bench_branchy():
    _work(30)
'''

FIB_YML = """\
prelude: |
  def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
benchmark:
  fib: fib(12)
"""

# CPU time, not wall time: on a loaded machine (CI's hog on the other core) wall-clock bursts in the
# steady part read as "no steady state" in one process of four runs out of four; the JIT's warm-up
# is CPU work and shows the same in either clock.
SHORT = ["--samples", "30", "--warmup-samples", "0", "-r", "2", "--no-alloc", "--no-progress", "--no-history", "-v",
         "--clock", "cpu"]


def _states(path: Path, variant: str) -> list[dict[str, Any]]:
    return [s for s in json.loads(path.read_text())["steady_states"] if s["variant"] == variant]


@pytest.mark.slow
def test_pypy_warms_up_then_is_steady_and_only_the_steady_part_counts(run_cli: Any, tmp_path: Path) -> None:
    if shutil.which("pypy3") is None:
        pytest.skip("pypy3 is not installed")
    (tmp_path / "bench_warm.py").write_text(BRANCHY)
    out = tmp_path / "r.json"
    r = run_cli("micro", "bench_warm.py", "--python", "pypy3", "--python", "pypy3 --jit off", "--loops", "200",
                *SHORT, "-r", "3", "--export-json", str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    states = _states(out, "pypy3")
    assert len(states) == 3
    # The interpreted samples (at least the first three, 4x slower and more) are the warm-up. A
    # process may change phase again later (a GC or a bridge compiled: "no steady state" in one
    # process of six here, in CPU time too, as Barrett et al. found of PyPy; "slowdown" in two of
    # three in a CI run with a CPU hog), so at least one of the three warms up then settles.
    warmed = [s for s in states if s["classification"] == "warmup" and s["warmup_iterations"] >= 3]
    assert warmed, states
    doc = json.loads(out.read_text())
    block, cut = warmed[0]["block"], warmed[0]["warmup_iterations"]
    first = [s for s in doc["samples"]
             if s["variant"] == "pypy3" and s["metric"] == "time_per_op" and s["block"] == block]
    steady = [s["value"] for s in first if s["iteration"] >= cut]
    assert len(steady) < len(first)
    text = " ".join((r.stdout + r.stderr).split())
    assert "[branchy · pypy3]: steady state of 3 processes:" in text and "warm-up then steady" in text


@pytest.mark.slow
def test_yjit_processes_are_classified_too(run_cli: Any, tmp_path: Path) -> None:
    if shutil.which("ruby") is None:
        pytest.skip("ruby is not installed")
    (tmp_path / "fib.yml").write_text(FIB_YML)
    out = tmp_path / "r.json"
    r = run_cli("micro", "fib.yml", "--ruby", "ruby", "--ruby", "ruby --yjit", "--loops", "20", *SHORT, "-r", "4",
                "--export-json", str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    states = _states(out, "ruby --yjit")
    assert len(states) == 4 and all(s["iterations"] == 30 * s["per_sample"] for s in states)
    # YJIT compiles fib after its first calls: a warm-up in at least one process of four. A process
    # may read flat on a busy machine, or change phase again later (one of two read "no steady
    # state" in a loaded run, CPU clock included), so the others are any classification.
    assert any(s["classification"] == "warmup" for s in states), states


# Default settings: 5 samples and 1-2 warm-up samples per process, too few to classify by sample;
# each sample's loop is timed in batches, so every process still gets a record.
DEFAULTS = ["-r", "2", "--no-alloc", "--no-progress", "--no-history", "-v"]


@pytest.mark.parametrize("language", ["python", "ruby"])
def test_a_default_micro_run_classifies_every_process(run_cli: Any, tmp_path: Path, language: str) -> None:
    if language == "ruby" and shutil.which("ruby") is None:
        pytest.skip("ruby is not installed")
    variants = (["--python", sys.executable, "--python", f"{sys.executable} -X dev"] if language == "python"
                else ["--ruby", "ruby", "--ruby", "ruby -W0"])
    out = tmp_path / "r.json"
    r = run_cli("micro", "x = 1 + 1", *variants, *DEFAULTS, "--export-json", str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    measured = {(s["variant"], s["block"]) for s in doc["samples"] if not s["warmup"]}
    states = {(s["variant"], s["block"]): s for s in doc["steady_states"]}
    assert set(states) == measured and len(measured) == 4
    # the pilot's 5 samples after the interpreter's warm-up samples: 1 on CPython, 2 on Ruby (were 2 on both)
    warm = {v["name"]: v["meta"]["warmup_samples"] for v in doc["variants"]}
    assert set(warm.values()) == ({1} if language == "python" else {2}), warm
    assert all(s["iterations"] == (warm[s["variant"]] + 5) * s["per_sample"] and s["per_sample"] > 1
               for s in states.values()), states


# PyPy with a high JIT threshold: the first 20,000 calls are interpreted, a long warm-up inside the
# first warm-up sample (tens of ms interpreted against ~µs compiled a call).
LATE_JIT = "pypy3 --jit threshold=20000,function_threshold=20000"


@pytest.mark.slow
def test_pypy_at_default_settings_warms_up_then_is_steady_in_every_process(run_cli: Any, tmp_path: Path) -> None:
    if shutil.which("pypy3") is None:
        pytest.skip("pypy3 is not installed")
    (tmp_path / "bench_warm.py").write_text(BRANCHY)
    out = tmp_path / "r.json"
    r = run_cli("micro", "bench_warm.py", "--python", "pypy3 --jit off", "--python", LATE_JIT, *DEFAULTS, "-r", "4",
                "--export-json", str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    states = _states(out, LATE_JIT)
    # Every process is classified at default settings, none flat (its first batches are interpreted,
    # many times slower), and at least one of four settles after its warm-up: the tail of a loaded
    # run may read as a slowdown or no steady state (one process of two did once).
    assert len(states) == 4 and not any(s["classification"] == "flat" for s in states), states
    assert any(s["classification"] == "warmup" for s in states), states
