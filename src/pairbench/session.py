"""Wires a Run through the plan, the runners, the statistics and the run file.

The session owns the order of measurement (randomized complete blocks, warm-ups first), the time budget and
adaptive stopping, and the run file, saved after every replicate (one journal line, store/runwriter.py) so that an
interrupted, failed or killed run keeps every sample. Adaptive stopping looks at the data only at a few pre-planned
block counts and widens each look's CI (Bonferroni across looks, METHOD.md §5), so stopping early keeps its error rate.
"""

from __future__ import annotations

import dataclasses
import math
import os
import random
import time
from pathlib import Path
from typing import Callable, Mapping, Protocol

from pairbench import interrupts
from pairbench.budget import Budget
from pairbench.errors import BenchmarkFailed, Interrupted, UserError
from pairbench.machine import machine_notices
from pairbench.model import Metric, Notice, Run, Sample
from pairbench.plan import Step, plan_block
from pairbench.run_settings import DEFAULT_BOUND_S, RunOptions
from pairbench.runners.base import Replicate, Runner
from pairbench.runners.profiling import ProfilingBlocks
from pairbench.store.runwriter import RunWriter

__all__ = ["RunOptions", "Observer", "execute", "default_run_path", "finish_analysis", "DEFAULT_BOUND_S"]

# With --max-time and no --max-runs, never plan more blocks than this.
ADAPTIVE_MAX_BLOCKS = 5000



class Observer(Protocol):
    """Receives progress; the terminal progress bar implements it."""

    def started(self, run: Run, planned_blocks: int, steps_per_block: int) -> None: ...
    def step_done(self, step: Step, replicate: Replicate, warmup: bool) -> None: ...
    def block_done(self, run: Run, blocks_done: int, planned_blocks: int) -> None: ...
    def status(self, text: str) -> None: ...
    def finished(self, run: Run) -> None: ...


class _Silent:
    def started(self, run: Run, planned_blocks: int, steps_per_block: int) -> None: ...
    def step_done(self, step: Step, replicate: Replicate, warmup: bool) -> None: ...
    def block_done(self, run: Run, blocks_done: int, planned_blocks: int) -> None: ...
    def status(self, text: str) -> None: ...
    def finished(self, run: Run) -> None: ...


def default_run_path() -> Path:
    """Where a run file goes when --export-json is not given."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "pairbench" / "runs"
    base.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return base / f"{stamp}-{os.getpid()}.json"


def finish_analysis(run: Run, options: RunOptions, looks: int = 1) -> None:
    """Fill the run's comparisons, sweep tables, suite summaries and analysis notices from its samples.

    `looks` is the number of planned interim analyses (adaptive stopping); each CI is widened for it.
    Everything a report shows is computed here once and stored in the run (and its file).
    """
    from pairbench import analysis
    from pairbench.stats.bootstrap import release_resamples

    run.steady_states = analysis.classify_processes(run, options.threshold / 100.0)
    comparisons, notices = analysis.analyze(
        run, threshold=options.threshold / 100.0, confidence=options.confidence, looks=looks,
        correction=options.correction,
    )
    run.comparisons = list(comparisons)
    run.sweeps = analysis.sweep_tables(run, comparisons)
    run.summaries = (analysis.suite_summary(run, comparisons, confidence=options.confidence)
                     if len(run.benchmarks) > 1 else [])
    run.profile_differences = (analysis.profile_differences(run, confidence=options.confidence)
                               if run.profiles else [])  # without --profile its module is not loaded
    notices = list(notices) + analysis.steady_state_notices(run)
    release_resamples()
    kept = [n for n in run.notices if not n.kind.startswith("stats:")]
    run.notices = kept + [dataclasses.replace(n, kind=f"stats:{n.kind}") for n in notices]


def _add_new_metrics(run: Run, samples: list[Sample]) -> None:
    """Metrics a command printed about itself (JSON lines) join its benchmark's metric list."""
    for i, bench in enumerate(run.benchmarks):
        known = {m.name for m in bench.metrics}
        new = []
        for s in samples:
            if s.benchmark == bench.name and s.metric not in known:
                known.add(s.metric)
                higher = s.metric.endswith(("_per_s", "_rate", "throughput", "ips"))
                new.append(Metric(s.metric, "", "higher" if higher else "lower", description="printed by the program"))
        if new:
            run.benchmarks[i] = dataclasses.replace(bench, metrics=bench.metrics + tuple(new))


