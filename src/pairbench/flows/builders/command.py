"""The builder of a run of whole commands (`pairbench cmd`, and calibrate's and bisect's steps).

`command_run(commands, names, CommandSettings(...))` validates everything before anything runs: the
names, the hooks given once or once per command, the parameter lists and scans, the metrics.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from typing import Sequence

from pairbench.flows.builders.common import new_run
from pairbench.model import Run

__all__ = ["CommandSettings", "command_run", "parameter_scan", "variant_names", "FLAG_NAMES", "SCAN_MAX_VALUES"]

FLAG_NAMES = {"metric_json": "--metric-json", "output": "--output", "input": "--input", "metrics": "--metric", "setup": "--setup", "prepare": "--prepare", "conclude": "--conclude",
              "cleanup": "--cleanup",
              "shell": "--shell", "timeout": "--timeout", "ignore_failure": "--ignore-failure",
              "measure": "--measure", "duet": "--duet"}
"""The flag that sets each command option, for error messages."""


@dataclass(frozen=True, slots=True)
class CommandSettings:
    """What `cmd`'s flags say beyond the commands and their names (defaults: `cmd` without the flag)."""

    metrics: tuple[str, ...] = ()
    """--metric NAME[:UNIT]=REGEX specs, in order."""
    metric_json: str | None = None
    """--metric-json FORMAT (pyperf)."""
    setup: str | None = None
    prepare: tuple[str, ...] = ()
    """--prepare: once for all commands, or once per command."""
    conclude: tuple[str, ...] = ()
    """--conclude: once for all commands, or once per command."""
    cleanup: str | None = None
    shell: str = "default"
    """A shell name, path or command line; 'none' runs commands without one; 'default' takes sh only
    for a command with shell syntax."""
    timeout: float | None = None
    ignore_failure: bool | tuple[int, ...] = False
    """True: measure any non-zero exit; exit codes: measure those alone (hyperfine's --ignore-failure=1,2)."""
    output: tuple[str, ...] = ()
    """--output: null, pipe, inherit or a file; once for all commands, or once per command."""
    input: str | None = None
    """A file every run reads as its stdin."""
    measure: str | None = None
    """time (default), instructions, or both."""
    duet: bool = False
    parameter_lists: tuple[tuple[str, str], ...] = ()
    """-L VAR V1,V2 pairs."""
    parameter_scan: tuple[str, str, str] | None = None
    """-P VAR MIN MAX."""
    parameter_step: str | None = None
    """-D DELTA (with -P)."""


