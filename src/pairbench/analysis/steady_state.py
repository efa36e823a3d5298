"""A run's in-process series -> each process's steady state, and what it means for the verdicts.

Every process with a series of at least MIN_ITERATIONS values of a time is classified
(stats/steady_state.py): its per-batch times when it timed each sample in batches (micro,
`Run.series`: 7 default samples make 56 batches), else its samples (warm-up and measured, in the
order taken). A steady state found in batches starts at the first sample wholly inside it. Its
value then comes from its steady state only: samples before it are left out
(analysis/replicates.py reads the records), so a JIT's warm-up never enters a comparison. A
process with no steady state keeps all its measured samples, and its benchmark gets a warning: its value averages a state still changing, so the
verdict depends on how long each process ran, not on a speed the variant settles at.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict

from pairbench.model import Benchmark, Notice, Run, Sample, SteadyState

__all__ = ["PHASE_STEP", "classify_processes", "steady_state_notices", "summary_text"]

PHASE_STEP = 0.05
"""Smallest change of a process's level that makes a new phase, unless the band δ is wider: a JIT's
warm-up is 2-100x, while one process's samples on a busy machine drift by a few percent without
any phase (seen on PyPy with its JIT off: 3.7 µs -> 3.5 µs over 120 samples)."""


def _series_metric(bench: Benchmark) -> str | None:
    """The time the series is classified on: the first metric in seconds where lower is better."""
    for m in bench.metrics:
        if m.unit == "s" and m.direction == "lower" and not m.exact:
            return m.name
    return None


def classify_processes(run: Run, min_step: float = 0.01) -> list[SteadyState]:
    """A SteadyState per process with a long enough series (none for other kinds or short series).

    Args:
        run: the run and its samples.
        min_step: the ±δ band: a step counts when it exceeds it and PHASE_STEP.
    """
    from pairbench.stats.steady_state import MIN_ITERATIONS, classify_series

    out: list[SteadyState] = []
    for bench in run.benchmarks:
        metric = _series_metric(bench)
        if metric is None:
            continue
        series: dict[tuple[str, int, int], list[Sample]] = defaultdict(list)
        for s in run.samples:
            if s.benchmark == bench.name and s.metric == metric and s.block >= 0:
                series[(s.variant, s.block, s.replicate)].append(s)
        batched = {(x.variant, x.block, x.replicate): x for x in run.series
                   if x.benchmark == bench.name and x.metric == metric}
        for (variant, block, rep), samples in series.items():
            if all(s.warmup for s in samples):
                continue  # a whole warm-up process (run-level warm-up) is not measured
            samples.sort(key=lambda s: s.iteration)
            batches = batched.get((variant, block, rep))
            # the batches when they cover the samples exactly, else the samples themselves
            k = batches.per_sample if batches is not None else 1
            if batches is not None and k > 1 and len(batches.values) == k * len(samples):
                per_sample, values = batches.per_sample, list(batches.values)
            else:
                per_sample, values = 1, [s.value for s in samples]
            if len(values) < MIN_ITERATIONS:
                continue
            fit = classify_series(values, min_step=max(min_step, PHASE_STEP))
            if fit is None:
                continue
            counts = Counter(s.metric for s in run.samples if s.benchmark == bench.name and s.variant == variant
                             and s.block == block and s.replicate == rep)
            per_iteration = tuple(sorted(m for m, k in counts.items() if k == len(samples)))
            out.append(SteadyState(bench.name, variant, block, rep, fit.classification,
                                   _start_sample(fit.steady_start, per_sample, samples), fit.iterations,
                                   per_iteration, per_sample))
    return out


def _start_sample(start: int | None, per_sample: int, samples: list[Sample]) -> int | None:
    """The steady state's first value as a sample iteration: the first sample whole in it (a
    steady state starting inside a sample leaves that sample out too), but never past the last
    sample: a steady state spans at least the last quarter of the batches, so one starting inside
    the last sample happens under 4 samples only (CPython's 1 warm-up sample and 2 measured ones:
    24 batches, the last sample three quarters steady at least), and that sample is kept rather
    than none."""
    if start is None:
        return None
    first = min(-(-start // per_sample), len(samples) - 1)
    return samples[first].iteration


def summary_text(states: list[SteadyState]) -> str:
    """`8 warm-up then steady (warm-up 12 samples, median), 2 flat` for one benchmark and variant."""
    counts = Counter(s.classification for s in states)
    parts = []
    for kind in ("flat", "warmup", "slowdown", "no steady state"):
        k = counts.get(kind, 0)
        if not k:
            continue
        if kind == "warmup":
            lengths = [s.warmup_iterations for s in states if s.classification == kind and s.warmup_iterations]
            median = statistics.median(lengths) if lengths else 0
            parts.append(f"{k} warm-up then steady (warm-up {median:g} sample{'s' if median != 1 else ''}, median)")
        elif kind == "slowdown":
            parts.append(f"{k} slowdown")
        else:
            parts.append(f"{k} {kind}")
    return ", ".join(parts)


def steady_state_notices(run: Run) -> list[Notice]:
    """Per benchmark and variant: the classification (a note), and a warning when a process never
    settled or slowed down, saying what that means for the verdict."""
    groups: dict[tuple[str, str], list[SteadyState]] = defaultdict(list)
    for s in run.steady_states:
        groups[(s.benchmark, s.variant)].append(s)
    notices = []
    for (bench, variant), states in groups.items():
        n = len(states)
        notices.append(Notice("steady-state", f"steady state of {n} process{'es' if n != 1 else ''}: "
                              f"{summary_text(states)}; each counted from its steady state where it has one", "", bench, variant))
        never = sum(1 for s in states if s.classification == "no steady state")
        if never:
            notices.append(Notice(
                "no-steady-state", f"{never} of {n} processes never reached a steady state (still changing in "
                "their last quarter): their values average a changing state, so the verdict on this benchmark "
                "depends on how many samples each process takes", "raise --samples (and --warmup-samples)",
                bench, variant))
        slow = sum(1 for s in states if s.classification == "slowdown")
        if slow:
            notices.append(Notice(
                "slowdown", f"{slow} of {n} processes slowed down after reaching their fastest: the verdict uses "
                "the slower state they ended in", "", bench, variant))
    return notices


