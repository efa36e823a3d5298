"""Each process's steady state in a run: classified, its warm-up cut from its value, stored, and warned of."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pairbench.analysis import classify_processes, replicate_values, steady_state_notices
from pairbench.model import Benchmark, Metric, ProcessSeries, Run, Sample, Variant
from pairbench.store.runfile import VERSION, dumps_run, run_from_dict, run_to_dict

TIME = Metric("time_per_op", "s", "lower")
ALLOCS = Metric("allocs_per_op", "count", "lower", exact=True)


def _run(series_of: dict[str, str], processes: int = 4, n: int = 30, seed: int = 1) -> Run:
    """A micro-like run: per process, `n` samples (the first 2 flagged warm-up) shaped as asked."""
    rng = np.random.default_rng(seed)
    run = Run({}, [Variant("cpython", baseline=True), Variant("pypy")],
              [Benchmark("loop", "micro", (TIME, ALLOCS))])
    for block in range(processes):
        for variant, shape in series_of.items():
            base = np.full(n, 1e-3)
            if shape == "warmup":
                base[:8] *= 5.0
            elif shape == "none":
                base[: n - 3] *= 1.5
            values = base * np.exp(rng.normal(0.0, 0.02, n))
            for i, v in enumerate(values):
                run.samples.append(Sample("loop", variant, "time_per_op", float(v), block, 0, i, i < 2))
            run.samples.append(Sample("loop", variant, "allocs_per_op", 3.0, block, 0, 0, False))
    return run


def test_a_warmup_is_found_and_left_out_of_the_process_value() -> None:
    run = _run({"cpython": "flat", "pypy": "warmup"})
    before = replicate_values(run, "loop", "time_per_op")["pypy"][0]
    run.steady_states = classify_processes(run)
    pypy = [s for s in run.steady_states if s.variant == "pypy"]
    assert len(pypy) == 4 and all(s.classification == "warmup" and s.warmup_iterations == 8 for s in pypy)
    assert all(s.classification == "flat" for s in run.steady_states if s.variant == "cpython")
    after = replicate_values(run, "loop", "time_per_op")["pypy"][0]
    assert after < before * 0.8, "the 5x slower warm-up samples no longer count"
    assert after == np.mean([s.value for s in run.samples if s.variant == "pypy" and s.block == 0
                             and s.metric == "time_per_op" and s.iteration >= 8])
    # the once-per-process count is not cut
    assert replicate_values(run, "loop", "allocs_per_op")["pypy"][0] == 3.0
    notes = steady_state_notices(run)
    assert [n.kind for n in notes if n.variant == "pypy"] == ["steady-state"]
    assert "4 warm-up then steady (warm-up 8 samples, median)" in notes[-1].message or any(
        "4 warm-up then steady (warm-up 8 samples, median)" in n.message for n in notes)


def test_a_process_that_never_settles_is_a_warning_about_the_verdict() -> None:
    run = _run({"cpython": "flat", "pypy": "none"})
    run.steady_states = classify_processes(run)
    assert {s.classification for s in run.steady_states if s.variant == "pypy"} == {"no steady state"}
    warnings = [n for n in steady_state_notices(run) if n.kind == "no-steady-state"]
    assert len(warnings) == 1 and warnings[0].variant == "pypy"
    assert "4 of 4 processes never reached a steady state" in warnings[0].message
    assert "verdict" in warnings[0].message


def test_short_series_are_not_classified() -> None:
    run = _run({"cpython": "flat", "pypy": "warmup"}, n=7)
    assert classify_processes(run) == []


def test_the_records_are_stored_in_the_run_file_and_old_files_read_without_them() -> None:
    run = _run({"cpython": "flat", "pypy": "warmup"})
    run.steady_states = classify_processes(run)
    doc = json.loads(dumps_run(run))
    assert doc["version"] == VERSION == 4
    record = next(r for r in doc["steady_states"] if r["variant"] == "pypy")
    assert record["classification"] == "warmup" and record["warmup_iterations"] == 8
    assert run_from_dict(doc).steady_states == run.steady_states
    old = {**run_to_dict(run), "version": 3}
    del old["steady_states"]
    assert run_from_dict(old).steady_states == []


def _batched_run(slow_batches: int, per_sample: int = 8, samples: int = 7, warm: int = 2) -> Run:
    """A default-sized micro run (7 samples, 2 warm-up) whose processes also timed each sample in
    `per_sample` batches: the first `slow_batches` batches of pypy's are 5x slower."""
    rng = np.random.default_rng(3)
    run = Run({}, [Variant("cpython", baseline=True), Variant("pypy")], [Benchmark("loop", "micro", (TIME,))])
    for block in range(3):
        for variant in ("cpython", "pypy"):
            batches = np.full(samples * per_sample, 1e-3) * np.exp(rng.normal(0.0, 0.02, samples * per_sample))
            if variant == "pypy":
                batches[:slow_batches] *= 5.0
            for i in range(samples):
                value = float(np.mean(batches[i * per_sample:(i + 1) * per_sample]))
                run.samples.append(Sample("loop", variant, "time_per_op", value, block, 0, i, i < warm))
            run.series.append(ProcessSeries("loop", variant, block, 0, "time_per_op", per_sample,
                                            tuple(float(b) for b in batches)))
    return run


