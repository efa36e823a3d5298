"""Flags shared by every measuring subcommand, defined once, and their typed settings (flows.settings.Measuring)."""

from __future__ import annotations

import argparse
import os
import sys

from pairbench.report.display import SORTS, STYLES, TIME_UNITS
from pairbench.report.formats import EXPORTED, FORMATS, export_flag
from pairbench.run_settings import DEFAULT_BOUND_S, DEFAULT_PROFILE_BLOCKS

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any, Callable, NoReturn

    from pairbench.flows.settings import Measuring, Reports, RunOptions

__all__ = ["add_run_options", "intermix_positionals", "options_from_args", "fake_from", "reports_from", "measuring_from",
           "positive_float", "threshold_percent", "DEBUG_FAKE_ENV"]

DEBUG_FAKE_ENV = "PAIRBENCH_DEBUG_FAKE"


class _IntermixedParser(argparse.ArgumentParser):
    """A parser that takes its positionals from between its flags (`-n A cmd1 -n B cmd2`)."""

    _inside = False

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if self._inside:  # the intermixed parse's own two passes
            return super().parse_known_args(args, namespace)
        self._inside = True
        try:
            given = list(sys.argv[1:] if args is None else args)
            namespace, extras = self.parse_known_intermixed_args(_shield_after_dashes(given), namespace)
            return _unshield(namespace), [_unshield(e) for e in extras]
        finally:
            self._inside = False

    def error(self, message: str) -> NoReturn:
        """argparse's error, with a value that followed `--` quoted as typed (not with its mark)."""
        super().error(message.replace(repr(_SHIELD)[1:-1], "").replace(_SHIELD, ""))


_SHIELD = "\0"
"""Marks a word that followed `--`: no argv word can hold a NUL byte, so the mark is unambiguous."""


def _shield_after_dashes(args: list[str]) -> list[str]:
    """The words after the first `--` made safe from the flag parser (argparse's intermixed parse
    drops positionals that come after `--`, so `cmd -- -x` lost `-x`)."""
    if "--" not in args:
        return args
    cut = args.index("--")
    return args[:cut] + [_SHIELD + word for word in args[cut + 1:]]


def _unshield(value: Any) -> Any:
    if isinstance(value, str):
        return value[len(_SHIELD):] if value.startswith(_SHIELD) else value
    if isinstance(value, list):
        return [_unshield(v) for v in value]
    if isinstance(value, argparse.Namespace):
        for key, item in vars(value).items():
            setattr(value, key, _unshield(item))
    return value


def intermix_positionals(parser: argparse.ArgumentParser) -> None:
    """Let a subcommand's positionals sit between its flags, as hyperfine's do.

    argparse takes a positional's values in one run, so `-n A cmd1 -n B cmd2` left `cmd2`
    unrecognized; the intermixed parse reads the flags first, then every positional in order.
    """
    parser.__class__ = _IntermixedParser


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be positive")
    return value


def _whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least `minimum`, with the bound in the message."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            bound = "0 or more" if minimum == 0 else f"at least {minimum}"
            raise argparse.ArgumentTypeError(f"{text!r} must be {bound}")
        return value

    return parse