def execute(
    run: Run,
    runners: Mapping[str, Runner],
    options: RunOptions,
    observer: Observer | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Run:
    """Measure every benchmark of `run` under every variant, then analyse; returns the same Run.

    Raises:
        UserError: bad input found while preparing; BenchmarkFailed: a benchmark could not be
        measured (the run file keeps what was measured); Interrupted: Ctrl-C (likewise).
    """
    obs: Observer = observer or _Silent()
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**31)
    rng = random.Random(seed)
    path = Path(options.export_json) if options.export_json else default_run_path()
    writer = RunWriter(path)
    where = writer.target.label  # the path, or "standard output" for `--export-json -`
    run.metadata.update({"seed": seed, "run_file": where, "options": dataclasses.asdict(options)})
    run.notices.extend(machine_notices(run.metadata))
    for bench in run.benchmarks:
        if bench.kind not in runners:
            raise UserError(f"benchmark {bench.name!r}: no runner for kind {bench.kind!r}")
    variant_names = [v.name for v in run.variants]
    bench_names = [b.name for b in run.benchmarks]
    start = clock()
    blocks_done = 0
    n_looks = 1
    live = dict(runners)
    profiling = ProfilingBlocks(options.profile)
    # the profiling blocks' order comes from a random source of their own: the timed plan is the
    # same with or without --profile
    profile_rng = random.Random(f"{seed}-profile")
    profile_previous: dict[str, list[str]] = {}
    try:
        _save(writer, run)
        for bench in run.benchmarks:
            obs.status(f"preparing {bench.name}")
            run.notices.extend(runners[bench.kind].prepare(bench, list(run.variants)))
        planned = options.runs
        steps = len(variant_names) * len(bench_names)
        budget = Budget(options.max_time, options.runs, steps, start, default_bound=options.default_bound)
        obs.started(run, planned, steps)
        for w in range(options.warmup):
            for i, step in enumerate(plan_block(bench_names, variant_names, -1 - w, rng, {})):
                _measure_within(budget, clock, run, runners, step, True, obs,
                                (options.warmup - w) * steps - i - 1 + options.runs * steps)
                _save(writer, run)

        # --max-runs alone (hyperfine's -M) stops adaptively too, bounded by blocks instead of time
        # by default too, unless there is nothing to settle (one variant: hyperfine's figures only)
        adaptive = options.max_time is not None or options.max_runs is not None \
            or (options.default_bound is not None and len(variant_names) > 1)
        looks: list[int] = [options.runs]
        previous: dict[str, list[str]] = {}
        plan_cost = 0.0
        """Seconds of a block the adaptive plan was made from."""
        first_steps: dict[str, float] = {}
        """Wall seconds of each variant's steps in the first block: prepare, run and conclude."""
        stop = "fixed"
        while True:
            block_start = clock()
            for i, step in enumerate(plan_block(bench_names, variant_names, blocks_done, rng, previous)):
                step_start = clock()
                if blocks_done == 0 and adaptive:
                    _measure_within(budget, clock, run, runners, step, False, obs, (options.runs * steps) - i - 1)
                else:
                    _measure(run, runners, step, False, obs)
                if blocks_done == 0:
                    first_steps[step.variant] = first_steps.get(step.variant, 0.0) + clock() - step_start
                _save(writer, run)  # one journal line: a crash loses at most the replicate in flight
            blocks_done += 1
            block_end = clock()
            budget.block_costs.append(block_end - block_start)
            if blocks_done == 1 and options.min_time is not None:
                options = _minimum_for_time(options, run, block_end - block_start, steps, first_steps,
                                            None if options.max_time is None else options.max_time - (block_end - start))
                planned = planned if adaptive else options.runs
            if adaptive and blocks_done == 1:
                budget.check_minimum(block_end, (options.runs - 1) * steps)
                plan_cost = budget.block_estimate()
                looks, planned = _plan_adaptive(run, options, start, block_end, plan_cost)
                n_looks = len(looks)
            elif adaptive and _cheaper(budget.block_costs, plan_cost) and not (options.stop_early and looks[0] < blocks_done):
                # The first block carries one-off work (micro's allocation pass, cold caches), and a
                # runner may plan cheaper blocks after a pilot (micro's samples per process): plan
                # again, before any look, so the bound is not a third used. Only the costs decide,
                # never the data, so the looks' error rate is unchanged.
                plan_cost = budget.block_costs[-1]
                looks, planned = _plan_adaptive(run, options, start + budget.excluded_s, block_end, plan_cost)
                n_looks = len(looks)
            obs.block_done(run, blocks_done, planned)
            if profiling.left:
                _profile_block(run, runners, profiling, profile_rng, profile_previous, obs, budget, clock)
            if blocks_done >= planned:
                stop = "planned" if adaptive else "fixed"
                break
            if adaptive:
                if options.stop_early and blocks_done in looks and blocks_done >= options.runs:
                    # an interim analysis takes time too: the last one's cost, plus a block, must fit
                    look_start = clock()
                    if not budget.next_block_fits(look_start, budget.look_cost):
                        stop = "budget"
                        break
                    finish_analysis(run, options, n_looks)
                    budget.look_cost = clock() - look_start
                    if _all_decided(run):
                        stop = "settled"
                        break
                # the default bound never cuts the -r minimum short; --max-time does (said in the note)
                past_minimum = options.max_time is not None or blocks_done >= options.runs
                if past_minimum and not budget.next_block_fits(clock()):
                    stop = "budget"
                    break
        while profiling.left:  # a run that stopped before its profiling blocks were done
            _profile_block(run, runners, profiling, profile_rng, profile_previous, obs, budget, clock)
        end = clock()
        _close(live)  # inside the run: a failing cleanup fails it as a failed measurement does, samples kept
        reason = budget.stop_reason(end, blocks_done, stop, planned)
        run.metadata["blocks"] = blocks_done
        run.metadata["elapsed_s"] = end - start
        run.metadata["stop"] = stop
        finish_analysis(run, options, n_looks)
        if adaptive and stop in ("settled", "planned"):
            reason += f"; {_settled_report(run)}"  # say which comparisons settled, not "every"
        run.notices.append(Notice({"settled": "adaptive", "fixed": "stop"}.get(stop, "budget"), reason))
        run.status = "complete"
        _save(writer, run)
    except KeyboardInterrupt as exc:
        # SIGINT, SIGTERM or SIGHUP (pairbench.interrupts): from here on further signals are only
        # counted, so stopping the children, the analysis and the run file are never cut off.
        interrupts.shield()
        _close(live)
        _stop(run, options, n_looks, writer, "interrupted", blocks_done)
        signum = interrupts.first_signal() or getattr(exc, "signum", None)
        raise Interrupted(
            f"interrupted by {interrupts.signal_name(signum)} after {_plural(blocks_done, 'complete block')}; "
            f"{_plural(len(run.samples), 'sample')} kept in {where}"
        ) from None
    except BenchmarkFailed as exc:
        _stop(run, options, n_looks, writer, "failed", blocks_done)
        raise BenchmarkFailed(f"{exc} ({_plural(len(run.samples), 'sample')} kept in {where})") from None
    except Exception:
        # A user error found mid-run, or a bug: the file still gets every sample measured, and the
        # error goes on unchanged.
        try:
            _stop(run, options, n_looks, writer, "failed", blocks_done)
        except Exception:  # noqa: BLE001 - the original error matters more
            pass
        raise
    finally:
        _close(live)
    _record_history(run, options)
    _save(writer, run, final=True)  # after the history, to keep its warning in the run file too
    obs.finished(run)
    return run