def command_run(commands: Sequence[str], names: Sequence[str] = (), settings: CommandSettings = CommandSettings(),
                benchmark: str = "command") -> Run:
    """The Run of whole commands, the first the baseline (validated: bad values fail before anything runs).

    Args:
        commands: the command lines (with `--reference`, the reference first).
        names: the name of each command, in order (fewer than the commands: the rest are named by
            their command line).
        settings: what `cmd`'s other flags say (metrics, hooks, shell, parameters...).
        benchmark: the benchmark's name in reports.
    """
    from dataclasses import replace

    from pairbench.errors import UserError
    from pairbench.model import Benchmark, Notice, Variant
    from pairbench.runners.command import parse_metric, resolve_command
    from pairbench.runners.kinds import get_kind
    from pairbench.runners.options import Flags, as_mapping

    s = settings
    parsed = [parse_metric(spec) for spec in s.metrics]
    metrics = {name: rx for name, rx, _ in parsed}
    commands = list(commands)
    given = list(names)
    if len(given) > len(commands):
        raise UserError(f"{len(given)} names (-n) for {len(commands)} commands")
    empty = [i for i, c in enumerate(commands, 1) if not c.strip()]
    if empty:
        raise UserError(f"command {empty[0]} is empty: give the command line to run")
    if any(not n.strip() for n in given):
        raise UserError("-n/--command-name '': a command's name cannot be empty")
    if not benchmark.strip():
        raise UserError("--benchmark/--name '': the benchmark's name cannot be empty")
    params = _parameter_lists(s.parameter_lists)
    if s.parameter_scan:
        var, low, high = s.parameter_scan
        if any(name == var for name, _ in params):
            raise UserError(f"-P {var} and -L {var}: a parameter is given once, by -L or by -P")
        params.append(parameter_scan(var, low, high, step=s.parameter_step))
    elif s.parameter_step is not None:
        raise UserError("-D/--parameter-step-size needs -P/--parameter-scan VAR MIN MAX")
    combos = [dict(zip([p[0] for p in params], vals)) for vals in itertools.product(*[p[1] for p in params])] or [{}]
    variant_list, repeated = variant_names(commands, given, combos)
    variants: list[Variant] = []
    hooks = _command_hooks(s, len(commands))
    for (index, combo), name in zip(itertools.product(range(len(commands)), combos), variant_list):
        variant = Variant(name=name, command=commands[index], params=combo, baseline=not variants)
        variants.append(replace(variant, meta={**resolve_command(variant), **hooks[index]}))
    if len(variants) < 1:
        raise UserError("give at least two commands (or one command with -L VAR V1,V2) to compare")
    kind = get_kind("command")
    typed = kind.parse_options({
        "command": "{variant}",
        "metrics": {name: rx.pattern for name, rx in metrics.items()},
        "metric_units": {name: unit for name, _, unit in parsed if unit},
        "setup": s.setup,
        "prepare": s.prepare[0] if len(s.prepare) == 1 else None,
        "conclude": s.conclude[0] if len(s.conclude) == 1 else None,
        "cleanup": s.cleanup,
        "shell": s.shell,
        "timeout": s.timeout,
        "ignore_failure": s.ignore_failure,
        "output": _output_target(s.output[0]) if len(s.output) == 1 else None,
        "input": _input_file(s.input),
        "metric_json": s.metric_json,
        "measure": s.measure,
        "duet": s.duet,
    }, Flags(FLAG_NAMES))
    bench = Benchmark(name=benchmark, kind="command", metrics=kind.metrics(typed, ()), options=as_mapping(typed))
    run = new_run(variants, [bench])
    if repeated:
        run.notices.append(Notice(
            "duplicate-names", f"repeated names made distinct: {'; '.join(repeated)}",
            "give each command its own -n NAME to choose the names", bench.name))
    return run


def _command_hooks(s: CommandSettings, count: int) -> list[dict[str, str]]:
    """Per-command --prepare/--conclude/--output (hyperfine: given once per command, the i-th goes
    with the i-th command), as each variant's own; one given applies to all and stays the benchmark's."""
    from pairbench.errors import UserError

    hooks: list[dict[str, str]] = [{} for _ in range(count)]
    outputs = [_output_target(o) or "auto" for o in s.output]
    if len(outputs) > 1 and s.metrics and any(o in ("null", "pipe", "inherit") for o in outputs):
        raise UserError("--output: a command's output that is discarded cannot give --metric values; give files")
    for key, given in (("prepare", list(s.prepare)), ("conclude", list(s.conclude)), ("output", outputs)):
        if len(given) <= 1:
            continue
        if len(given) != count:
            raise UserError(f"--{key} given {len(given)} times for {count} commands: give it once for all, "
                            "or once per command")
        if any(not g.strip() for g in given):
            raise UserError(f"--{key} '': a {key} command cannot be empty")
        for hook, text in zip(hooks, given):
            hook[key] = text
    return hooks


def _output_target(output: str | None) -> str | None:
    """--output as the runner takes it: a mode, or the file's absolute path (runs may change directory)."""
    from pairbench.errors import UserError
    from pairbench.runners.command import OUTPUT_MODES, unwritable

    if output is None or output in OUTPUT_MODES:
        return output
    problem = unwritable(output)
    if problem is not None:
        raise UserError(f"--output {output}: {problem}")
    return os.path.abspath(output)


def _input_file(path: str | None) -> str | None:
    """--input FILE, checked now: a missing file would fail every run."""
    from pairbench.errors import UserError

    if path is None or path == "null":
        return None
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise UserError(f"--input {path}: no readable file there; give the file the commands read as stdin")
    return os.path.abspath(path)


