"""`pairbench pytest`: a pytest-benchmark suite, unchanged, compared across interpreters or environments.

    pairbench pytest tests/benchmarks --python venv-main --python venv-branch -n main -n branch
    pairbench pytest bench_parse.py --env '' --env 'MYLIB_NO_C=1' -- -k 'parse and not slow'

Top-level imports stay light (`pairbench --help` must not import numpy or scipy).
"""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

from pairbench.commands.common import add_run_options, positive_float, reports_from

__all__ = ["register", "add_variant_flags", "pytest_settings", "run_pytest", "DashArgsParser"]

EPILOG = """examples:
  pairbench pytest tests/benchmarks --python venv-main --python venv-branch -n main -n branch
  pairbench pytest bench_parse.py --env '' --env 'MYLIB_NO_C=1' -- -k parse

Each test that uses the `benchmark` fixture (pytest-benchmark's API) or carries pytest-codspeed's
@pytest.mark.benchmark is a benchmark named by its node id. pairbench provides the fixture itself:
each variant needs pytest only, with or without pytest-benchmark installed.
"""


class _DashArgsParser(argparse.ArgumentParser):
    """Keeps the words after `--` apart, for pytest (`pairbench pytest PATH -- -k fast`)."""

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        import sys

        given = list(sys.argv[1:] if args is None else args)
        tail: list[str] = []
        if "--" in given:
            cut = given.index("--")
            given, tail = given[:cut], given[cut + 1:]
        namespace, extras = super().parse_known_args(given, namespace)
        namespace.pytest_args = tail
        return namespace, extras


DashArgsParser = _DashArgsParser
"""The parser class of a subcommand that hands the words after `--` to pytest (`ci --pytest` too)."""


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "pytest",
        help="run a pytest-benchmark suite unchanged under each variant (interpreters, virtualenvs, env)",
        description="Run the tests of a pytest-benchmark suite that use the `benchmark` fixture in each "
        "variant's interpreter, in pytest worker processes interleaved across variants; each test is a "
        "benchmark named by its node id.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.__class__ = _DashArgsParser
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="test files or directories, as given to pytest; pytest's own arguments go after --")
    add_variant_flags(p)
    add_run_options(p, warmup=0)
    p.set_defaults(handler=run_pytest, pytest_args=[])


def add_variant_flags(p: argparse.ArgumentParser) -> None:
    """The variant and sample-plan flags `pytest` and `asv` share."""
    p.add_argument("--python", action="append", default=[], metavar="EXE|VENV",
                   help="an interpreter with its flags, or a virtual environment's directory (repeatable: one "
                   "per variant, or once for all; the first is the baseline; default python3)")
    p.add_argument("--env", action="append", default=[], metavar="'NAME=VALUE ...'",
                   help="environment of a variant (repeatable: one per variant, or once for all; '' for none)")
    p.add_argument("--git", action="append", default=[], metavar="REF",
                   help="a git ref of --repo, built and installed into its own environment in its own worktree "
                   "(repeatable: one per variant; the tests still come from the current directory)")
    p.add_argument("--repo", default=".", metavar="DIR", help="the git repository of --git (default: the current folder)")
    p.add_argument("--build", metavar="CMD",
                   help="with --git: the build command run in each ref's worktree (default: --python makes an "
                   "environment there that sees its packages and pip-installs the project); --python then names "
                   "the interpreter it leaves, e.g. '{worktree}/env/bin/python'")
    p.add_argument("--build-timeout", type=positive_float, metavar="SECONDS", help="stop a build that takes longer")
    p.add_argument("--cache-dir", metavar="DIR",
                   help="where git builds are kept (default $PAIRBENCH_CACHE_DIR or ~/.cache/pairbench)")
    p.add_argument("-n", "--name", action="append", default=[], metavar="NAME",
                   help="names of the variants, in order (default: the interpreter or environment that differs)")
    p.add_argument("-b", "--bench", action="append", default=[], metavar="PATTERN",
                   help="only tests whose node id (asv: name) matches this glob or substring (repeatable)")
    p.add_argument("--samples", type=int, default=5, help="measured samples per process (default 5)")
    p.add_argument("--warmup-samples", type=int, default=1, help="warm-up samples per process, discarded (default 1)")
    p.add_argument("--target-time", type=positive_float, default=0.1,
                   help="seconds per sample used to calibrate the loop count (default 0.1)")
    p.add_argument("--loops", type=int, default=None, metavar="N",
                   help="fixed loop count per sample (skips calibration)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="wall (default, as pytest-benchmark: tests may wait or use threads) or cpu (the worker's "
                   "CPU time, blind to other processes on a shared machine)")


def pytest_settings(args: argparse.Namespace, harness: str = "pytest") -> Any:
    """`pytest`'s flags as the builder's typed settings (flows.builders.pytest.PytestSettings)."""
    from pairbench.errors import UserError
    from pairbench.flows.builders.pytest import PytestSettings

    if args.samples < 2:
        raise UserError(f"--samples {args.samples}: need at least 2 samples per process")
    if args.build is not None and not args.git:
        raise UserError("--build is the build of --git refs; give the refs to build (--git main --git HEAD)")
    if args.loops is not None and args.loops < 1:
        raise UserError(f"--loops {args.loops}: give a whole number >= 1")
    return PytestSettings(harness=harness, paths=tuple(args.paths), args=tuple(getattr(args, "pytest_args", ())), python=tuple(args.python),
                          env=tuple(args.env), names=tuple(args.name), bench=tuple(args.bench), samples=args.samples,
                          warmup_samples=max(args.warmup_samples, 0), target_time=args.target_time, loops=args.loops,
                          clock=args.clock, git=tuple(args.git), repo=args.repo, build=args.build,
                          cache_dir=args.cache_dir, build_timeout=args.build_timeout)


def run_pytest(args: argparse.Namespace, harness: str = "pytest") -> int:
    from pairbench.commands.common import measuring_from
    from pairbench.flows.builders.pytest import pytest_run, pytest_runner
    from pairbench.flows.measure import measure

    import sys

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    settings = pytest_settings(args, harness)
    with pytest_runner(settings, args.seed) as runner:
        run = pytest_run(settings, runner, say=say)
        measuring = measuring_from(args, reports=reports_from(args, suite_summary=len(run.benchmarks) > 1))
        return measure(run, measuring, runners={harness: runner})