def _all_decided(run: Run) -> bool:
    """analysis.settled for each kind's comparisons, with that kind's secondary metrics left out."""
    from pairbench.analysis import settled
    from pairbench.runners.kinds import secondary_metrics

    kind_of = {b.name: b.kind for b in run.benchmarks}
    kinds = {kind_of.get(c.benchmark, "") for c in run.comparisons}
    return bool(kinds) and all(
        settled(dataclasses.replace(run, comparisons=[c for c in run.comparisons if kind_of.get(c.benchmark, "") == k]),
                secondary_metrics(k))
        for k in kinds
    )


REPLAN_SHARE = 0.9
"""A block before the first look is cheaper, and plans again, when it costs under this share of the
block the plan was made from: after the first, a 10% drop (micro's samples per process halved cut a
block by a third); one-off noise at a block of its own moves a plan by less."""


def _cheaper(costs: list[float], plan_cost: float) -> bool:
    """Whether the last block is cheaper than the one the plan was made from: any drop on the second
    block (the first carries one-off work), a drop of 1 - REPLAN_SHARE later."""
    if len(costs) < 2:
        return False
    return costs[-1] < plan_cost * (1.0 if len(costs) == 2 else REPLAN_SHARE)


def _settled_report(run: Run) -> str:
    """analysis.settled_report, with the command runner's secondary metrics set apart."""
    from pairbench.analysis import settled_report
    from pairbench.runners.command import SECONDARY_METRICS

    return settled_report(run, SECONDARY_METRICS)


