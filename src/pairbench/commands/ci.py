"""`pairbench ci`: the pull request's head against its merge-base, measured here, one comment kept up to date.

Flags only: they become a typed `flows.ci.CiRequest`, and the flow does the rest (docs/ci.md).
"""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

from pairbench.commands.common import add_run_options, positive_float

__all__ = ["register", "DEFAULT_MAX_TIME_S", "DEFAULT_THRESHOLD_PCT"]

DEFAULT_MAX_TIME_S = 300.0
"""The measuring budget of the first run (the confirmation run gets the same again, at most)."""
DEFAULT_THRESHOLD_PCT = 2.0
"""The noise band of the gate: shared CI runners are noisier than a quiet desk machine."""

HELP = "compare a pull request's head with its merge-base, built and measured here; comment and gate"

EPILOG = """examples:
  pairbench ci --build 'make -j2' --cmd '{worktree}/bin/tool bench/input.txt'
  pairbench ci bench/pairbench.toml --base main --max-time 600 --comment comment.md
  pairbench ci --cmd 'python {worktree}/bench.py' --threshold 3
  pairbench ci --pytest tests/benchmarks -- -k 'not slow'

Exit codes: 0 no confirmed regression, 3 a regression found and confirmed by a second
interleaved run, 1 an error. In GitHub Actions (pull_request) or a GitLab merge request pipeline,
the comment goes to the job summary and, with a token, to the pull request (docs/ci.md).
"""


def register(sub: Any) -> None:
    p = sub.add_parser("ci", help=HELP,
                       description="Build the merge-base of --base and the head in worktrees, measure them "
                                   "interleaved with adaptive stopping, measure the benchmarks found slower "
                                   "again, and fail only when the regression reproduces.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("suite", nargs="?", metavar="SUITE",
                   help="a suite file whose benchmarks run under both commits ({worktree} is each checkout)")
    p.__class__ = _dash_parser()
    p.add_argument("--cmd", metavar="CMD", help="the benchmark command; {worktree} is the commit's checkout")
    p.add_argument("--pytest", action="append", default=[], metavar="PATH",
                   help="a pytest-benchmark suite (test files or folders, repeatable; pytest's own arguments "
                        "after --), run in each commit's checkout with that checkout's code first on PYTHONPATH")
    p.add_argument("--base", metavar="REF",
                   help="compare with the merge-base of this ref (default: the pull request's base branch from "
                        "the CI environment, else the remote's default branch)")
    p.add_argument("--head", default="HEAD", metavar="REF", help="the commit to judge (default HEAD)")
    p.add_argument("--build", metavar="CMD",
                   help="build command run in each commit's worktree (default: the suite baseline's git build, else none)")
    p.add_argument("--build-timeout", type=positive_float, metavar="SECONDS", help="stop a build that takes longer")
    p.add_argument("--cache-dir", metavar="DIR",
                   help="build cache (default $PAIRBENCH_CACHE_DIR or ~/.cache/pairbench)")
    p.add_argument("--repo", default=".", metavar="DIR", help="the git repository (default: the current folder)")
    p.add_argument("--comment", metavar="FILE", help="also write the comment's Markdown to this file")
    p.add_argument("--no-post", action="store_true", help="never post to the pull request (the summary is still written)")
    _add_pytest_flags(p)
    add_run_options(p, runs=None, warmup=None)
    _say_ci_defaults(p)
    p.set_defaults(handler=_handle, pytest_args=[])


def _dash_parser() -> type:
    from pairbench.commands.pytest import DashArgsParser

    return DashArgsParser


def _add_pytest_flags(p: argparse.ArgumentParser) -> None:
    """How a --pytest suite runs (as `pairbench pytest`, one interpreter for both commits)."""
    g = p.add_argument_group("with --pytest")
    g.add_argument("--python", metavar="EXE|VENV",
                   help="the interpreter or virtual environment of both sides (default python3); {worktree} is the "
                        "commit's checkout, e.g. '{worktree}/.venv' made by --build")
    g.add_argument("-b", "--bench", action="append", default=[], metavar="PATTERN",
                   help="only tests whose node id matches this glob or substring (repeatable)")
    g.add_argument("--samples", type=int, default=5, help="measured samples per process (default 5)")
    g.add_argument("--warmup-samples", type=int, default=1, help="warm-up samples per process (default 1)")
    g.add_argument("--target-time", type=positive_float, default=0.1,
                   help="seconds per sample used to calibrate the loop count (default 0.1)")
    g.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="wall (default) or cpu (the worker's CPU time, blind to other processes)")


