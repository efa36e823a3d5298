"""Where the time went: differential profiles from the profiling blocks (`--profile`).

Method. Each profiled run gives folded stacks (flamegraph.pl's format: root;...;leaf weight). A
variant's profile says which share of its run each frame takes; the timed blocks say how long a
run takes (`T`: the figures the verdict shows, the baseline's geometric mean and the candidate's as
that times the paired ratio; the mean of the per-block values where nothing was compared). A frame's time
per run is its share times `T`, so that the samplers' own slowdown (callgrind's 50x) and rate
drop out, and the frames' self times add up to `T` exactly. Candidate minus baseline, frame by
frame, then adds up to the measured difference `T_c - T_b`: each frame's *share of the
difference* is its own difference over that one. A frame's self time counts the stacks it ends,
its total time the stacks it is on (once per stack, however deep its recursion).

With several profiling blocks, block k's candidate is paired with block k's baseline (they ran
next to each other, in the same interleaved order as the timed blocks) and the frame's difference
is estimated per pair: the figure shown is the mean over pairs, with a Student-t interval across
them (n - 1 degrees of freedom), so that a frame whose interval holds zero reads as noise rather
than a cause (Gregg, "Differential Flame Graphs", 2014; the per-block pairing is pairbench's own
randomized complete blocks, METHOD.md §1).

Frames are named as the sampler names them, with directories dropped from file names
("work (/a/b/x.py)" -> "work (x.py)") and py-spy's per-process frames removed, so that a baseline
and a candidate run from different checkouts share their frames.
"""

from __future__ import annotations

import math
import os
import re
import shlex
from collections import defaultdict
from typing import Iterable, Mapping, Sequence

from pairbench.analysis.replicates import replicate_values
from pairbench.model import Profile, Run
from pairbench.summaries import FrameDifference, ProfileDifference

__all__ = ["FrameDifference", "ProfileDifference", "parse_folded", "format_folded", "clean_frame", "clean_stacks",
           "frame_times", "difference", "script_alias", "rename_files", "differential_stacks", "variant_stacks",
           "profile_differences", "fill_profile_differences", "MIN_SAMPLES"]

TIME_METRICS = ("time", "server_cpu_per_req")
"""The time a profile is scaled to, by preference: a command's run; an HTTP server's CPU time per
request (what a profile of the server's process divides)."""
PER = {"command": "run", "micro": "op", "http": "request"}
"""What one value of each kind's time metric is of."""

MIN_SAMPLES = 20
"""Fewer samples than this in a variant's profiles (all blocks together) say too little: each
sample is then 5% or more of the run, so the table is replaced by a line asking for a longer run."""

_PROCESS_FRAME = re.compile(r'^process \d+:".*"$')
"""py-spy --subprocesses puts `process PID:"command line"` above each process's frames."""
_DIRECTORY = re.compile(r"\((?:[^()]*/)([^/()]*)\)")
_FILE = re.compile(r"\(([^()]*)\)$")
"""A cleaned frame's file: `work (x.py)` -> `x.py`."""


def clean_frame(frame: str) -> str:
    """A frame without its directories: `work (/src/x.py)` -> `work (x.py)`."""
    return _DIRECTORY.sub(r"(\1)", frame.strip())


