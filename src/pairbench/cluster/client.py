"""A suite on Dask distributed: one work unit per benchmark, one unit per machine at a time.

The scheduling is Dask's; what is ours are the rules that keep the answers valid. Each unit asks
for the worker resource `bench=1`, so a machine whose worker was started with `--resources
bench=1` never runs two units at once (they would share its cores). A unit is measured whole on
one machine, and its result is all or nothing: a worker that dies mid-unit has its unit rerun
elsewhere by the scheduler, and its partial samples never arrive. Each finished unit goes into
the run file and the history store at once, so a crash of this client loses nothing finished.

A stop (Ctrl-C, SIGTERM, SIGHUP on this client) is passed to the units through a Dask Event: each
running unit stops like a local run stopped by a signal and hands back the blocks it finished,
which are merged, analysed and saved with the run's status "interrupted"; units not started yet
return at once with nothing.
"""

from __future__ import annotations

import dataclasses
import random
import time
from dataclasses import dataclass, field
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from pairbench import interrupts
from pairbench.cluster.connection import CONNECT_TIMEOUT_S, RESOURCE, cluster_workers, connect, first_line
from pairbench.cluster.units import (
    ClusterOptions,
    UnitResult,
    agreement_notices,
    failed_notice,
    merge_unit,
    split_units,
    unit_payload,
)
from pairbench.errors import Interrupted, UserError
from pairbench.model import Run, WorkUnit
from pairbench.store.runwriter import RunWriter

if TYPE_CHECKING:
    from pairbench.session import RunOptions

__all__ = ["execute_on_cluster", "CONNECT_TIMEOUT_S"]

STOP_WAIT_S = 60.0
"""Longest wait, after a stop, for the running units to hand back their finished blocks."""
HURRY_WAIT_S = 15.0
"""The same after a second signal: the units kill their children at once (the worker allows 5 s)."""
POLL_S = 0.2


def execute_on_cluster(run: Run, options: RunOptions, cluster: ClusterOptions, *,
                       fake: tuple[float, ...] | None = None, say: Callable[[str], None] | None = None) -> Run:
    """Measure every benchmark of `run` on the cluster, then analyse; returns `run`.

    `cluster.address` is a scheduler (`tcp://host:8786`) or `local:N` for N worker
    processes on this machine; with `cluster.each_machine` every benchmark is measured on every
    worker and compared per machine. Raises UserError when Dask is missing or the scheduler cannot
    be reached (before anything runs), Interrupted on Ctrl-C (finished units
    and the finished blocks of running ones kept).
    """
    address = cluster.address
    from pairbench.session import default_run_path, finish_analysis

    tell = say or (lambda text: print(text, file=sys.stderr, flush=True))
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**31)
    path = Path(options.export_json) if options.export_json else default_run_path()
    writer = RunWriter(path)
    run.metadata.update({"seed": seed, "run_file": writer.target.label, "options": dataclasses.asdict(options),
                         "cluster": address})
    units = split_units(run, seed)
    with connect(address) as client:
        workers = cluster_workers(client, address)
        tell(f"cluster {address}: {len(workers)} worker{'s' if len(workers) != 1 else ''} "
             f"({', '.join(sorted(workers.values()))}); {len(units)} units")
        places: list[str | None] = list(workers) if cluster.each_machine else [None]
        unit_options = _unit_options(options, len(units), 1 if cluster.each_machine else len(workers))
        payloads = {u.index: unit_payload(u, unit_options, fake, cluster.cache_dir) for u in units}
        _save(writer, run)
        status = "complete"
        submitted = _Submitted()
        try:
            _gather(client, [(u, w) for u in units for w in places], payloads, run, options, writer, tell, workers,
                    submitted)
        except KeyboardInterrupt:
            # SIGINT, SIGTERM or SIGHUP: from here on signals are only counted (a second one hurries
            # the units' stop), so what the units hand back is merged, analysed and saved whole.
            interrupts.shield()
            status = "interrupted"
            _collect_stopped(client, submitted, run, options, writer, tell)
        finally:
            _cancel(client, submitted)
    if cluster.each_machine:  # the per-machine benchmarks replace the suite's, in the suite's order
        origin = run.metadata.get("per_machine", {})
        run.benchmarks = sorted((b for b in run.benchmarks if b.name in origin),
                                key=lambda b: ([u.benchmark.name for u in units].index(origin[b.name][0]), b.name))
    looks = max(run.metadata.get("unit_looks", {}).values(), default=1)
    if run.samples:
        try:
            finish_analysis(run, options, looks)
        except Exception:  # noqa: BLE001 - after a stop a partial analysis must never lose the samples
            if status != "interrupted":
                raise
    if cluster.each_machine:
        origin = {k: (v[0], v[1]) for k, v in run.metadata.get("per_machine", {}).items()}
        run.notices.extend(agreement_notices(run.comparisons, origin))
    run.notices.append(_machines_notice(run))
    run.status = status
    _save(writer, run, final=True)
    if status == "interrupted":
        raise Interrupted(_stopped_message(run, len(units) * len(places), writer.target.label))
    return run