def test_a_default_sized_process_is_classified_from_its_batches() -> None:
    run = _batched_run(slow_batches=3)
    states = classify_processes(run)
    assert len(states) == 6, "every process of 7 samples gets a record through its 56 batches"
    assert all(s.classification == "flat" for s in states if s.variant == "cpython")
    pypy = [s for s in states if s.variant == "pypy"]
    assert all(s.classification == "warmup" and s.iterations == 56 and s.per_sample == 8 for s in pypy)
    # the cut is in samples: batches 0-2 are in sample 0, so sample 1 on is steady
    assert all(s.warmup_iterations == 1 for s in pypy)
    before = replicate_values(run, "loop", "time_per_op")
    run.steady_states = states
    assert replicate_values(run, "loop", "time_per_op") == before, "a warm-up inside the warm-up samples cuts nothing"


def test_a_batch_warmup_reaching_the_measured_samples_is_cut_to_the_whole_sample() -> None:
    run = _batched_run(slow_batches=21)  # 2 warm-up samples and 5 batches of the third
    run.steady_states = classify_processes(run)
    pypy = [s for s in run.steady_states if s.variant == "pypy"]
    assert all(s.classification == "warmup" and s.warmup_iterations == 3 for s in pypy)
    kept = [s.value for s in run.samples if s.variant == "pypy" and s.block == 0 and s.iteration >= 3]
    assert replicate_values(run, "loop", "time_per_op")["pypy"][0] == np.mean(kept)


def test_the_batch_series_is_stored_in_the_run_file() -> None:
    run = _batched_run(slow_batches=3)
    assert run_from_dict(json.loads(dumps_run(run))).series == run.series


@pytest.mark.parametrize("warm", [2, 1])
def test_a_planned_short_process_keeps_at_least_one_of_its_two_samples_wherever_its_warmup_ends(warm: int) -> None:
    """Micro may plan 2 measured samples after 2 warm-up ones (a JIT's default: 4 samples of 8
    batches, 32 values) or after 1 (CPython's: 24 values, whose last quarter lies inside the last
    sample): a steady state found anywhere in the batches never cuts every measured sample (one
    starting inside the last sample keeps that sample, mostly steady), and a flat one none."""
    n = warm + 2
    for end in [0, *range(2, 8 * n, 1)]:
        for seed in range(5):
            run = Run({}, [Variant("cpython", baseline=True)], [Benchmark("loop", "micro", (TIME,))])
            rng = np.random.default_rng(1000 * seed + end)
            batches = np.full(8 * n, 1e-3) * np.exp(rng.normal(0.0, 0.01, 8 * n))
            batches[:end] *= 3.0  # a JIT's warm-up over the first `end` batches
            for i in range(n):
                run.samples.append(Sample("loop", "cpython", "time_per_op", float(batches[8 * i: 8 * i + 8].mean()),
                                          0, 0, i, i < warm))
            run.series.append(ProcessSeries("loop", "cpython", 0, 0, "time_per_op", 8, [float(b) for b in batches]))
            run.steady_states = classify_processes(run)
            kept = replicate_values(run, "loop", "time_per_op").get("cpython", {})
            assert 0 in kept, f"warm-up ending at batch {end} (seed {seed}): no measured sample left"
            if end <= 8 * warm:  # the warm-up ends within the warm-up samples: both measured samples count
                assert kept[0] == pytest.approx(np.mean(batches[8 * warm:]))