def _minimum_for_time(options: RunOptions, run: Run, block_seconds: float, steps: int,
                      step_seconds: Mapping[str, float], time_left: float | None) -> RunOptions:
    """`options` with -r raised so that each variant is benchmarked for --min-benchmarking-time.

    Judged from the first block, on what a run costs as hyperfine counts it: a variant's steps
    there, its --prepare and --conclude commands and the shell's start included (`step_seconds`),
    or its measured time when that is longer (scripted runs take no wall time), the fastest variant
    setting the count; never above -M, nor beyond what --max-time (`time_left` after the first
    block) still affords.
    """
    measured: dict[str, float] = {}
    for sample in run.samples:
        if sample.block == 0 and not sample.warmup and sample.metric == "time":
            measured[sample.variant] = measured.get(sample.variant, 0.0) + sample.value
    measured = {v: max(measured.get(v, 0.0), step_seconds.get(v, 0.0)) for v in {*measured, *step_seconds}}
    per_block = min(measured.values()) if measured else block_seconds / max(steps, 1)
    needed = math.ceil((options.min_time or 0.0) / max(per_block, 1e-9))
    if time_left is not None:
        needed = min(needed, 1 + int(max(time_left, 0.0) * 0.9 / max(block_seconds, 1e-9)))
    runs = max(options.runs, min(needed, options.max_runs or needed))
    return dataclasses.replace(options, runs=runs)


def _plan_adaptive(run: Run, options: RunOptions, start: float, now: float,
                   block_seconds: float) -> tuple[list[int], int]:
    """The block counts at which to look, and the most blocks, fixed once the cost of a block is
    known (recorded in the run's metadata)."""
    from pairbench.stats.sequential import look_confidence, plan_looks

    cap = options.max_runs or ADAPTIVE_MAX_BLOCKS
    bound = options.max_time if options.max_time is not None else options.default_bound
    if bound is None:
        affordable = cap
    else:
        remaining = max(bound - (now - start), 0.0)
        affordable = 1 + int(remaining / max(block_seconds, 1e-6))
    max_blocks = max(options.runs, min(cap, affordable))
    looks = plan_looks(options.runs, max_blocks)
    run.metadata["adaptive"] = {"looks": looks, "look_confidence": look_confidence(options.confidence, len(looks))}
    return looks, max_blocks


def _measure_within(budget: Budget, clock: Callable[[], float], run: Run, runners: Mapping[str, Runner],
                    step: Step, warmup: bool, obs: Observer, steps_left: int) -> None:
    """Measure one of the first replicates and, with --max-time, stop at once if the minimum cannot fit.

    A runner that measures a whole block of a variant in its first step (`batched = True`: one
    pytest process runs every test) is judged by its first block's cost instead, as one step's
    cost would stand for the block's."""
    if budget.max_time is None or getattr(runners[run.benchmark(step.benchmark).kind], "batched", False):
        _measure(run, runners, step, warmup, obs)
        return
    before = clock()
    _measure(run, runners, step, warmup, obs)
    after = clock()
    budget.step_costs.append(after - before)
    budget.check_minimum(after, steps_left)


def _measure(run: Run, runners: Mapping[str, Runner], step: Step, warmup: bool, obs: Observer) -> None:
    bench = run.benchmark(step.benchmark)
    variant = next(v for v in run.variants if v.name == step.variant)
    replicate = runners[bench.kind].measure(bench, variant, step.block, warmup, obs.status)
    run.samples.extend(replicate.samples)
    run.notices.extend(replicate.notices)
    if replicate.series is not None and not warmup:
        run.series.append(replicate.series)
    _add_new_metrics(run, replicate.samples)
    obs.step_done(step, replicate, warmup)


def _profile_block(run: Run, runners: Mapping[str, Runner], profiling: ProfilingBlocks, rng: random.Random,
                   previous: dict[str, list[str]], obs: Observer, budget: Budget, clock: Callable[[], float]) -> None:
    """One profiling block, in an interleaved order of its own (runners/profiling.py), outside the budget."""
    steps = plan_block([b.name for b in run.benchmarks], [v.name for v in run.variants], profiling.done, rng, previous)
    began = clock()
    profiling.run_block(run, runners, [(s.benchmark, s.variant) for s in steps], obs.status)
    budget.excluded_s += clock() - began


def _close(live: dict[str, Runner]) -> None:
    """Stop every runner's children, once: each closed runner leaves `live`."""
    while live:
        live.popitem()[1].close()


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _stop(run: Run, options: RunOptions, n_looks: int, writer: RunWriter, status: str, blocks_done: int) -> None:
    run.status = status
    run.metadata["blocks"] = blocks_done
    if blocks_done >= 2:
        try:
            finish_analysis(run, options, n_looks)
        except Exception:  # noqa: BLE001 - a partial analysis must never lose the samples
            pass
    _save(writer, run, final=True)


def _save(writer: RunWriter, run: Run, final: bool = False) -> None:
    """Save the run so far; `final` once it has ended (a FIFO or a device takes only that write)."""
    try:
        writer.finish(run) if final else writer.write(run)
    except OSError as exc:
        raise UserError(f"cannot write the run file {writer.path}: {exc.strerror}") from None


def _record_history(run: Run, options: RunOptions) -> bool:
    """Record the run in the history store; True when that failed and a notice was added."""
    if not options.record_history:
        return False
    from pairbench.store.history import record_run

    return record_run(run, options.history) is not None