def _unit_options(options: RunOptions, n_units: int, n_workers: int) -> dict[str, Any]:
    """Each unit's options: the run's, with --max-time shared out over the units a worker runs in turn."""
    fields = dataclasses.asdict(options)
    for key in ("export_json", "history", "record_history", "seed"):
        fields.pop(key, None)
    if options.max_time is not None:
        rounds = -(-n_units // max(1, min(n_workers, n_units)))
        fields["max_time"] = options.max_time / rounds
    return fields


def _gather(client: Any, placed: list[tuple[WorkUnit, str | None]], payloads: dict[int, dict[str, Any]], run: Run,
            options: RunOptions, writer: RunWriter, tell: Callable[[str], None], workers: dict[str, str],
            submitted: _Submitted) -> None:
    """Submit every unit (to any worker, or to the one named), then take each result as it finishes."""
    import uuid

    from distributed import Event, as_completed

    from pairbench.cluster.worker import run_unit

    tag = uuid.uuid4().hex[:8]
    names = {"stop_event": f"pairbench-stop-{tag}", "hurry_event": f"pairbench-hurry-{tag}"}
    submitted.stop = Event(names["stop_event"], client=client)
    submitted.hurry = Event(names["hurry_event"], client=client)
    submitted.per_machine = any(w for _, w in placed)
    for u, worker in placed:
        where = {"workers": [worker], "allow_other_workers": False} if worker else {}
        key = f"pairbench-{tag}-{u.index}-{u.benchmark.name}" + (f"-{workers[worker]}" if worker else "")
        fut = client.submit(run_unit, {**payloads[u.index], **names}, key=key,
                            resources={RESOURCE: 1}, pure=False, retries=0 if worker else 1, **where)
        submitted.by_key[fut.key] = u
        submitted.futures.append(fut)
    done = run.metadata.setdefault("machines_done", [])
    for fut in as_completed(list(submitted.futures)):
        unit = submitted.by_key[fut.key]
        submitted.taken.add(fut.key)  # before merging: a stop mid-merge must not merge it twice
        try:
            result: UnitResult = fut.result()
        except Exception as exc:  # noqa: BLE001 - a lost worker twice, or an error in the task itself
            run.notices.append(failed_notice(unit.benchmark.name, "", f"{type(exc).__name__}: {first_line(exc)}"))
            tell(f"unit {unit.benchmark.name} failed: {first_line(exc)}")
            continue
        _take(run, unit, result, options, tell, submitted.per_machine)
        done.append(unit.benchmark.name)
        _save(writer, run)
        tell(_progress(client, submitted.by_key, done, workers))


def _collect_stopped(client: Any, submitted: _Submitted, run: Run, options: RunOptions, writer: RunWriter,
                     tell: Callable[[str], None]) -> None:
    """Stop the units and take the finished blocks each hands back, within STOP_WAIT_S.

    A unit not started yet returns at once with nothing; a running one stops like a Ctrl-C'd run
    and returns its run file (every finished block, status "interrupted"). A second signal tells
    the units to hurry (no grace period for their children) and shortens the wait to HURRY_WAIT_S.
    """
    from distributed import wait

    pending = [f for f in submitted.futures if f.key not in submitted.taken]
    if not pending:
        return
    _set(submitted.stop)
    tell(f"stopping: waiting for the running units to hand back their finished blocks "
         f"(at most {STOP_WAIT_S:g} s; press Ctrl-C again to hurry)")
    deadline = time.monotonic() + STOP_WAIT_S
    hurried = False
    while pending and time.monotonic() < deadline:
        if not hurried and interrupts.hurried():
            hurried = True
            _set(submitted.hurry)
            deadline = min(deadline, time.monotonic() + HURRY_WAIT_S)
        try:
            wait(pending, timeout=POLL_S, return_when="FIRST_COMPLETED")
        except Exception:  # noqa: BLE001 - a timeout (the name of its class varies), or the scheduler gone
            pass
        for fut in [f for f in pending if f.done()]:
            pending.remove(fut)
            submitted.taken.add(fut.key)
            _take_stopped(run, submitted.by_key[fut.key], fut, options, tell, submitted.per_machine)
            _save(writer, run)


def _take_stopped(run: Run, unit: WorkUnit, fut: Any, options: RunOptions, tell: Callable[[str], None],
                  per_machine: bool) -> None:
    """A unit's result after the stop: finished, stopped with its blocks, or never started."""
    if fut.status != "finished":
        return  # cancelled, or lost with its worker: nothing to take
    try:
        result: UnitResult = fut.result()
    except Exception:  # noqa: BLE001 - an error in the task itself while stopping: nothing to take
        return
    if result.run_file is None:
        return  # not started when the stop came
    kept = _take(run, unit, result, options, tell, per_machine, stopping=True)
    if kept == "finished":
        run.metadata.setdefault("machines_done", []).append(unit.benchmark.name)
    elif kept == "stopped":
        run.metadata.setdefault("units_stopped", []).append(unit.benchmark.name)


def _stopped_message(run: Run, n_units: int, where: str) -> str:
    done = len(run.metadata.get("machines_done", []))
    stopped = len(run.metadata.get("units_stopped", []))
    blocks = [run.metadata.get("unit_stops", {}).get(b, {}).get("blocks") or 0
              for b in run.metadata.get("units_stopped", [])]
    cancelled = n_units - done - stopped
    parts = [f"{done} of {n_units} unit{'s' if n_units != 1 else ''} finished"]
    if stopped:
        parts.append(f"{stopped} stopped after {_blocks_text(blocks)}")
    if cancelled > 0:
        parts.append(f"{cancelled} cancelled")
    samples = len(run.samples)
    return (f"interrupted by {interrupts.signal_name(interrupts.first_signal())}: {', '.join(parts)}; "
            f"{samples} sample{'s' if samples != 1 else ''} kept in {where}")


def _blocks_text(blocks: list[int]) -> str:
    if len(set(blocks)) == 1:
        return f"{blocks[0]} complete block{'s' if blocks[0] != 1 else ''}" + (" each" if len(blocks) > 1 else "")
    return f"{min(blocks)} to {max(blocks)} complete blocks"


def _set(event: Any) -> None:
    try:
        if event is not None:
            event.set()
    except Exception:  # noqa: BLE001 - the scheduler may be gone already
        pass


def _take(run: Run, unit: WorkUnit, result: UnitResult, options: RunOptions, tell: Callable[[str], None],
          per_machine: bool = False, stopping: bool = False) -> str:
    """Merge one unit's run file, record it in the history; a unit that failed becomes a notice.

    Returns "finished", "stopped" (`stopping`: the unit handed back the blocks it finished before
    the stop; they are analysed, not recorded in the history, as a local run stopped early) or
    "failed".
    """
    from pairbench.errors import RunFileError
    from pairbench.store.history import record_run
    from pairbench.store.runfile import loads_run

    if result.run_file is None:
        run.notices.append(failed_notice(unit.benchmark.name, result.machine, result.error or
                                         f"exit status {result.returncode}"))
        return "failed"
    try:
        unit_run = loads_run(result.run_file, source=f"the run file of {unit.benchmark.name} from {result.machine}")
    except RunFileError as exc:
        run.notices.append(failed_notice(unit.benchmark.name, result.machine, f"its run file is damaged: {exc}"))
        return "failed"
    stopped = stopping and unit_run.status != "complete"
    if stopped:
        unit_run = dataclasses.replace(unit_run, status="interrupted")
    merged = merge_unit(run, unit_run, result.machine, per_machine)
    if per_machine:
        run.metadata.setdefault("per_machine", {})[merged.benchmarks[0].name] = [unit.benchmark.name, result.machine]
    if stopped:
        tell(f"unit {unit.benchmark.name}: {len(merged.samples)} samples from {result.machine} (stopped)")
        return "stopped"
    if result.returncode != 0:
        run.notices.append(failed_notice(unit.benchmark.name, result.machine, result.error or
                                         f"exit status {result.returncode}"))
    if options.record_history and merged.samples:
        record_run(dataclasses.replace(merged, metadata={**merged.metadata, "cluster": run.metadata.get("cluster")}),
                   options.history)
    tell(f"unit {unit.benchmark.name}: {len(merged.samples)} samples from {result.machine}")
    return "finished" if result.returncode == 0 else "failed"


def _progress(client: Any, by_key: dict[str, WorkUnit], done: list[str], workers: dict[str, str]) -> str:
    running = []
    try:
        for addr, keys in client.processing().items():
            running += [f"{by_key[k].benchmark.name} on {workers.get(addr, addr)}" for k in keys if k in by_key]
    except Exception:  # noqa: BLE001 - progress is best effort
        pass
    queued = len(by_key) - len(done) - len(running)
    return (f"units: {len(done)} done, {len(running)} running" + (f" ({', '.join(running)})" if running else "")
            + f", {max(queued, 0)} queued")


@dataclass(slots=True)
class _Submitted:
    """The units' futures, those already taken, and the Events that tell their processes to stop."""

    stop: Any = None
    hurry: Any = None
    futures: list[Any] = field(default_factory=list)
    by_key: dict[str, WorkUnit] = field(default_factory=dict)
    taken: set[str] = field(default_factory=set)
    per_machine: bool = False


def _cancel(client: Any, submitted: _Submitted) -> None:
    """Tell units still out to stop (their Event) and drop them: the run is over for them."""
    pending = [f for f in submitted.futures if not f.done()]
    if not pending:
        return
    _set(submitted.stop)
    _set(submitted.hurry)
    try:
        client.cancel(pending, force=True)
    except Exception:  # noqa: BLE001 - the scheduler may be gone already
        pass


def _machines_notice(run: Run) -> Any:
    """Which machine measured which benchmark, and how each unit stopped."""
    from pairbench.model import Notice

    machines = run.metadata.get("machines", {})
    stops = run.metadata.get("unit_stops", {})
    parts = []
    for name, m in sorted(machines.items()):
        told = [f"{b} ({stops[b]['blocks']} blocks, {stops[b]['stop']})" if b in stops else b for b in m["benchmarks"]]
        parts.append(f"{name}: {', '.join(told)}")
    return Notice("machines", f"measured on {len(machines)} machine{'s' if len(machines) != 1 else ''}"
                  + (f" — {'; '.join(parts)}" if parts else "")
                  + "; every benchmark's variants were compared on one machine")


def _save(writer: RunWriter, run: Run, final: bool = False) -> None:
    try:
        writer.finish(run) if final else writer.write(run)
    except OSError as exc:
        raise UserError(f"cannot write the run file {writer.path}: {exc.strerror}") from None
