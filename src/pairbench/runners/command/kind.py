"""What the kinds table knows of kind "command": the metrics a benchmark yields and its runner."""

from __future__ import annotations

from pairbench.model import Metric
from pairbench.runners.base import Runner
from pairbench.runners.command.options import CommandOptions, parse_command_options

__all__ = ["parse_command_options", "command_metrics", "make_command"]


def command_metrics(options: CommandOptions, declared: tuple[Metric, ...]) -> tuple[Metric, ...]:
    """Wall time first, then the command's own metrics, then CPU, RSS and exit code (or instructions)."""
    from pairbench.runners.command.metric_spec import BUILTIN_METRICS
    from pairbench.runners.command.output import UNITS

    given = {m.name: m for m in declared}
    # a metric given with its unit is stored in that unit's SI base (s or B)
    units = {n: UNITS[u][0] for n, u in options.metric_units.items()}
    custom = tuple(given.get(n) or Metric(n, units.get(n, ""), "lower", description=f"regex {rx}")
                   for n, rx in options.metrics.items())
    if options.duet:  # CPU time beside wall time: the partner running at once shows less in it
        from pairbench.runners.command.duet import CPU_METRIC

        custom = (CPU_METRIC,) + custom
    if options.measure == ("time",):
        return BUILTIN_METRICS[:1] + custom + BUILTIN_METRICS[1:]
    from pairbench.runners.counters import counter_metrics
    from pairbench.runners.instructions import INSTRUCTIONS, counters_simulated

    # --measure instructions[,time] or counters: the first named is primary; time brings its CPU and
    # RSS metrics; the counter set's derived figures (IPC, miss rate) follow the counters
    names = [n for n in options.measure if n != "time"]
    counted = (counter_metrics(tuple(names), counters_simulated()) if set(names) - {"instructions"}
               else (INSTRUCTIONS,) if names else ())
    by_name = {"time": BUILTIN_METRICS[0], **{n: m for n, m in zip(names, counted)}}
    named = [by_name[n] for n in options.measure]
    derived = counted[len(names):]
    timed = BUILTIN_METRICS[1:] if "time" in options.measure else BUILTIN_METRICS[-1:]
    return (named[0],) + custom + tuple(named[1:]) + derived + timed

def make_command(seed: int | None, options: CommandOptions | None) -> Runner:
    """One runner for every command benchmark, its environment padding seeded by the run."""
    import random

    from pairbench.runners.command.counted import CountingCommandRunner

    return CountingCommandRunner(random.Random(seed))
