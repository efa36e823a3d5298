"""Kind "command": one replicate is one process of the benchmark's command (hyperfine style).

    runner.py       the Runner: one process per replicate, its times, RSS and printed metrics
    counted.py      the runner with `--measure instructions` and `--duet`
    duet.py         both variants at once, one per CPU
    invocation.py   the command a variant runs, its environment and executable
    launcher.py     the lasting process that starts the commands (the C helper or spawner.py)
    spawner.py      the Python launcher, without a C compiler (run as a script)
    rss.py          the C exec helper (exec_helper.c), built once, or the Python launcher's rusage
    shells.py       which shell runs a command; a command line's words without one
    startup.py      a shell's start-up: what is taken off a command's times, and the notices
    output.py       a command's output read as a stream: metric lines, units, tail
    metric_spec.py  the built-in metrics and `--metric NAME[:UNIT]=REGEX`
    metric_json.py  metrics a command writes as a JSON file (`--metric-json pyperf`)
    options.py      the typed options
    kind.py         its metrics and runner for the kinds table

The names other layers use are importable from here; the runner itself is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pairbench.runners.command.invocation import expand_command, kill_group, resolve_command, variant_environment
from pairbench.runners.command.metric_spec import (
    BUILTIN_METRICS,
    SECONDARY_METRICS,
    compile_metric,
    metric_value,
    parse_metric_spec as parse_metric,
)
from pairbench.runners.command.options import OUTPUT_MODES, CommandOptions, parse_command_options
from pairbench.runners.command.output import unwritable

if TYPE_CHECKING:
    from pairbench.runners.command.runner import CommandRunner

__all__ = [
    "CommandRunner",
    "CommandOptions",
    "parse_command_options",
    "OUTPUT_MODES",
    "unwritable",
    "BUILTIN_METRICS",
    "SECONDARY_METRICS",
    "compile_metric",
    "parse_metric",
    "metric_value",
    "expand_command",
    "variant_environment",
    "resolve_command",
    "kill_group",
]


def __getattr__(name: str) -> Any:
    # the runner (subprocess, tempfile, the launcher) on first use, so that the options stay light
    if name == "CommandRunner":
        from pairbench.runners.command.runner import CommandRunner

        return CommandRunner
    raise AttributeError(name)
