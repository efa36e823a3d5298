"""`pairbench cmd`: compare whole commands (hyperfine's flags, with an honest verdict)."""

from __future__ import annotations

import argparse
import itertools
import os

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

from pairbench.commands.common import add_run_options, intermix_positionals, new_run, options_from_args, positive_float

__all__ = ["register", "build_command_run", "variant_names"]

EPILOG = """examples:
  pairbench cmd 'ruby-head fib.rb 10000 1000' 'ruby-fiber fib.rb 10000 1000' \\
      --metric 'setup=setup time for \\d+ fibers: ([\\d.]+)' --metric 'exec=execution time for \\d+ messages: ([\\d.]+)'
  pairbench cmd -L py python3.11,/usr/bin/python3 '{py} -c "import json"'
  pairbench cmd --reference 'git-old status' 'git status' --fail-on-regression

A command may also print metrics as a JSON line: {"pairbench": {"NAME": VALUE, ...}}
"""

FLAG_NAMES = {"metric_json": "--metric-json", "output": "--output", "input": "--input", "metrics": "--metric", "setup": "--setup", "prepare": "--prepare", "conclude": "--conclude",
              "cleanup": "--cleanup",
              "shell": "--shell", "timeout": "--timeout", "ignore_failure": "--ignore-failure",
              "measure": "--measure", "duet": "--duet"}
"""The flag that sets each command option, for error messages."""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "cmd",
        help="compare whole commands (the first is the baseline)",
        description="Run each command in interleaved randomized blocks and compare it with the baseline.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # hyperfine's usual form puts each name before its command (`-n A 'cmd1' -n B 'cmd2'`): the
    # commands are collected from between the flags.
    intermix_positionals(p)
    p.add_argument("commands", nargs="+", metavar="COMMAND",
                   help="commands to compare; the first is the baseline (one command alone is measured, as "
                        "hyperfine does)")
    p.add_argument("--reference", metavar="CMD", help="the baseline command (then every positional one is a candidate)")
    p.add_argument("-n", "--command-name", action="append", default=[], metavar="NAME",
                   help="name of a command, in order (repeatable)")
    # --benchmark as in `import` (--name names a variant in http, micro and import); --name is the
    # earlier spelling, kept working but no longer shown.
    p.add_argument("--benchmark", default="command", metavar="NAME",
                   help="name of the benchmark in reports (default: command)")
    p.add_argument("--name", dest="benchmark", help=argparse.SUPPRESS)
    p.add_argument("-L", "--parameter-list", nargs=2, action="append", default=[], metavar=("VAR", "VALUES"),
                   help="run each command once per comma-separated value, substituted for {VAR}")
    p.add_argument("-P", "--parameter-scan", nargs=3, metavar=("VAR", "MIN", "MAX"),
                   help="run each command once per value from MIN to MAX, substituted for {VAR} (steps of 1, "
                        "or of -D)")
    p.add_argument("-D", "--parameter-step-size", metavar="DELTA",
                   help="step of -P; may be a decimal (-P delay 0.3 0.7 -D 0.2: 0.3, 0.5, 0.7)")
    p.add_argument("-s", "--setup", metavar="CMD", help="run once per variant before any measurement")
    p.add_argument("-p", "--prepare", metavar="CMD", action="append", default=[],
                   help="run before every measured run (not timed); once for all commands, or once per command")
    p.add_argument("-C", "--conclude", metavar="CMD", action="append", default=[],
                   help="run after every measured run (not timed); once for all commands, or once per command")
    p.add_argument("-c", "--cleanup", metavar="CMD", help="run once per variant after all measurements")
    p.add_argument("-S", "--shell", default="sh", metavar="SHELL",
                   help="the shell that runs each command: a name, path or command line (bash, zsh, 'bash --norc'); "
                        "its start-up is measured and subtracted; 'none' runs commands without a shell (default: sh)")
    p.add_argument("-N", dest="shell", action="store_const", const="none", help="same as --shell=none")
    p.add_argument("--timeout", type=positive_float, metavar="SECONDS", help="kill a run that takes longer")
    p.add_argument("-i", "--ignore-failure", action="store_true", help="measure commands that exit non-zero")
    p.add_argument("--output", metavar="WHERE", action="append", default=[],
                   help="where each run's stdout goes: null (default once no metric line is seen), pipe (read "
                        "and discarded: for programs that detect /dev/null), inherit (shown), or FILE; once for all "
                        "commands, or once per command")
    p.add_argument("--show-output", dest="output", action="append_const", const="inherit",
                   help="show the commands' output (same as --output=inherit; no progress bar)")
    p.add_argument("--input", metavar="FILE", help="a file every run reads as its stdin (default: null)")
    p.add_argument("--metric", action="append", default=[], metavar="NAME[:UNIT]=REGEX",
                   help="a number the command prints (the regex's first group; a second group captures "
                   "its unit, or :UNIT names it: ns, us, ms, s, min, B, kB, MB...); repeatable")
    p.add_argument("--metric-json", choices=("pyperf",), metavar="FORMAT",
                   help="read metrics from the JSON each run writes to $PAIRBENCH_METRIC_JSON, e.g. pyperf: "
                   "'python3 bm_x.py -o \"$PAIRBENCH_METRIC_JSON\"' (one metric per pyperf benchmark)")
    p.add_argument("--measure", default=None, metavar="WHAT",
                   help="time (default), instructions (counted exactly under perf or valgrind), or both: "
                        "instructions,time (the first is the primary metric)")
    p.add_argument("--duet", action="store_true",
                   help="run baseline and candidate at the same time, each pinned to its own CPU (needs 2 CPUs); "
                        "compared on wall and on CPU time")
    add_run_options(p)
    p.set_defaults(handler=_handle)


