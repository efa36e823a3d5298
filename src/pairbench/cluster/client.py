"""A suite on Dask distributed: one work unit per benchmark, one unit per machine at a time.

The scheduling is Dask's; what is ours are the rules that keep the answers valid. Each unit asks
for the worker resource `bench=1`, so a machine whose worker was started with `--resources
bench=1` never runs two units at once (they would share its cores). A unit is measured whole on
one machine, and its result is all or nothing: a worker that dies mid-unit has its unit rerun
elsewhere by the scheduler, and its partial samples never arrive. Each finished unit goes into
the run file and the history store at once, so a crash of this client loses nothing finished.
"""

from __future__ import annotations

import dataclasses
import random
import socket
from dataclasses import dataclass, field
import sys
from pathlib import Path
from urllib.parse import urlsplit
from typing import TYPE_CHECKING, Any, Callable

from pairbench import interrupts
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

CONNECT_TIMEOUT_S = 10.0
WORKERS_TIMEOUT_S = 60.0
RESOURCE = "bench"


def execute_on_cluster(run: Run, options: RunOptions, cluster: ClusterOptions, *,
                       fake: tuple[float, ...] | None = None, say: Callable[[str], None] | None = None) -> Run:
    """Measure every benchmark of `run` on the cluster, then analyse; returns `run`.

    `cluster.address` is a scheduler (`tcp://host:8786`) or `local:N` for a LocalCluster of N
    workers on this machine; with `cluster.each_machine` every benchmark is measured on every
    worker and compared per machine. Raises UserError when Dask is missing or the scheduler cannot
    be reached (before anything runs), Interrupted on Ctrl-C (finished units kept).
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
    with _connect(address) as client:
        workers = _workers(client, address)
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
            interrupts.shield()
            status = "interrupted"
        finally:
            _cancel(client, submitted)
    if cluster.each_machine:  # the per-machine benchmarks replace the suite's, in the suite's order
        origin = run.metadata.get("per_machine", {})
        run.benchmarks = sorted((b for b in run.benchmarks if b.name in origin),
                                key=lambda b: ([u.benchmark.name for u in units].index(origin[b.name][0]), b.name))
    looks = max(run.metadata.get("unit_looks", {}).values(), default=1)
    if run.samples:
        finish_analysis(run, options, looks)
    if cluster.each_machine:
        origin = {k: (v[0], v[1]) for k, v in run.metadata.get("per_machine", {}).items()}
        run.notices.extend(agreement_notices(run.comparisons, origin))
    run.notices.append(_machines_notice(run))
    run.status = status
    _save(writer, run, final=True)
    if status == "interrupted":
        done = len(run.metadata.get("machines_done", []))
        raise Interrupted(f"interrupted by {interrupts.signal_name(interrupts.first_signal())}: {done} of "
                          f"{len(units) * len(places)} units finished and kept in {writer.target.label}; the rest were cancelled")
    return run


class _Connection:
    """Client (and LocalCluster for `local:N`) closed on exit, quietly."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.cluster: Any = None
        self.client: Any = None

    def __enter__(self) -> Any:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise UserError("--cluster needs Dask distributed: pip install 'pairbench[dask]'") from None
        if self.address.startswith("local:"):
            n = _local_size(self.address)
            self.cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                                        dashboard_address=None, resources={RESOURCE: 1})
            self.client = Client(self.cluster)
            return self.client
        refused = _refused(self.address)
        if refused:
            raise UserError(f"cannot reach the Dask scheduler at {self.address}: {refused}; nothing was run")
        try:
            self.client = Client(self.address, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError) as exc:
            raise UserError(f"cannot reach the Dask scheduler at {self.address}: {_reason(exc)}; nothing was run") from None
        return self.client

    def __exit__(self, *exc: object) -> None:
        for part in (self.client, self.cluster):
            if part is not None:
                try:
                    part.close()
                except Exception:  # noqa: BLE001 - closing must not hide the run's own outcome
                    pass


def _connect(address: str) -> _Connection:
    return _Connection(address)


def _local_size(address: str) -> int:
    try:
        n = int(address.partition(":")[2])
    except ValueError:
        n = 0
    if n < 1:
        raise UserError(f"--cluster {address!r}: write local:N with N workers, such as local:2")
    return n


