"""The counter set of `--measure counters` (poop's figures), by name, and where each comes from.

Hardware counters come from `perf stat` where the kernel lets this user read them. Where it hides
them (a VM without a performance-monitoring unit), valgrind's cachegrind simulates the caches and
the branch predictor: those counts are named `sim-...` in every output, because a simulated cache
is not the machine's, and they are exact (the same for every run of a deterministic program),
while hardware counts vary between identical runs and are tested like times. `sim-cycles` is
KCachegrind's cycle estimate (instructions + 10 per L1 miss or branch mispredict + 100 per
last-level miss), a weighting, not a measurement: it moves with the work and the misses, as
cycles do. Page faults, context switches and CPU time (task-clock) come from the kernel's rusage
of the timed run, whichever source counts the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from pairbench.model import Metric

__all__ = ["Counter", "COUNTERS", "COUNTER_NAMES", "RUSAGE_COUNTERS", "counter_metrics", "counted_values",
           "rusage_values", "perf_events", "parse_perf_events", "parse_cachegrind_events", "SIMULATED_PREFIX"]

SIMULATED_PREFIX = "sim-"


@dataclass(frozen=True, slots=True)
class Counter:
    """One counter of the set: its name as perf and poop spell it, and how it is read."""

    name: str
    description: str
    perf_event: str | None = None
    """The perf event (user space only); None for a counter read from rusage."""
    simulated: bool = False
    """Cachegrind gives it where perf cannot: named `sim-NAME` then (instructions are counted, not simulated)."""
    unit: str = "count"


COUNTERS: tuple[Counter, ...] = (
    Counter("cycles", "CPU cycles", "cycles:u", simulated=True),
    Counter("instructions", "instructions executed", "instructions:u"),
    Counter("branch-misses", "mispredicted branches", "branch-misses:u", simulated=True),
    Counter("cache-misses", "last-level cache misses", "cache-misses:u", simulated=True),
    Counter("L1-dcache-load-misses", "L1 data cache read misses", "L1-dcache-load-misses:u", simulated=True),
    Counter("context-switches", "context switches, voluntary and not (rusage)"),
    Counter("page-faults", "page faults, minor and major (rusage)"),
    Counter("task-clock", "CPU time, user and system (rusage)", unit="s"),
)
COUNTER_NAMES: tuple[str, ...] = tuple(c.name for c in COUNTERS)
RUSAGE_COUNTERS: frozenset[str] = frozenset(c.name for c in COUNTERS if c.perf_event is None)
_BY_NAME: Mapping[str, Counter] = {c.name: c for c in COUNTERS}
_BRANCHES = "branches:u"
"""Asked of perf beside branch-misses, for the miss rate."""

# cachegrind's events, summed into the counters they stand for
_L1 = ("I1mr", "D1mr", "D1mw")
_LL = ("ILmr", "DLmr", "DLmw")
_MISPREDICTS = ("Bcm", "Bim")
_SIMULATED: Mapping[str, tuple[str, ...]] = {
    "instructions": ("Ir",), "branch-misses": _MISPREDICTS, "cache-misses": _LL, "L1-dcache-load-misses": ("D1mr",),
}


def metric_name(counter: str, simulated: bool) -> str:
    """The metric a counter is stored under: `sim-cycles` where cachegrind simulated it."""
    return SIMULATED_PREFIX + counter if simulated and _BY_NAME[counter].simulated else counter


def counter_metrics(names: tuple[str, ...], simulated: bool) -> tuple[Metric, ...]:
    """The metrics of the counters named, then the derived figures their counts allow (IPC, miss rate)."""
    how = "simulated by valgrind cachegrind, " if simulated else ""
    out = []
    for name in names:
        c = _BY_NAME[name]
        read = c.perf_event is not None
        exact = read and simulated  # simulated counts repeat exactly; hardware and kernel counts vary
        desc = c.description if not read else (f"{c.description} ({how}exact)" if exact and c.simulated
                                                else f"{c.description} ({'cachegrind' if simulated else 'perf'})")
        out.append(Metric(metric_name(name, simulated), c.unit, "lower", exact=exact, description=desc))
    if {"cycles", "instructions"} <= set(names):
        out.append(Metric("ipc", "", "higher", exact=simulated,
                          description="instructions per cycle" + (" (simulated cycles)" if simulated else "")))
    if "branch-misses" in names:
        out.append(Metric("branch-miss-rate", "", "lower", exact=simulated,
                          description="mispredicted share of branches" + (" (simulated)" if simulated else "")))
    return tuple(out)


def perf_events(names: tuple[str, ...]) -> tuple[str, ...]:
    """The perf events that count `names` (and the branches a miss rate needs)."""
    events = [_BY_NAME[n].perf_event for n in names if _BY_NAME[n].perf_event]
    if "branch-misses" in names:
        events.append(_BRANCHES)
    return tuple(e for e in events if e)


def parse_perf_events(text: str) -> dict[str, int]:
    """`perf stat -x,` output -> event (without `:u`) -> count; events it could not count are absent."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[0].strip().isdigit():
            out[fields[2].split(":")[0]] = int(fields[0])
    return out


def parse_cachegrind_events(text: str) -> dict[str, int]:
    """One cachegrind output file's `events:` and `summary:` lines -> event -> count."""
    names: list[str] = []
    for line in text.splitlines():
        if line.startswith("events:"):
            names = line.split()[1:]
        elif line.startswith("summary:"):
            return dict(zip(names, (int(x) for x in line.split()[1:])))
    raise ValueError("no summary line in the cachegrind output")


def counted_values(names: tuple[str, ...], events: Mapping[str, int], simulated: bool) -> dict[str, float]:
    """metric -> value for the counted counters among `names` and their derived figures, from the
    events of one counted run (cachegrind's when simulated, else perf's)."""
    raw: dict[str, float] = {}
    if simulated:
        for name, parts in _SIMULATED.items():
            raw[name] = float(sum(events.get(p, 0) for p in parts))
        raw["cycles"] = (events.get("Ir", 0) + 10 * sum(events.get(p, 0) for p in _L1 + _MISPREDICTS)
                         + 100 * sum(events.get(p, 0) for p in _LL))
        branches = float(events.get("Bc", 0) + events.get("Bi", 0))
    else:
        raw = {n: float(events[e.split(":")[0]]) for n in names
               if (e := _BY_NAME[n].perf_event) and e.split(":")[0] in events}
        branches = float(events.get(_BRANCHES.split(":")[0], 0))
    out = {metric_name(n, simulated): raw[n] for n in names if n in raw}
    if {"cycles", "instructions"} <= set(names) and raw.get("cycles"):
        out["ipc"] = raw["instructions"] / raw["cycles"]
    if "branch-misses" in names and "branch-misses" in raw and branches:
        out["branch-miss-rate"] = raw["branch-misses"] / branches
    return out


def rusage_values(names: tuple[str, ...], faults: float, switches: float, cpu: float) -> dict[str, float]:
    """metric -> value for the rusage counters among `names`, from one timed run."""
    got = {"page-faults": faults, "context-switches": switches, "task-clock": cpu}
    return {n: got[n] for n in names if n in got}
