"""Typed options of kind "command", parsed once from a mapping (a suite table, or flags)."""

from __future__ import annotations

import dataclasses
import shlex
from dataclasses import dataclass, field
from typing import Any, Mapping

from pairbench.runners.instructions import measure_option
from pairbench.runners.option_fields import (
    Where,
    check_keys,
    read_bool,
    read_choice,
    read_number,
    read_regexes,
    read_string,
    shown,
)

__all__ = ["CommandOptions", "parse_command_options", "OUTPUT_MODES", "failure_ignored", "failure_advice"]


@dataclass(frozen=True, slots=True)
class CommandOptions:
    """A whole process per replicate (runners/command/runner.py)."""

    command: str = "{variant}"
    """The command; `{variant}` is the variant's command and args."""
    metrics: Mapping[str, str] = field(default_factory=dict)
    """Numbers the program prints: metric name -> regex with one group (a second: the unit)."""
    metric_units: Mapping[str, str] = field(default_factory=dict)
    """Metric name -> the unit its number is printed in (`--metric NAME:UNIT=REGEX`); normalised to s or B."""
    setup: str | None = None
    prepare: str | None = None
    conclude: str | None = None
    """Run after every measured run, not timed (hyperfine's --conclude)."""
    cleanup: str | None = None
    shell: bool | str = True
    """True: through `sh -c` when the command line has shell syntax, else run directly; False: no
    shell; or the command line of a shell that runs every command (`sh`, `bash --norc`). A shell's
    fastest start-up is taken off each run, never below 0."""
    timeout: float | None = None
    """Seconds per run before it is killed."""
    ignore_failure: bool | tuple[int, ...] = False
    """True: a non-zero exit is measured like any run; exit codes: those alone are (hyperfine's
    --ignore-failure=1,2); any other non-zero exit fails the benchmark."""
    output: str = "auto"
    """Where a run's stdout goes (hyperfine's --output): `auto` (read while it may hold metric lines,
    then discarded), `null`, `pipe` (read and discarded), `inherit` (shown), or a file's path."""
    input: str | None = None
    """A file each run reads as its stdin (hyperfine's --input); None: /dev/null."""
    metric_json: str | None = None
    """A JSON format each run writes to $PAIRBENCH_METRIC_JSON, read as metrics (`pyperf`)."""
    description: str = ""
    duet: bool = False
    """Run the two variants at the same time, one per CPU (runners/command/duet.py)."""
    measure: tuple[str, ...] = ("time",)
    """What each replicate measures: `time` (wall, CPU, RSS) and/or `instructions` (counted
    exactly, runners/instructions.py); the first is the primary metric."""


def parse_command_options(m: Mapping[str, Any], where: Where) -> CommandOptions:
    """Typed command options; raises the error `where` builds for the first bad key."""
    check_keys(m, tuple(f.name for f in dataclasses.fields(CommandOptions)), where, "command")
    command = read_string(m, "command", where, "{variant}", empty=False)
    return CommandOptions(
        command=command or "{variant}",
        metrics=read_regexes(m, "metrics", where),
        metric_units=_metric_units(m, where),
        setup=read_string(m, "setup", where, None, empty=False),
        prepare=read_string(m, "prepare", where, None, empty=False),
        conclude=read_string(m, "conclude", where, None, empty=False),
        cleanup=read_string(m, "cleanup", where, None, empty=False),
        shell=_shell(m, where),
        timeout=read_number(m, "timeout", where, None, positive=True),
        ignore_failure=_ignore_failure(m, where),
        output=_output(m, where),
        metric_json=_metric_json(m, where),
        input=None if read_string(m, "input", where, None, empty=False) in (None, "null") else str(m["input"]),
        description=read_string(m, "description", where, "") or "",
        duet=read_bool(m, "duet", where, False),
        measure=measure_option(m, where),
    )


def _shell(m: Mapping[str, Any], where: Where) -> bool | str:
    """`shell`: true/false, or a shell's command line (`none` and `default` as hyperfine reads them)."""
    value = m.get("shell", True)
    if isinstance(value, bool):
        return value
    text = read_string(m, "shell", where, "sh", empty=False) or "sh"
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise where.fail("shell", f"cannot read the shell's command line {text!r}: {exc}") from None
    if text.strip() == "none":
        return False
    if text.strip() == "default" or not words:
        return True
    return text


def _ignore_failure(m: Mapping[str, Any], where: Where) -> bool | tuple[int, ...]:
    """`ignore_failure`: true/false, or the exit codes that are measured rather than failed."""
    value = m.get("ignore_failure")
    if isinstance(value, (list, tuple)):
        if not value or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in value):
            raise where.fail("ignore_failure", f"ignore_failure must be true, false or exit codes, not {shown(value)}")
        return tuple(sorted(set(value)))
    return read_bool(m, "ignore_failure", where, False)


def failure_ignored(options: Mapping[str, Any], exit_code: int) -> bool:
    """Whether a run that exited with `exit_code` (non-zero) is measured anyway (`options`: a benchmark's)."""
    ignore = options.get("ignore_failure", False)
    if isinstance(ignore, (list, tuple)):
        return exit_code in ignore
    return bool(ignore)


def failure_advice(options: Mapping[str, Any]) -> str:
    """How to measure a failing run anyway, for the error that stops the benchmark."""
    ignore = options.get("ignore_failure", False)
    if isinstance(ignore, (list, tuple)):
        return (f"it is not among --ignore-failure={','.join(str(c) for c in ignore)}: add it there, "
                "or use -i for any exit code")
    return "use -i/--ignore-failure to measure it anyway"


OUTPUT_MODES = ("auto", "null", "pipe", "inherit")
"""`output` values that are not a file's path."""


def _output(m: Mapping[str, Any], where: Where) -> str:
    output = read_string(m, "output", where, "auto", empty=False) or "auto"
    if output in ("null", "pipe", "inherit") and m.get("metrics"):
        raise where.fail("output", f"{output!r} discards the output, where the metrics ({', '.join(m['metrics'])}) "
                                   "are read; leave it out or give a file")
    return output


def _metric_json(m: Mapping[str, Any], where: Where) -> str | None:
    from pairbench.runners.command.metric_json import METRIC_JSON_FORMATS

    if m.get("metric_json") is None:
        return None
    return read_choice(m, "metric_json", where, tuple(METRIC_JSON_FORMATS))


def _metric_units(m: Mapping[str, Any], where: Where) -> dict[str, str]:
    from pairbench.runners.command.output import UNITS

    value = m.get("metric_units") or {}
    if not isinstance(value, Mapping):
        raise where.fail("metric_units", f"metric_units must be a table of NAME = 'UNIT', not {shown(value)}")
    metrics = m.get("metrics") or {}
    for name, unit in value.items():
        if name not in metrics:
            raise where.fail("metric_units", f"metric {name!r} has a unit but no regex")
        if unit not in UNITS:
            raise where.fail("metric_units", f"metric {name!r}: unknown unit {unit!r}; known: {', '.join(UNITS)}")
    return {str(k): str(v) for k, v in value.items()}
