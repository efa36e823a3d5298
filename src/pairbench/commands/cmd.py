"""`pairbench cmd`: compare whole commands (hyperfine's flags, with an honest verdict)."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

from pairbench.commands.common import add_plan_option, add_run_options, intermix_positionals, measuring_from, positive_float

__all__ = ["register", "command_request", "command_measuring", "build_command_run"]

EPILOG = """examples:
  pairbench cmd 'ruby-head fib.rb 10000 1000' 'ruby-fiber fib.rb 10000 1000' \\
      --metric 'setup=setup time for \\d+ fibers: ([\\d.]+)' --metric 'exec=execution time for \\d+ messages: ([\\d.]+)'
  pairbench cmd -L py python3.11,/usr/bin/python3 '{py} -c "import json"'
  pairbench cmd --reference 'git-old status' 'git status' --fail-on-regression

A command may also print metrics as a JSON line: {"pairbench": {"NAME": VALUE, ...}}
"""

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
    _accept_ignored_codes(p)
    p.add_argument("commands", nargs="+", metavar="COMMAND",
                   help="commands to compare; the first is the baseline (one command alone is measured, as "
                        "hyperfine does)")
    p.add_argument("--reference", metavar="CMD", help="the baseline command (then every positional one is a candidate)")
    p.add_argument("--reference-name", metavar="NAME",
                   help="name of the --reference command (then each -n names a positional command)")
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
    p.add_argument("-S", "--shell", default="default", metavar="SHELL",
                   help="the shell that runs each command: a name, path or command line (sh, bash, 'bash --norc'); "
                        "its fastest start-up is measured and subtracted; 'none' runs commands without a shell "
                        "(default: sh for a command with shell syntax, none for a plain program and its arguments)")
    p.add_argument("-N", dest="shell", action="store_const", const="none", help="same as --shell=none")
    p.add_argument("--timeout", type=positive_float, metavar="SECONDS", help="kill a run that takes longer")
    p.add_argument("-i", "--ignore-failure", action="store_true",
                   help="measure commands that exit non-zero; --ignore-failure=1,2 ignores those exit codes alone "
                        "(--ignore-failure=all-non-zero: every one, as -i)")
    p.add_argument(_CODES_FLAG, dest="ignore_codes", help=argparse.SUPPRESS)
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
                   help="time (default), instructions (counted exactly under perf or valgrind), counters (time "
                        "and poop's counter set, each with a verdict: perf's, else simulated by cachegrind as "
                        "sim-...), or a list: instructions,time or cycles,page-faults (the first is primary)")
    p.add_argument("--min-benchmarking-time", type=positive_float, metavar="SECONDS",
                   help="measure each command for at least SECONDS: after the first block, the -r minimum is "
                        "raised to the blocks that take (within -M and --max-time)")
    p.add_argument("--duet", action="store_true",
                   help="run baseline and candidate at the same time, each pinned to its own CPU (needs 2 CPUs); "
                        "compared on wall and on CPU time")
    add_run_options(p)
    add_plan_option(p)
    p.set_defaults(handler=_handle)


def command_request(args: argparse.Namespace) -> tuple[list[str], list[str], Any, str]:
    """(commands, names, CommandSettings, benchmark) from `cmd`'s flags: the arguments of `command_run`."""
    from pairbench.flows.builders.command import CommandSettings

    from pairbench.errors import UserError

    commands = list(args.commands)
    names = list(args.command_name)
    if args.reference:
        commands.insert(0, args.reference)
    if args.reference_name is not None:
        if not args.reference:
            raise UserError("--reference-name names the --reference command: give --reference CMD too")
        names.insert(0, args.reference_name)
    settings = CommandSettings(
        metrics=tuple(args.metric), metric_json=args.metric_json, setup=args.setup, prepare=tuple(args.prepare),
        conclude=tuple(args.conclude), cleanup=args.cleanup, shell=args.shell, timeout=args.timeout,
        ignore_failure=_ignore_failure(args), output=tuple(args.output), input=args.input,
        measure=getattr(args, "measure", None), duet=bool(getattr(args, "duet", False)),
        parameter_lists=tuple((var, values) for var, values in args.parameter_list),
        parameter_scan=tuple(args.parameter_scan) if args.parameter_scan else None,  # type: ignore[arg-type]
        parameter_step=args.parameter_step_size)
    return commands, names, settings, args.benchmark


_CODES_FLAG = "--ignore-failure-codes"
"""Where `--ignore-failure=CODES` lands: hyperfine's flag takes its codes only after '=', so that
`-i CMD` and `--ignore-failure CMD` still read CMD as a command."""


def _accept_ignored_codes(parser: argparse.ArgumentParser) -> None:
    """Read `--ignore-failure=1,2` (before any `--`) as the hidden codes flag; the bare flag stays a switch."""
    base = type(parser)

    def parse_known_args(self: Any, args: Any = None, namespace: Any = None) -> Any:
        if args is not None:
            args = _codes_form(list(args))
        return base.parse_known_args(self, args, namespace)

    parser.__class__ = type("CommandParser", (base,), {"parse_known_args": parse_known_args})


def _codes_form(args: list[str]) -> list[str]:
    out: list[str] = []
    for i, word in enumerate(args):
        if word == "--":
            return out + args[i:]
        if word.startswith("--ignore-failure="):
            out += [_CODES_FLAG, word.partition("=")[2]]
        else:
            out.append(word)
    return out


def _ignore_failure(args: argparse.Namespace) -> bool | tuple[int, ...]:
    """-i (or hyperfine's --ignore-failure=all-non-zero): every non-zero exit; --ignore-failure=1,2:
    those exit codes alone (hyperfine >= 1.20)."""
    from pairbench.errors import UserError

    text = getattr(args, "ignore_codes", None)
    if text is None:
        return bool(args.ignore_failure)
    if text.strip() == "all-non-zero":
        return True
    words = text.split(",")
    if not all(w.strip().isdigit() for w in words):
        raise UserError(f"--ignore-failure={text}: give exit codes as whole numbers separated by commas, "
                        "e.g. --ignore-failure=1,2 (or -i for any non-zero exit)")
    return tuple(sorted({int(w) for w in words}))


def build_command_run(args: argparse.Namespace) -> Any:
    """The Run described by `cmd`'s flags (validated: bad flags fail before anything runs)."""
    from pairbench.flows.builders.command import command_run

    return command_run(*command_request(args))


def command_measuring(args: argparse.Namespace) -> Any:
    """The shared settings of `cmd`'s flags: a command's own output shown (`inherit`) tears no live bar."""
    import dataclasses

    from pairbench.errors import UserError

    measuring = measuring_from(args)
    if args.min_benchmarking_time is not None:
        measuring = dataclasses.replace(measuring, options=dataclasses.replace(
            measuring.options, min_time=args.min_benchmarking_time))
    if "inherit" in args.output and measuring.options.export_json == "-":
        raise UserError("--show-output/--output=inherit and --export-json - would both write to standard output; "
                        "give --export-json a file")
    if "inherit" in args.output:
        measuring = dataclasses.replace(measuring, progress=False)  # the commands' own output would tear a live bar
    return measuring


def _handle(args: argparse.Namespace) -> int:
    from pairbench.flows.measure import measure

    measuring = command_measuring(args)
    return measure(build_command_run(args), measuring)