def _parameter_lists(specs: Sequence[Sequence[str]]) -> list[tuple[str, list[str]]]:
    """`-L VAR V1,V2` pairs, checked."""
    from pairbench.errors import UserError

    params: list[tuple[str, list[str]]] = []
    for var, values in specs:
        items = values.split(",")
        if not var.isidentifier():
            raise UserError(f"-L {var!r}: the parameter name must be a word")
        if not all(items):
            raise UserError(f"-L {var} {values!r}: empty value in the list")
        if any(name == var for name, _ in params):  # hyperfine refuses it too: which value would {var} take?
            raise UserError(f"-L {var} is given twice: give each parameter once, with all its values "
                            f"(-L {var} V1,V2,...)")
        params.append((var, items))
    return params


SCAN_MAX_VALUES = 100_000
"""Most values of one -P scan (hyperfine's limit too)."""


def parameter_scan(var: str, low: str, high: str, step: str | None = None) -> tuple[str, list[str]]:
    """`-P VAR MIN MAX [-D DELTA]` as hyperfine reads it: whole numbers without -D, exact decimals with it.

    Decimal arithmetic, so `-P delay 0.3 0.7 -D 0.2` gives 0.3, 0.5, 0.7 (binary floats would
    stop at 0.5 and write 0.30000000000000004).
    """
    from decimal import Decimal, InvalidOperation

    from pairbench.errors import UserError

    where = f"-P {var} {low} {high}" + (f" -D {step}" if step is not None else "")
    if not var.isidentifier():
        raise UserError(f"{where}: the parameter name must be a word")
    try:
        start, end = Decimal(low), Decimal(high)
        delta = Decimal(step) if step is not None else Decimal(1)
    except InvalidOperation:
        raise UserError(f"{where}: MIN, MAX and DELTA must be numbers") from None
    if not all(x.is_finite() for x in (start, end, delta)):
        raise UserError(f"{where}: MIN, MAX and DELTA must be finite numbers")
    if step is None and not (start == start.to_integral_value() and end == end.to_integral_value()):
        raise UserError(f"{where}: MIN and MAX must be whole numbers; give -D STEP for decimal values")
    if end < start:
        raise UserError(f"{where}: MAX is below MIN, so there is nothing to scan")
    if delta <= 0:
        raise UserError(f"{where}: the step must be positive")
    if (end - start) / delta >= SCAN_MAX_VALUES:
        raise UserError(f"{where}: more than {SCAN_MAX_VALUES} values; use a larger step")
    values = []
    value = start
    while value <= end:
        values.append(str(value) if step is not None else str(int(value)))
        value += delta
    return var, values


def variant_names(commands: list[str], given: list[str], combos: list[dict[str, str]]) -> tuple[list[str], list[str]]:
    """The name of every (command, parameter combination), in that order, and the names that repeated.

    A name given with -n may hold `{VAR}` placeholders (hyperfine's `-n 'one-{a}'`), filled per
    combination; otherwise the combination is appended (`name a=1`). Identical names (the A/A
    check `cmd X X`) get ` #2`, ` #3`, ... so that both run, as hyperfine runs them.
    """
    names: list[str] = []
    for i, command in enumerate(commands):
        base = given[i] if i < len(given) else command
        for combo in combos:
            if not combo:
                names.append(base)
            elif i < len(given) and any("{" + k + "}" in base for k in combo):
                names.append(_fill(base, combo))
            else:
                label = " ".join(f"{k}={v}" for k, v in combo.items())
                names.append(label if len(commands) == 1 else f"{base} {label}")
    return _distinct(names)


def _fill(template: str, combo: dict[str, str]) -> str:
    for key, value in combo.items():
        template = template.replace("{" + key + "}", value)
    return template


def _distinct(names: list[str]) -> tuple[list[str], list[str]]:
    """`names` with repeats suffixed ` #2`, ` #3` (never colliding with a name already there), and
    what was renamed."""
    taken = set(names)
    seen: dict[str, int] = {}
    out: list[str] = []
    repeated: list[str] = []
    for name in names:
        count = seen.get(name, 0) + 1
        seen[name] = count
        if count == 1:
            out.append(name)
            continue
        candidate = f"{name} #{count}"
        while candidate in taken:
            count += 1
            candidate = f"{name} #{count}"
        seen[name] = count
        taken.add(candidate)
        out.append(candidate)
        repeated.append(f"{candidate!r} is another {name!r}")
    return out, repeated