def _refused(address: str) -> str | None:
    """"connection refused" when nothing listens at a tcp:// scheduler address, else None.

    Why: Dask's Client retries a refused connect until its timeout (10 s), and a refusal is final:
    the user hears at once that no scheduler runs there. Any other outcome is Dask's to judge.
    """
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme != "tcp" or not parts.hostname or port is None:
        return None
    try:
        with socket.create_connection((parts.hostname, port), timeout=CONNECT_TIMEOUT_S):
            return None
    except ConnectionRefusedError:
        return "connection refused"
    except OSError:
        return None


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _workers(client: Any, address: str) -> dict[str, str]:
    """Worker address -> name, after waiting for one; refuse a cluster with no `bench` resource."""
    try:
        client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
    except (TimeoutError, OSError):
        raise UserError(f"the Dask scheduler at {address} has no worker after {WORKERS_TIMEOUT_S:g} s; "
                        f"start one with `dask worker {address} --nthreads 1 --resources {RESOURCE}=1`") from None
    info = client.scheduler_info()["workers"]
    offered = {a: w for a, w in info.items() if w.get("resources", {}).get(RESOURCE)}
    if not offered:
        raise UserError(f"no worker of {address} offers the resource {RESOURCE}=1, which keeps two benchmarks off one "
                        f"machine's cores; start workers with `--nthreads 1 --resources {RESOURCE}=1`")
    return {a: str(w.get("name", a)) for a, w in offered.items()}


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

    by_key: dict[str, WorkUnit] = {}
    tag = uuid.uuid4().hex[:8]
    submitted.stop = Event(f"pairbench-stop-{tag}", client=client)
    for u, worker in placed:
        where = {"workers": [worker], "allow_other_workers": False} if worker else {}
        key = f"pairbench-{tag}-{u.index}-{u.benchmark.name}" + (f"-{workers[worker]}" if worker else "")
        fut = client.submit(run_unit, {**payloads[u.index], "stop_event": f"pairbench-stop-{tag}"}, key=key,
                            resources={RESOURCE: 1}, pure=False, retries=0 if worker else 1, **where)
        by_key[fut.key] = u
        submitted.futures.append(fut)
    done = run.metadata.setdefault("machines_done", [])
    per_machine = any(w for _, w in placed)
    for fut in as_completed(list(submitted.futures)):
        unit = by_key[fut.key]
        try:
            result: UnitResult = fut.result()
        except Exception as exc:  # noqa: BLE001 - a lost worker twice, or an error in the task itself
            run.notices.append(failed_notice(unit.benchmark.name, "", f"{type(exc).__name__}: {_reason(exc)}"))
            tell(f"unit {unit.benchmark.name} failed: {_reason(exc)}")
            continue
        _take(run, unit, result, options, tell, per_machine)
        done.append(unit.benchmark.name)
        _save(writer, run)
        tell(_progress(client, by_key, done, workers))


def _take(run: Run, unit: WorkUnit, result: UnitResult, options: RunOptions, tell: Callable[[str], None],
          per_machine: bool = False) -> None:
    """Merge one unit's run file, record it in the history; a unit that failed becomes a notice."""
    from pairbench.errors import RunFileError
    from pairbench.store.history import record_run
    from pairbench.store.runfile import loads_run

    if result.run_file is None:
        run.notices.append(failed_notice(unit.benchmark.name, result.machine, result.error or
                                         f"exit status {result.returncode}"))
        return
    try:
        unit_run = loads_run(result.run_file, source=f"the run file of {unit.benchmark.name} from {result.machine}")
    except RunFileError as exc:
        run.notices.append(failed_notice(unit.benchmark.name, result.machine, f"its run file is damaged: {exc}"))
        return
    merged = merge_unit(run, unit_run, result.machine, per_machine)
    if per_machine:
        run.metadata.setdefault("per_machine", {})[merged.benchmarks[0].name] = [unit.benchmark.name, result.machine]
    if result.returncode != 0:
        run.notices.append(failed_notice(unit.benchmark.name, result.machine, result.error or
                                         f"exit status {result.returncode}"))
    if options.record_history and merged.samples:
        record_run(dataclasses.replace(merged, metadata={**merged.metadata, "cluster": run.metadata.get("cluster")}),
                   options.history)
    tell(f"unit {unit.benchmark.name}: {len(merged.samples)} samples from {result.machine}")


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
    """The units' futures and the Event that tells their processes to stop."""

    stop: Any = None
    futures: list[Any] = field(default_factory=list)


def _cancel(client: Any, submitted: _Submitted) -> None:
    """Tell running units to stop (their Event) and drop the queued ones."""
    pending = [f for f in submitted.futures if not f.done()]
    if not pending:
        return
    try:
        if submitted.stop is not None:
            submitted.stop.set()
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