def _pytest_settings(args: argparse.Namespace) -> Any:
    from pairbench.errors import UserError
    from pairbench.flows.builders.pytest import PytestSettings

    if not args.pytest:
        if args.pytest_args:
            raise UserError("arguments after -- go to pytest: give the suite with --pytest PATH")
        return None
    if args.samples < 2:
        raise UserError(f"--samples {args.samples}: need at least 2 samples per process")
    return PytestSettings(paths=tuple(args.pytest), args=tuple(args.pytest_args),
                          python=(args.python,) if args.python else (), bench=tuple(args.bench),
                          samples=args.samples, warmup_samples=max(args.warmup_samples, 0),
                          target_time=args.target_time, clock=args.clock)


def _say_ci_defaults(p: argparse.ArgumentParser) -> None:
    """The shared flags' help, with the defaults of `ci` (the gate is always on)."""
    for action in p._actions:  # argparse's own list of the flags
        if action.dest == "threshold":
            action.help = (f"noise band δ in percent: differences inside ±δ count as no difference "
                           f"(default {DEFAULT_THRESHOLD_PCT:g} in ci)")
        elif action.dest == "max_time":
            action.help = (f"time budget of the first run, warm-ups included, with adaptive stopping (default "
                           f"{DEFAULT_MAX_TIME_S:g} s); a confirmation run gets as much again, at most")
        elif action.dest == "warmup":
            action.help = "warm-up runs per variant, discarded (default 1; 0 with --pytest, which warms up in each process)"
        elif action.dest == "fail_on_regression":
            action.help = argparse.SUPPRESS  # ci always exits 3 on a confirmed regression


def _fakes(args: argparse.Namespace) -> tuple[Any, Any]:
    """--debug-fake FIRST[;CONFIRM]: scripted timings of the first and the confirmation run."""
    import os

    from pairbench.commands.common import DEBUG_FAKE_ENV, fake_from

    spec = args.debug_fake if args.debug_fake is not None else os.environ.get(DEBUG_FAKE_ENV)
    if spec is None:
        return None, None
    first, _, again = spec.partition(";")
    one = fake_from(argparse.Namespace(debug_fake=first))
    return one, (fake_from(argparse.Namespace(debug_fake=again)) if again else one)


def _handle(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from pairbench.commands.common import options_from_args, reports_from
    from pairbench.errors import UserError
    from pairbench.flows.ci import CiRequest, run_ci
    from pairbench.flows.measure import observer_for

    if sum(map(bool, (args.cmd, args.suite, args.pytest))) != 1:
        raise UserError("say what to measure: --cmd '{worktree}/...', a suite file or --pytest PATH (one of them)")
    if args.cmd and "{worktree}" not in args.cmd:
        raise UserError("--cmd must name the commit's checkout as {worktree}, e.g. '{worktree}/bin/tool input'")
    if args.threshold == "auto":
        raise UserError("pairbench ci takes --threshold as a percentage (the CI machine is not the calibrated one)")
    given = args.threshold is not None
    # a pytest process warms up inside (--warmup-samples): a warm-up block would cost a whole pytest start
    options = options_from_args(args, max_time=DEFAULT_MAX_TIME_S, threshold=DEFAULT_THRESHOLD_PCT,
                                warmup=0 if args.pytest else 1)
    source = f"--threshold {args.threshold:g}" if given else "the default of pairbench ci"
    request = CiRequest(
        options=options, reports=reports_from(args, title="pairbench ci"), repo=args.repo, base=args.base,
        head=args.head, build=args.build, cmd=args.cmd, suite=args.suite, pytest=_pytest_settings(args),
        comment=args.comment,
        threshold_source=source, env=os.environ, fakes=_fakes(args),
        observer=lambda o: observer_for(args.style, not args.no_progress, o), cache=Path(args.cache_dir).expanduser() if args.cache_dir else None,
        build_timeout=args.build_timeout, post=not args.no_post,
    )
    return run_ci(request).exit_code
