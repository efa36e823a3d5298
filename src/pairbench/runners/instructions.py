"""Counting the instructions a command executes: `--measure instructions`.

Two sources, chosen once per run: `perf stat -e instructions:u` (the CPU's counter, user space
only, children included) when the kernel lets this user read it, else valgrind's cachegrind with
the cache and branch simulation off (`--cache-sim=no`: only `Ir` is counted), following every
child with `--trace-children=yes` and summing their counts. A VM without a performance-monitoring
unit (this machine) has only the valgrind path; its counts are exact and repeatable for a
deterministic program, at a slowdown of about 20-60x (docs/calibrate.md).

For repeatable counts the counted run sets PYTHONHASHSEED=0 (unless the variant sets it), drops
the random environment padding the timed runs use, and runs under `setarch -R` (no address
space randomisation) when the kernel allows it, and preloads `fixed_random.c` (getrandom returns
fixed bytes: Ruby seeds its string hashes from it, and has no PYTHONHASHSEED) when a C compiler
can build it. The count is a declared exact metric: compared
by its exact delta, never by a test; a variant whose counts differ between runs gets a notice.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from pairbench.errors import UserError
from pairbench.model import Metric, Notice
from pairbench.runners.counters import (COUNTER_NAMES, COUNTERS, SIMULATED_PREFIX, Counter, parse_cachegrind_events,
                                       parse_perf_events, perf_events)

__all__ = ["INSTRUCTIONS", "MEASURES", "InstructionCounter", "choose_counter", "parse_cachegrind", "parse_perf",
           "parse_measure", "measure_option", "fixed_random_library", "default_counter", "vary_notice",
           "counters_simulated", "summed_outputs"]

INSTRUCTIONS = Metric("instructions", "count", "lower", exact=True, description="instructions executed")
MEASURES = ("time", "instructions", "counters", *(n for n in COUNTER_NAMES if n != "instructions"))
"""What `--measure` may name; the first named is the primary metric. `counters` is time and the
whole counter set (runners/counters.py), wall time first as poop shows it."""

VALGRIND_ARGS = ("--tool=cachegrind", "--cache-sim=no", "--branch-sim=no", "--trace-children=yes")
KNOBS = ("PYTHONHASHSEED=0",)
ENV_PADDING = "PAIRBENCH_ENV_OFFSET"
_FIXED_RANDOM_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixed_random.c")


def parse_measure(value: object, allowed: tuple[str, ...] = MEASURES) -> tuple[str, ...]:
    """`instructions,time` or ["instructions", "time"] -> ("instructions", "time"); a UserError otherwise."""
    items = value.split(",") if isinstance(value, str) else list(value) if isinstance(value, (list, tuple)) else None
    if items is None or not all(isinstance(x, str) for x in items):
        raise UserError(f"measure {value!r}: give a comma-separated list of {', '.join(allowed)}")
    names = [x.strip() for x in items if x.strip()]
    bad = [n for n in names if n not in allowed]
    if bad or not names:
        raise UserError(f"measure {bad[0] if bad else value!r}: valid: {', '.join(allowed)} (e.g. instructions,time)")
    twice = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if twice is not None:  # which one was meant first (the primary metric)? refused, as hyperfine refuses
        raise UserError(f"measure {','.join(names)!r}: {twice} is named twice; name each once "
                        f"(the first is the primary metric), e.g. {','.join(dict.fromkeys(names))}")
    expanded = (n for name in names for n in (("time", *COUNTER_NAMES) if name == "counters" else (name,)))
    return tuple(dict.fromkeys(expanded))


def measure_option(m: Any, where: Any, allowed: tuple[str, ...] = MEASURES) -> tuple[str, ...]:
    """The `measure` key of command options (default: time); the error names where it was written."""
    if m.get("measure") is None:
        return ("time",)
    try:
        return parse_measure(m["measure"], allowed)
    except UserError as exc:
        raise where.fail("measure", str(exc)) from None


def parse_cachegrind(text: str) -> int:
    """The `summary:` count of one cachegrind output file (its first event, Ir)."""
    for line in text.splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise ValueError("no summary line in the cachegrind output")


_NO_OUTPUT = "valgrind wrote no cachegrind output (did the command start?)"


def summed_outputs(out_dir: str, parse: Callable[[str], Mapping[str, Any]], missing: str) -> dict[str, Any]:
    """The `cg.*` files valgrind wrote in `out_dir` (one per traced process), each parsed, summed by key;
    a ValueError saying `missing` when there are none."""
    files = glob.glob(os.path.join(out_dir, "cg.*"))
    if not files:
        raise ValueError(missing)
    total: dict[str, Any] = {}
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for key, value in parse(fh.read()).items():
                total[key] = total.get(key, 0) + value
    return total


@functools.lru_cache(maxsize=1)
def counters_simulated() -> bool:
    """True where perf cannot count here, so that cachegrind simulates the counters (asked once)."""
    return bool(_perf_works())


def parse_perf(text: str) -> int | None:
    """The instructions:u count of `perf stat -x,` output; None when the counter is not supported."""
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2].startswith("instructions"):
            return int(fields[0]) if fields[0].strip().isdigit() else None
    return None


def _perf_works() -> str:
    """'' when `perf stat -e instructions:u` counts here, else why not."""
    perf = shutil.which("perf")
    if perf is None:
        return "perf is not installed"
    try:
        out = subprocess.run([perf, "stat", "-x,", "-e", "instructions:u", "--", "true"], capture_output=True,
                             text=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"perf could not run ({exc})"
    if parse_perf(out.stderr) is None:
        return "the kernel does not expose the instructions:u counter (perf stat: not supported)"
    return ""


def _setarch_works() -> bool:
    setarch = shutil.which("setarch")
    if setarch is None:
        return False
    try:
        return subprocess.run([setarch, "-R", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@dataclass
class InstructionCounter:
    """Wraps a command to count its instructions, then reads the count."""

    source: str
    """`perf` or `valgrind`."""
    why: str
    """Why this source: the reason perf was not used, or ''."""
    no_aslr: bool
    """Runs go through `setarch -R`."""
    preload: str | None = None
    """A library preloaded into counted runs (fixed_random.c, built), or None."""
    events: tuple[str, ...] = ()
    """perf's events to count (instructions:u when none); valgrind then simulates caches and branches."""
    out_dir: str = field(default_factory=lambda: tempfile.mkdtemp(prefix="pairbench-instr-"))

    def describe(self) -> str:
        """Which source counts, and which knobs are set, for a notice."""
        what = "counters" if self.events else "instructions"
        how = (f"perf stat -e {','.join(self.events or ('instructions:u',))}" if self.source == "perf"
               else "valgrind cachegrind, caches and branches simulated (sim-: simulated counts)" if self.events
               else "valgrind cachegrind (--cache-sim=no)")
        reason = f" because {self.why}" if self.why else ""
        return f"{what} counted by {how}{reason}; set for repeatable counts: {', '.join(self.knobs())}"

    def knobs(self) -> list[str]:
        """What pairbench sets so that a deterministic program counts the same in every run."""
        return (list(KNOBS) + ["no environment padding"]
                + (["setarch -R (no ASLR)"] if self.no_aslr else ["(setarch -R is not available here)"])
                + (["getrandom() fixed (LD_PRELOAD)"] if self.preload else []))

    def wrap(self, argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        """The argv and environment of a counted run."""
        for f in glob.glob(os.path.join(self.out_dir, "*")):
            os.remove(f)
        env = dict(env)
        env.pop(ENV_PADDING, None)
        env.setdefault("PYTHONHASHSEED", "0")
        if self.preload:
            env["LD_PRELOAD"] = " ".join(x for x in (self.preload, env.get("LD_PRELOAD", "")) if x)
        if self.source == "perf":
            prefix = ["perf", "stat", "-x,", "-e", ",".join(self.events or ("instructions:u",)), "-o",
                      os.path.join(self.out_dir, "perf"), "--"]
        else:
            simulate = ("--cache-sim=yes", "--branch-sim=yes") if self.events else ()
            prefix = ["valgrind", *VALGRIND_ARGS, *simulate, "--log-file=" + os.path.join(self.out_dir, "log.%p"),
                      "--cachegrind-out-file=" + os.path.join(self.out_dir, "cg.%p")]
        return (["setarch", "-R"] if self.no_aslr else []) + prefix + argv, env

    def read(self) -> int:
        """The count of the last counted run (every traced process summed)."""
        if self.source == "perf":
            with open(os.path.join(self.out_dir, "perf"), encoding="utf-8") as fh:
                count = parse_perf(fh.read())
            if count is None:
                raise ValueError("perf stat reported no instructions:u count")
            return count
        return int(summed_outputs(self.out_dir, lambda text: {"Ir": parse_cachegrind(text)}, _NO_OUTPUT)["Ir"])

    def read_events(self) -> dict[str, int]:
        """Every event of the last counted run, summed over its processes: perf's by event name
        (without `:u`), cachegrind's by its own (Ir, D1mr, Bcm...)."""
        if self.source == "perf":
            with open(os.path.join(self.out_dir, "perf"), encoding="utf-8") as fh:
                return parse_perf_events(fh.read())
        return summed_outputs(self.out_dir, parse_cachegrind_events, _NO_OUTPUT)

    def close(self) -> None:
        shutil.rmtree(self.out_dir, ignore_errors=True)


PERF_PACKAGES = "apt-get install linux-perf (Ubuntu: linux-tools-generic)"
"""Where perf comes from, for the message that says neither counter is here."""


def _simulates(events: tuple[str, ...]) -> str:
    """What valgrind would give in place of the hardware events asked (`sim-cycles`), for the message."""
    names = [SIMULATED_PREFIX + c.name for c in _by_event(events) if c.simulated]
    if set(events) == set(perf_events(COUNTER_NAMES)):
        return ", which simulates caches, branches and cycles (sim-...)"
    return f", which simulates {'it' if len(names) == 1 else 'them'} as {', '.join(names)}" if names else ""


def _by_event(events: tuple[str, ...]) -> list[Counter]:
    """The counters that perf's `events` count, in the order asked."""
    return [c for e in events for c in COUNTERS if c.perf_event == e]


def _asked(events: tuple[str, ...]) -> str:
    """The counters `--measure` asked for, from perf's events (`counters` for the whole set)."""
    if not events:
        return "instructions"
    names = [c.name for c in _by_event(events)]
    return "counters" if set(events) == set(perf_events(COUNTER_NAMES)) else ",".join(names)


def choose_counter(preload: str | None = None, events: tuple[str, ...] = ()) -> InstructionCounter:
    """perf when its counter works here, else valgrind; a UserError when neither can count."""
    why = _perf_works()
    if not why:
        return InstructionCounter("perf", "", _setarch_works(), preload, events)
    if shutil.which("valgrind") is None:
        raise UserError(f"--measure {_asked(events)} needs perf or valgrind: {why}, and valgrind is not installed "
                        f"(apt-get install valgrind{_simulates(events)}; perf: {PERF_PACKAGES})")
    return InstructionCounter("valgrind", f"perf cannot count here: {why}", _setarch_works(), preload, events)


def fixed_random_library(cache_dir: str) -> str | None:
    """fixed_random.c built as a shared library in `cache_dir` (once), or None without a compiler."""
    try:
        with open(_FIXED_RANDOM_SOURCE, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()[:12]
    except OSError:
        return None
    target = os.path.join(cache_dir, f"fixed-random-{os.uname().machine}-{digest}.so")
    if os.path.isfile(target):
        return target
    compilers = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    compiler = next((c for c in compilers if shutil.which(c)), None)
    if compiler is None:
        return None
    try:
        os.makedirs(cache_dir, exist_ok=True)
        fd, partial = tempfile.mkstemp(prefix="fixed-random-", suffix=".so", dir=cache_dir)
        os.close(fd)
        done = subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", partial, _FIXED_RANDOM_SOURCE],
                              capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            os.unlink(partial)
            return None
        os.replace(partial, target)  # atomic: two pairbench processes may build it at once
    except (OSError, subprocess.SubprocessError):
        return None
    return target


def _cache_dir() -> str:
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                        "pairbench")


def default_counter(events: tuple[str, ...] = ()) -> InstructionCounter:
    """The counter of `cmd` and `micro`: perf or valgrind, with getrandom fixed where it can be built;
    `events` (perf's names) for the counter set, else instructions alone."""
    return choose_counter(fixed_random_library(_cache_dir()), events)


_FEW_IN_MILLIONS = 1e-6
"""A spread up to this share of the count: the process's own (its pid's digits), not the workload's."""


def _count(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:.4f}"


def vary_notice(counter: InstructionCounter, seen: set[float], value: float, benchmark: str,
                variant: str) -> Notice | None:
    """A notice the first time one variant's count changes between runs (then deltas are not exact);
    `value` is added to `seen`."""
    first_change = bool(seen) and value not in seen and len(seen) == 1
    seen.add(value)
    if not first_change:
        return None
    low, high = min(seen), max(seen)
    span = f"({_count(low)}..{_count(high)})"
    if high - low <= _FEW_IN_MILLIONS * low:
        return Notice("instructions-vary", f"instruction counts of one variant differ between runs {span}, by "
                      f"{_count(high - low)} instructions: deltas this small are not exact",
                      "a difference of a few instructions in millions comes from the process, not the workload: "
                      "Ruby, for one, executes a few more when its process id has one more digit",
                      benchmark, variant)
    return Notice("instructions-vary", f"instruction counts of one variant differ between runs {span}: the "
                  "program is not deterministic, so deltas are not exact",
                  f"pairbench sets {', '.join(counter.knobs())}; remove clocks, random seeds, threads or "
                  "address-dependent work from the workload", benchmark, variant)
