"""A suite cut into work units for other machines, and their results merged back into one Run.

A unit travels as a small JSON document (a run file's variants and benchmark, the options and
the seed) and comes back as the run file its machine wrote, so the format workers and the client
share is the one already versioned and checked (store/runfile.py), not a pickle of our classes.
"""

from __future__ import annotations

import dataclasses
import os
import socket
from dataclasses import dataclass
from typing import Any

from pairbench.model import Comparison, Notice, Run, WorkUnit
from pairbench.store.runfile import run_from_dict, run_to_dict

__all__ = ["ClusterOptions", "MACHINE_ENV", "machine_name", "split_units", "unit_payload", "unit_from_payload", "UnitResult",
           "merge_unit", "per_machine_name", "agreement_notices"]

MACHINE_ENV = "PAIRBENCH_MACHINE"
"""Names the machine in its samples; the host name when unset (set it when hosts share a name)."""


@dataclass(frozen=True, slots=True)
class ClusterOptions:
    """Where to run a suite's units: `--cluster` and the workers' build cache."""

    address: str
    """A scheduler (`tcp://host:8786`) or `local:N` for N workers on this machine."""
    cache_dir: str | None = None
    """Build cache on each worker (`--cache-dir`); the worker's default when None."""
    each_machine: bool = False
    """Measure every benchmark on every worker (compared per machine) instead of once on any."""


UNIT_STOP_KINDS = ("adaptive", "stop", "budget")


def machine_name() -> str:
    return os.environ.get(MACHINE_ENV) or socket.gethostname()


def split_units(run: Run, seed: int) -> list[WorkUnit]:
    """One unit per benchmark, each with every variant, in the suite's order."""
    return [WorkUnit(index=i, benchmark=b, variants=tuple(run.variants), seed=seed + i, suite=run.suite)
            for i, b in enumerate(run.benchmarks)]


def unit_payload(unit: WorkUnit, options: dict[str, Any], fake: tuple[float, ...] | None,
                 cache_dir: str | None) -> dict[str, Any]:
    """The JSON-able document a worker needs to measure `unit` (options as RunOptions fields)."""
    shell = Run(metadata={}, variants=list(unit.variants), benchmarks=[unit.benchmark], suite=unit.suite)
    return {"unit": unit.index, "seed": unit.seed, "run": run_to_dict(shell), "options": options,
            "fake": list(fake) if fake is not None else None, "cache_dir": cache_dir}


def unit_from_payload(doc: dict[str, Any]) -> WorkUnit:
    shell = run_from_dict(doc["run"], source="work unit")
    return WorkUnit(index=int(doc["unit"]), benchmark=shell.benchmarks[0], variants=tuple(shell.variants),
                    seed=int(doc["seed"]), suite=shell.suite)


@dataclass(frozen=True, slots=True)
class UnitResult:
    """What a worker sends back: its machine's name and the unit's run file (None if it wrote none)."""

    index: int
    machine: str
    run_file: str | None
    returncode: int
    error: str = ""
    """The worker's last lines on standard error when the unit failed."""


def per_machine_name(benchmark: str, machine: str) -> str:
    """A benchmark measured on every machine is compared per machine, under this name."""
    return f"{benchmark} @ {machine}"