def build_command_run(args: argparse.Namespace) -> Any:
    """The Run described by `cmd`'s flags (validated: bad flags fail before anything runs)."""
    from pairbench.errors import UserError
    from pairbench.model import Benchmark, Notice, Variant
    from dataclasses import replace

    from pairbench.runners.command import parse_metric, resolve_command
    from pairbench.runners.kinds import get_kind
    from pairbench.runners.options import Flags, as_mapping

    parsed = [parse_metric(spec) for spec in args.metric]
    metrics = {name: rx for name, rx, _ in parsed}
    commands = list(args.commands)
    if args.reference:
        commands.insert(0, args.reference)
    if len(args.command_name) > len(commands):
        raise UserError(f"{len(args.command_name)} names (-n) for {len(commands)} commands")
    empty = [i for i, c in enumerate(commands, 1) if not c.strip()]
    if empty:
        raise UserError(f"command {empty[0]} is empty: give the command line to run")
    if any(not n.strip() for n in args.command_name):
        raise UserError("-n/--command-name '': a command's name cannot be empty")
    if not args.benchmark.strip():
        raise UserError("--benchmark/--name '': the benchmark's name cannot be empty")
    params = _parameter_lists(args.parameter_list)
    if args.parameter_scan:
        var, low, high = args.parameter_scan
        params.append(parameter_scan(var, low, high, step=args.parameter_step_size))
    elif args.parameter_step_size is not None:
        raise UserError("-D/--parameter-step-size needs -P/--parameter-scan VAR MIN MAX")
    combos = [dict(zip([p[0] for p in params], vals)) for vals in itertools.product(*[p[1] for p in params])] or [{}]
    names, repeated = variant_names(commands, args.command_name, combos)
    variants: list[Variant] = []
    hooks = _command_hooks(args, len(commands))
    for (index, combo), name in zip(itertools.product(range(len(commands)), combos), names):
        variant = Variant(name=name, command=commands[index], params=combo, baseline=not variants)
        variants.append(replace(variant, meta={**resolve_command(variant), **hooks[index]}))
    if len(variants) < 1:
        raise UserError("give at least two commands (or one command with -L VAR V1,V2) to compare")
    kind = get_kind("command")
    typed = kind.parse_options({
        "command": "{variant}",
        "metrics": {name: rx.pattern for name, rx in metrics.items()},
        "metric_units": {name: unit for name, _, unit in parsed if unit},
        "setup": args.setup,
        "prepare": args.prepare[0] if len(args.prepare) == 1 else None,
        "conclude": args.conclude[0] if len(args.conclude) == 1 else None,
        "cleanup": args.cleanup,
        "shell": args.shell,
        "timeout": args.timeout,
        "ignore_failure": args.ignore_failure,
        "output": _output_target(args.output[0]) if len(args.output) == 1 else None,
        "input": _input_file(args.input),
        "metric_json": args.metric_json,
        "measure": getattr(args, "measure", None),
        "duet": bool(getattr(args, "duet", False)),
    }, Flags(FLAG_NAMES))
    bench = Benchmark(name=args.benchmark, kind="command", metrics=kind.metrics(typed, ()), options=as_mapping(typed))
    run = new_run(variants, [bench])
    if repeated:
        run.notices.append(Notice(
            "duplicate-names", f"repeated names made distinct: {'; '.join(repeated)}",
            "give each command its own -n NAME to choose the names", bench.name))
    return run


def _command_hooks(args: argparse.Namespace, count: int) -> list[dict[str, str]]:
    """Per-command --prepare/--conclude/--output (hyperfine: given once per command, the i-th goes
    with the i-th command), as each variant's own; one given applies to all and stays the benchmark's."""
    from pairbench.errors import UserError

    hooks: list[dict[str, str]] = [{} for _ in range(count)]
    outputs = [_output_target(o) or "auto" for o in args.output]
    if len(outputs) > 1 and args.metric and any(o in ("null", "pipe", "inherit") for o in outputs):
        raise UserError("--output: a command's output that is discarded cannot give --metric values; give files")
    for key, given in (("prepare", args.prepare), ("conclude", args.conclude), ("output", outputs)):
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
    from pairbench.runners.command import OUTPUT_MODES

    if output is None or output in OUTPUT_MODES:
        return output
    return os.path.abspath(output)


def _input_file(path: str | None) -> str | None:
    """--input FILE, checked now: a missing file would fail every run."""
    from pairbench.errors import UserError

    if path is None or path == "null":
        return None
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise UserError(f"--input {path}: no readable file there; give the file the commands read as stdin")
    return os.path.abspath(path)


def _parameter_lists(specs: list[list[str]]) -> list[tuple[str, list[str]]]:
    """`-L VAR V1,V2` pairs, checked."""
    from pairbench.errors import UserError

    params: list[tuple[str, list[str]]] = []
    for var, values in specs:
        items = values.split(",")
        if not var.isidentifier():
            raise UserError(f"-L {var!r}: the parameter name must be a word")
        if not all(items):
            raise UserError(f"-L {var} {values!r}: empty value in the list")
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


def _handle(args: argparse.Namespace) -> int:
    from pairbench.commands.common import run_measured

    from pairbench.errors import UserError

    options = options_from_args(args)
    if "inherit" in args.output and options.export_json == "-":
        raise UserError("--show-output/--output=inherit and --export-json - would both write to standard output; "
                        "give --export-json a file")
    run = build_command_run(args)
    if "inherit" in args.output:
        args.no_progress = True  # the commands' own output would tear a live bar
    return run_measured(run, options, args)