def threshold_percent(text: str) -> float:
    """A --threshold percentage, with or without its sign as --plan takes it: `2`, `2%` -> 2.0."""
    try:
        return float(text.strip().removesuffix("%").strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage (e.g. 2 or 2%)") from None


def _threshold(text: str) -> float | str:
    """--threshold: a percentage, or `auto` (the band `pairbench calibrate` stored)."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return threshold_percent(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage (e.g. 2 or 2%) or 'auto'") from None


def percent(text: str) -> float:
    """A percentage as --threshold reads it, with or without its sign: `2`, `2%` or `0.5 %` -> 2.0."""
    body = text.lstrip(_SHIELD).strip().removesuffix("%").strip()
    try:
        value = float(body)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage (e.g. 2 or 2%)") from None
    if not 0 < value < 100:
        raise argparse.ArgumentTypeError(f"{text!r} must be a percentage between 0 and 100 (e.g. 2%)")
    return value


def add_plan_option(parser: argparse.ArgumentParser) -> None:
    """--plan EFFECT: the measuring commands that can plan a run (cmd, run, micro)."""
    parser.add_argument("--plan", type=percent, metavar="EFFECT",
                        help="measure nothing but a short pilot (the -r blocks, 10 by default) or read the stored "
                             "calibration, then print how many blocks and how much time detecting a change of "
                             "EFFECT percent (e.g. 2%%) with 80%% power takes, and stop")


_non_negative_int = _whole_number(0)
_positive_int = _whole_number(1)


def add_run_options(parser: argparse.ArgumentParser, runs: int | None = 10, warmup: int | None = 1) -> None:
    """Add the measuring and reporting flags (hyperfine's spellings where it has them).

    Defaults of None leave the value unset, so a suite file's defaults can apply.
    """
    g = parser.add_argument_group("measurement")
    g.add_argument("-r", "--runs", type=_positive_int, default=runs, metavar="N", action=_GivenRuns,
                   help=f"blocks to measure; every variant runs once per block, in random order; alone, exactly N "
                        f"(default: at least {runs or 10}, then blocks are added until every comparison is settled, "
                        f"for at most {DEFAULT_BOUND_S:g} s; with --max-time or --max-runs: the minimum)")
    g.add_argument(*_free(parser, "-m"), "--min-runs", dest="runs", type=_positive_int, metavar="N",
                   action=_GivenRuns,
                   help="hyperfine's spelling of the minimum: the same as -r")
    g.add_argument("-w", "--warmup", type=_non_negative_int, default=warmup, metavar="N",
                   help=f"warm-up runs per variant, discarded (default {warmup if warmup is not None else 1})")
    g.add_argument("--max-time", type=positive_float, metavar="SECONDS",
                   help="time budget for the whole run, warm-ups included; adds blocks until every comparison "
                        "is settled (looks are planned and their CIs widened, so stopping early keeps the error "
                        "rate); stops at once, saying the time needed, when the -r minimum cannot fit")
    g.add_argument(*_free(parser, "-M"), "--max-runs", type=_positive_int, metavar="N",
                   help="most blocks: adds blocks after -r until every comparison is settled or N are measured "
                        "(within --max-time when given)")
    g.add_argument("--seed", type=int, help="seed of the random order, to reproduce a plan")
    g.add_argument("--profile", action="store_true",
                   help="also profile each variant (py-spy for Python, perf or callgrind for native code) in "
                        "profiling blocks apart from the timed ones, and show where the time difference goes")
    g.add_argument("--profile-blocks", type=_positive_int, metavar="N",
                   help=f"profiling blocks with --profile (default {DEFAULT_PROFILE_BLOCKS}): each gives every "
                        "frame's difference once, so several give it an interval")
    s = parser.add_argument_group("statistics")
    s.add_argument("--threshold", type=_threshold, metavar="PCT", default=None,
                   help="noise band δ in percent (2 or 2%%): differences inside ±δ count as no difference (default 1); "
                        "'auto': the band `pairbench calibrate` stored for this machine and benchmark")
    s.add_argument("--confidence", type=float, default=0.95, help="confidence level of intervals (default 0.95)")
    s.add_argument("--correction", choices=("holm", "bh", "none"), default="holm",
                   help="multiplicity correction across comparisons (default holm)")
    o = parser.add_argument_group("output")
    o.add_argument("--export-json", metavar="FILE",
                   help="write the run file here, saved after every replicate ('-': standard output, once at the "
                        "end, and the report goes to standard error; a FIFO or device also gets it once at the end)")
    o.add_argument("--fail-on-regression", action="store_true",
                   help="exit with code 3 when a candidate is significantly slower beyond the noise band")
    o.add_argument("--history", metavar="PATH_OR_URL", help="history store (SQLite path or postgresql:// URL)")
    o.add_argument("--no-history", action="store_true", help="do not record this run in the history store")
    for fmt in EXPORTED:  # the format list of report/formats.py
        o.add_argument(export_flag(fmt), metavar="FILE", dest="export_" + fmt.replace("-", "_"), help=FORMATS[fmt])
    o.add_argument("--export-folded", metavar="DIR",
                   help="with --profile: write folded stacks here, one file per variant and one per difference "
                        "(flamegraph.pl, inferno, speedscope)")
    o.add_argument("--no-progress", action="store_true", help="no live progress bar (and, off a terminal, no progress line every 30 s)")
    o.add_argument("--style", choices=STYLES, default="auto",
                   help="output style, as hyperfine's: auto (colour and live bar on a terminal), basic (neither), "
                        "full (both, even off a terminal), nocolor, color (colour, no bar), none (no output)")
    o.add_argument(*_free(parser, "-u"), "--time-unit", choices=TIME_UNITS, metavar="UNIT",
                   help="write every time in this unit: " + ", ".join(TIME_UNITS) + " (default: chosen per value; "
                        "CSV and JSON stay in seconds)")
    o.add_argument(*_free(parser, "-v"), "--verbose", action="store_true",
                   help="the full report: every metric's row (user, sys, rss too), each comparison's notes, "
                        "every notice (default: the primary metric's table, a sentence per comparison, "
                        "each note and warning once)")
    o.add_argument("--sort", choices=SORTS, default="auto",
                   help="order of the variants in the tables: auto and command (as given), mean-time (fastest first)")
    # Hidden: scripted timings instead of real processes, so CLI tests run in milliseconds.
    o.add_argument("--debug-fake", nargs="?", const="", default=None, metavar="FACTORS", help=argparse.SUPPRESS)


class _GivenRuns(argparse.Action):
    """Stores -r/-m and notes that it was given, so that -M alone can lower the default minimum."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.runs_given = True


def _free(parser: argparse.ArgumentParser, *shorts: str) -> list[str]:
    """The hyperfine short flags that this subcommand has not given another meaning (`http -m` is
    ab's method)."""
    taken = parser._option_string_actions  # argparse's own index of the option strings
    return [s for s in shorts if s not in taken]


def options_from_args(args: argparse.Namespace, **defaults: object) -> RunOptions:
    """Typed options from parsed flags; `defaults` (from a suite file) fill what flags left unset."""
    from pairbench.flows.settings import RunOptions

    def pick(name: str, fallback: object) -> object:
        value = getattr(args, name, None)
        if value is not None:
            return value
        return defaults.get(name, fallback)

    runs_given = getattr(args, "runs_given", False) or defaults.get("runs") is not None
    runs = int(pick("runs", 10))  # type: ignore[call-overload]
    max_runs = pick("max_runs", None)
    max_time = pick("max_time", None)
    if isinstance(max_runs, int) and max_runs < runs and not getattr(args, "runs_given", False):
        runs = max_runs  # `-M 5` alone, as in hyperfine: at most 5, so the default minimum gives way
    # none of -r, --max-time, -M: measure until settled, within the default bound
    bound = DEFAULT_BOUND_S if not runs_given and max_time is None and max_runs is None else None
    return RunOptions(
        runs=runs,
        warmup=int(pick("warmup", 1)),  # type: ignore[call-overload]
        max_time=max_time,  # type: ignore[arg-type]
        max_runs=max_runs,  # type: ignore[arg-type]
        threshold=float(pick("threshold", 1.0)) if pick("threshold", 1.0) != "auto" else 1.0,  # type: ignore[arg-type]
        confidence=float(pick("confidence", 0.95)),  # type: ignore[arg-type]
        export_json=pick("export_json", None),  # type: ignore[arg-type]
        fail_on_regression=bool(pick("fail_on_regression", False)),
        seed=pick("seed", None),  # type: ignore[arg-type]
        correction=str(pick("correction", "holm")),
        history=pick("history", None),  # type: ignore[arg-type]
        record_history=not bool(getattr(args, "no_history", False)),
        default_bound=bound,
        profile=_profile_blocks(args, defaults.get("profile")),
    )


def _profile_blocks(args: argparse.Namespace, suite: object = None) -> int:
    """--profile's blocks: --profile-blocks N (which implies --profile), else the suite's `profile`
    (a count; --profile keeps it, or the default where it is 0), else the default with --profile; 0 without."""
    blocks = getattr(args, "profile_blocks", None)
    if blocks is not None:
        return int(blocks)
    given = int(suite) if isinstance(suite, int) else 0
    if getattr(args, "profile", False):
        return given or DEFAULT_PROFILE_BLOCKS
    return given


def fake_from(args: argparse.Namespace) -> tuple[float, ...] | None:
    """`--debug-fake[=F1,F2,...]` or PAIRBENCH_DEBUG_FAKE: scripted timings, no process runs.

    Like hyperfine's --debug-mode, with an effect to find: variant i takes Fi times the first
    one's time (missing factors are 1). For tests of the CLI's plumbing.
    """
    spec = getattr(args, "debug_fake", None)
    if spec is None:
        spec = os.environ.get(DEBUG_FAKE_ENV)
    if spec is None:
        return None
    from pairbench.errors import UserError

    try:
        factors = tuple(float(x) for x in spec.split(",") if x.strip())
    except ValueError:
        raise UserError(f"--debug-fake {spec!r}: expected factors such as 1,1.2") from None
    if any(not f > 0 for f in factors):
        raise UserError(f"--debug-fake {spec!r}: the factors must be positive numbers")
    return factors


def reports_from(args: argparse.Namespace, **choices: Any) -> Reports:
    """The report choices of the shared `--export-FORMAT` flags (report/formats.py EXPORTED)."""
    from pairbench.flows.settings import Reports as ReportsT

    exports = tuple((fmt, getattr(args, "export_" + fmt.replace("-", "_"))) for fmt in EXPORTED
                    if getattr(args, "export_" + fmt.replace("-", "_"), None))
    folded = getattr(args, "export_folded", None)
    if folded is not None:
        choices.setdefault("export_folded", folded)
    shown = {"style": getattr(args, "style", "auto") or "auto", "time_unit": getattr(args, "time_unit", None),
             "sort": getattr(args, "sort", "auto") or "auto", "verbose": bool(getattr(args, "verbose", False))}
    return ReportsT(exports=exports, **{**shown, **choices})


def measuring_from(args: argparse.Namespace, options: RunOptions | None = None, reports: Reports | None = None,
                   **defaults: object) -> Measuring:
    """The shared measuring flags as typed settings (options from the flags and `defaults` unless given,
    the shared --export-FORMAT reports unless given, progress, --debug-fake, --threshold auto)."""
    from pairbench.flows.settings import Measuring as MeasuringT

    return MeasuringT(options=options if options is not None else options_from_args(args, **defaults),
                      reports=reports if reports is not None else reports_from(args),
                      progress=not getattr(args, "no_progress", False), fake=fake_from(args),
                      auto_threshold=getattr(args, "threshold", None) == "auto",
                      plan=plan / 100.0 if (plan := getattr(args, "plan", None)) is not None else None)