def clean_stacks(stacks: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Stored stacks with their frames cleaned (`clean_frame`, process frames gone), empty ones dropped.

    An empty stack (py-spy's samples of a process outside Python) and a stack of process frames
    only carry no frame, so they are left out: shares are of the time some frame was seen in.
    """
    out: dict[str, float] = defaultdict(float)
    for stack, value in stacks:
        frames = [clean_frame(f) for f in stack.split(";") if f.strip() and not _PROCESS_FRAME.match(f.strip())]
        if frames and value > 0:
            out[";".join(frames)] += value
    return dict(out)


def script_alias(baseline: Sequence[Mapping[str, float]], candidate: Sequence[Mapping[str, float]],
                 baseline_command: str, candidate_command: str) -> dict[str, str]:
    """The one file each side's frames alone name that its own command names too (`python old.py`
    against `python new.py`) -> one shared name, `old.py→new.py`, so that their functions pair up.

    Without it every frame of the two scripts differs by file name alone and an unchanged function
    shows as a gain on one side and a loss on the other. Any other case (several such files, or
    none named on the command line) is left alone.
    """
    files_b, files_c = _files(baseline), _files(candidate)
    only_b = (files_b - files_c) & _words(baseline_command)
    only_c = (files_c - files_b) & _words(candidate_command)
    if len(only_b) != 1 or len(only_c) != 1:
        return {}
    (b,), (c,) = only_b, only_c
    return {b: f"{b}→{c}", c: f"{b}→{c}"}


def rename_files(stacks: Mapping[str, float], files: Mapping[str, str]) -> dict[str, float]:
    """Stacks with the file names of `files` (as `script_alias` gives) replaced in every frame."""
    if not files:
        return dict(stacks)

    def frame(f: str) -> str:
        m = _FILE.search(f)
        return f[:m.start(1)] + files[m.group(1)] + f[m.end(1):] if m and m.group(1) in files else f

    out: dict[str, float] = defaultdict(float)
    for stack, value in stacks.items():
        out[";".join(frame(f) for f in stack.split(";"))] += value
    return dict(out)


def _files(blocks: Sequence[Mapping[str, float]]) -> set[str]:
    return {m.group(1) for stacks in blocks for stack in stacks for f in stack.split(";") if (m := _FILE.search(f))}


def _words(command: str) -> set[str]:
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    return {os.path.basename(w) for w in words}


def parse_folded(text: str) -> dict[str, float]:
    """Folded stacks (`a;b;c 12` per line) -> {stack: weight}, cleaned as `clean_stacks` does."""
    pairs = []
    for line in text.splitlines():
        stack, _, weight = line.rstrip().rpartition(" ")
        try:
            pairs.append((stack, float(weight)))
        except ValueError:
            continue
    return clean_stacks(pairs)


def format_folded(stacks: Mapping[str, float]) -> str:
    """{stack: weight} -> folded text, one stack a line, heaviest first; whole weights as integers."""
    lines = []
    for stack, weight in sorted(stacks.items(), key=lambda kv: (-abs(kv[1]), kv[0])):
        text = str(int(weight)) if float(weight).is_integer() else f"{weight:.9g}"
        lines.append(f"{stack} {text}")
    return "\n".join(lines) + ("\n" if lines else "")


def frame_times(stacks: Mapping[str, float], seconds: float) -> tuple[dict[str, float], dict[str, float]]:
    """(self, total) seconds per frame: each stack's share of the weight, times `seconds`."""
    whole = sum(stacks.values())
    own: dict[str, float] = defaultdict(float)
    total: dict[str, float] = defaultdict(float)
    if whole <= 0:
        return {}, {}
    for stack, weight in stacks.items():
        part = weight / whole * seconds
        frames = stack.split(";")
        own[frames[-1]] += part
        for frame in set(frames):
            total[frame] += part
    return dict(own), dict(total)


def difference(baseline: Sequence[Mapping[str, float]], candidate: Sequence[Mapping[str, float]],
               baseline_s: float, candidate_s: float, confidence: float = 0.95,
               shares: bool = True) -> list[FrameDifference]:
    """Each frame's change, candidate minus baseline, from profiles paired block by block.

    Args:
        baseline, candidate: the folded stacks of each profiling block, in block order (paired by
            position; the shorter list sets the pairs).
        baseline_s, candidate_s: a run's measured time (the timed blocks').
        confidence: level of the per-frame interval across pairs.
        shares: give each frame its share of the difference (False: a difference within the noise,
            which a share would blow up).

    Returns:
        The frames whose self or total time changed, largest self change first.
    """
    pairs = list(zip(baseline, candidate))
    if not pairs:
        return []
    own: dict[str, list[float]] = defaultdict(lambda: [0.0] * len(pairs))
    total: dict[str, list[float]] = defaultdict(lambda: [0.0] * len(pairs))
    base_own: dict[str, float] = defaultdict(float)
    for k, (b, c) in enumerate(pairs):
        (b_own, b_total), (c_own, c_total) = frame_times(b, baseline_s), frame_times(c, candidate_s)
        for frame in set(b_own) | set(c_own):
            own[frame][k] = c_own.get(frame, 0.0) - b_own.get(frame, 0.0)
            base_own[frame] += b_own.get(frame, 0.0) / len(pairs)
        for frame in set(b_total) | set(c_total):
            total[frame][k] = c_total.get(frame, 0.0) - b_total.get(frame, 0.0)
    delta = candidate_s - baseline_s
    # a difference within 0.1% of the run is no difference to take shares of
    tiny = not shares or abs(delta) <= 1e-3 * max(abs(baseline_s), abs(candidate_s), 1e-300)
    frames = []
    for frame in set(own) | set(total):
        self_s, total_s = _mean(own.get(frame, [0.0])), _mean(total.get(frame, [0.0]))
        if self_s == 0.0 and total_s == 0.0:
            continue
        interval = _interval(own.get(frame, []), confidence)
        frames.append(FrameDifference(
            frame=frame, self_s=self_s, total_s=total_s,
            self_share=None if tiny else self_s / delta, total_share=None if tiny else total_s / delta,
            interval=interval, baseline_s=base_own.get(frame, 0.0),
            noise=interval is not None and interval[0] <= 0.0 <= interval[1]))
    frames.sort(key=lambda f: (-abs(f.self_s), f.frame))
    return frames


def differential_stacks(baseline: Sequence[Mapping[str, float]], candidate: Sequence[Mapping[str, float]],
                        baseline_s: float, candidate_s: float) -> dict[str, float]:
    """Each stack's change in seconds per run, candidate minus baseline (pooled over blocks).

    The differential flame graph's input: a stack's width is the time it takes in the candidate,
    its colour the sign of its change (`variant_stacks` gives the widths).
    """
    b, c = variant_stacks(baseline, baseline_s), variant_stacks(candidate, candidate_s)
    return {s: c.get(s, 0.0) - b.get(s, 0.0) for s in set(b) | set(c) if c.get(s, 0.0) != b.get(s, 0.0)}


def variant_stacks(blocks: Sequence[Mapping[str, float]], seconds: float) -> dict[str, float]:
    """A variant's stacks in seconds per run: each block's shares times `seconds`, averaged over blocks."""
    out: dict[str, float] = defaultdict(float)
    for stacks in blocks:
        whole = sum(stacks.values())
        for stack, weight in stacks.items():
            if whole > 0:
                out[stack] += weight / whole * seconds / len(blocks)
    return dict(out)


def profile_differences(run: Run, confidence: float = 0.95) -> list[ProfileDifference]:
    """Every candidate's differential profile against the baseline, per profiled benchmark."""
    out: list[ProfileDifference] = []
    by_key: dict[tuple[str, str], list[Profile]] = defaultdict(list)
    for p in run.profiles:
        by_key[(p.benchmark, p.variant)].append(p)
    base = run.baseline.name
    for bench in run.benchmarks:
        if (bench.name, base) not in by_key:
            continue
        metric = _time_metric(run, bench.name)
        if metric is None:
            continue
        unit = bench.metric(metric).unit
        means = _means(run, bench.name, metric)
        # the figures the verdict shows (the baseline's, and the candidate's as baseline x the paired
        # ratio) where compared: less noisy than two separate means, and the table's own numbers
        shown = {c.candidate: c for c in run.comparisons
                 if c.benchmark == bench.name and c.metric == metric and c.baseline_value and c.candidate_value}
        b_profiles = _ordered(by_key[(bench.name, base)])
        for variant in run.variants:
            c_profiles = _ordered(by_key.get((bench.name, variant.name), []))
            if variant.name == base or not c_profiles or base not in means or variant.name not in means:
                continue
            compared = shown.get(variant.name)
            significant = compared is None or compared.verdict in ("faster", "slower")
            base_s, cand_s = ((compared.baseline_value, compared.candidate_value) if compared is not None
                              else (means[base], means[variant.name]))
            b_stacks = [clean_stacks(p.stacks) for p in b_profiles]
            c_stacks = [clean_stacks(p.stacks) for p in c_profiles]
            files = script_alias(b_stacks, c_stacks, run.baseline.command, variant.command)
            b_stacks = [rename_files(s, files) for s in b_stacks]
            c_stacks = [rename_files(s, files) for s in c_stacks]
            weights = (sum(sum(s.values()) for s in b_stacks), sum(sum(s.values()) for s in c_stacks))
            short = b_profiles[0].unit == "samples" and min(weights) < MIN_SAMPLES
            out.append(ProfileDifference(
                benchmark=bench.name, baseline=base, candidate=variant.name, sampler=b_profiles[0].sampler,
                metric=metric, baseline_s=base_s, candidate_s=cand_s,
                frames=tuple(difference(b_stacks, c_stacks, base_s, cand_s, confidence, shares=significant)),
                blocks=min(len(b_stacks), len(c_stacks)), samples=weights, too_short=short,
                unit=unit, per=PER.get(bench.kind, "run"), significant=significant, files=files))
    return out


def fill_profile_differences(run: Run) -> None:
    """A run read from a file written before the differences were stored (`profiles` without
    `profile_differences`) gets them once, as the analysis would have stored them."""
    if run.profiles and not run.profile_differences:
        given = run.metadata.get("options")
        confidence = given.get("confidence", 0.95) if isinstance(given, dict) else 0.95
        run.profile_differences = profile_differences(run, float(confidence))


def _ordered(profiles: Iterable[Profile]) -> list[Profile]:
    return sorted(profiles, key=lambda p: p.block)


def _time_metric(run: Run, benchmark: str) -> str | None:
    """The benchmark's time metric (TIME_METRICS, else the first in seconds: micro's `time_per_op`),
    else its primary metric (an instruction count)."""
    metrics = run.benchmark(benchmark).metrics
    names = [m.name for m in metrics]
    for preferred in TIME_METRICS:
        if preferred in names:
            return preferred
    timed = [m.name for m in metrics if m.unit == "s" and m.direction == "lower"]
    return timed[0] if timed else (names[0] if names else None)


def _means(run: Run, benchmark: str, metric: str) -> dict[str, float]:
    """A run's value per variant: the mean of its per-block values."""
    return {variant: sum(blocks.values()) / len(blocks)
            for variant, blocks in replicate_values(run, benchmark, metric).items() if blocks}


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _interval(values: Sequence[float], confidence: float) -> tuple[float, float] | None:
    """Student-t interval of the mean of `values` (None with fewer than two)."""
    n = len(values)
    if n < 2:
        return None
    from pairbench.stats._dist import t_ppf

    mean = _mean(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t_ppf(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)
    return mean - half, mean + half