def merge_unit(run: Run, unit_run: Run, machine: str, per_machine: bool = False) -> Run:
    """Add a finished unit's samples, profiles (`--profile`), notices and machine metadata to the suite's `run`.

    Returns the unit's run with each sample stamped with its machine (as recorded in history).
    The variants keep the client's names; a variant built on the worker records where it was built
    under `metadata["machines"][machine]`. With `per_machine` (the benchmark is measured on every
    machine) the benchmark is renamed `NAME @ MACHINE`, so each machine's samples are compared
    with each other only.
    """
    if per_machine:
        unit_run = _renamed(unit_run, per_machine_name(unit_run.benchmarks[0].name, machine))
        if all(b.name != unit_run.benchmarks[0].name for b in run.benchmarks):
            run.benchmarks.append(unit_run.benchmarks[0])
    samples = [dataclasses.replace(s, machine=machine) for s in unit_run.samples]
    run.samples.extend(samples)
    run.series.extend(unit_run.series)  # each process's batches: the merged run is classified again
    run.profiles.extend(unit_run.profiles)  # the merged run's analysis makes their differences
    bench = unit_run.benchmarks[0].name
    seen = {(n.kind, n.message, n.benchmark, n.variant) for n in run.notices}
    for n in unit_run.notices:
        if n.kind.startswith("stats:") or n.kind in UNIT_STOP_KINDS:
            continue  # the merged run is analysed again, and its stop is said per unit
        if not n.benchmark:  # about the machine (load, governor): said once per machine
            n = dataclasses.replace(n, message=f"{machine}: {n.message}")
        key = (n.kind, n.message, n.benchmark, n.variant)
        if key not in seen:
            seen.add(key)
            run.notices.append(n)
    machines = run.metadata.setdefault("machines", {})
    entry = machines.setdefault(machine, {"metadata": _machine_facts(unit_run.metadata), "benchmarks": []})
    entry["benchmarks"].append(bench)
    adaptive = unit_run.metadata.get("adaptive")
    if adaptive:
        looks = run.metadata.setdefault("unit_looks", {})
        looks[bench] = len(adaptive.get("looks", [])) or 1
    stop = unit_run.metadata.get("stop") or ("interrupted" if unit_run.status == "interrupted" else None)
    if stop:
        run.metadata.setdefault("unit_stops", {})[bench] = {"stop": stop, "blocks": unit_run.metadata.get("blocks"),
                                                           "elapsed_s": unit_run.metadata.get("elapsed_s")}
    for v in unit_run.variants:
        if v.meta.get("git_commit"):
            entry.setdefault("builds", {})[v.name] = {"commit": v.meta["git_commit"],
                                                     "worktree": v.meta.get("worktree", "")}
    return dataclasses.replace(unit_run, samples=samples)


def _renamed(unit_run: Run, name: str) -> Run:
    old = unit_run.benchmarks[0].name
    return dataclasses.replace(
        unit_run, benchmarks=[dataclasses.replace(unit_run.benchmarks[0], name=name)],
        samples=[dataclasses.replace(s, benchmark=name) for s in unit_run.samples],
        series=[dataclasses.replace(x, benchmark=name) for x in unit_run.series],
        notices=[dataclasses.replace(n, benchmark=name) if n.benchmark == old else n for n in unit_run.notices],
        profiles=[dataclasses.replace(p, benchmark=name) for p in unit_run.profiles])


def agreement_notices(comparisons: list[Comparison], origin: dict[str, tuple[str, str]]) -> list[Notice]:
    """Whether the machines agree, per benchmark, metric and candidate.

    `origin` maps each per-machine benchmark name to (benchmark, machine). A benchmark faster on one
    machine and slower on another is said so, never averaged away.
    """
    groups: dict[tuple[str, str, str], dict[str, str]] = {}
    for c in comparisons:
        if c.benchmark in origin:
            bench, machine = origin[c.benchmark]
            groups.setdefault((bench, c.metric, c.candidate), {})[machine] = c.verdict
    out = []
    agreed = []
    for (bench, metric, candidate), by_machine in groups.items():
        if len(by_machine) < 2:
            continue
        kinds = {v for v in by_machine.values() if v in ("faster", "slower")}
        if len(kinds) == 2:
            told = "; ".join(f"{v} on {m}" for m, v in sorted(by_machine.items()))
            out.append(Notice("machines-disagree", f"{candidate} vs the baseline, {metric}: the machines disagree — {told}",
                              "the change depends on the machine (CPU, memory, kernel): look at each machine's "
                              "comparison, not at one figure", benchmark=bench))
        elif len(set(by_machine.values())) == 1:
            agreed.append(f"{bench} ({metric}, {candidate}): {next(iter(by_machine.values()))}")
    if agreed:
        out.append(Notice("machines-agree", f"every machine gave the same verdict for {len(agreed)} comparison"
                          f"{'s' if len(agreed) != 1 else ''}: " + "; ".join(agreed[:12])
                          + (" ..." if len(agreed) > 12 else "")))
    return out


def _machine_facts(metadata: dict[str, Any]) -> dict[str, Any]:
    """The worker's machine metadata without the per-run fields (seed, options, run file)."""
    skip = {"seed", "run_file", "options", "adaptive", "blocks", "elapsed_s", "stop"}
    return {k: v for k, v in metadata.items() if k not in skip}


def failed_notice(benchmark: str, machine: str, reason: str) -> Notice:
    return Notice("unit_failed", f"{benchmark} could not be measured on {machine or 'any worker'}: {reason}",
                  "its results are left out; the other benchmarks' are kept", benchmark=benchmark)
