"""`pairbench bisect`: find the commit that changed a benchmark, deciding each step with a paired verdict.

The flags become a `Bisection`; the search (building, measuring each step against both ends,
reusing recorded steps, confirming the change) is the bisect flow's (flows/bisect.py).
"""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

from pairbench.commands.common import positive_float, threshold_percent

__all__ = ["register", "handle"]

EPILOG = """examples:
  pairbench bisect --good v1.2 --bad main --build 'make -j2' --cmd '{worktree}/bin/tool bench.input'
  pairbench bisect --good v1.2 --bad HEAD --cmd 'python3 {worktree}/bench.py' --metric 'parse=parse: ([\\d.]+)'
  pairbench bisect --good v1.2 --bad main --build 'make' --suite pairbench.toml --only 'parse*'

With --suite, the suite's benchmarks run under each commit: {worktree} in their commands (or in the
suite's baseline variant) is that commit's checkout; the suite's own variants are not compared.
"""


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "bisect", help="find the commit that made a benchmark slower (each step a paired verdict)",
        description="Bisect the first-parent commits from --good to --bad. Each step builds the middle commit "
                    "and compares it, interleaved, with both ends; a step that cannot decide leaves a range, "
                    "never a guess. Commits that do not build are skipped.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--good", required=True, metavar="REF", help="a commit that behaves well")
    p.add_argument("--bad", required=True, metavar="REF", help="a later commit that behaves badly")
    p.add_argument("--repo", default=".", metavar="DIR", help="the git repository (default: the current folder)")
    p.add_argument("--build", default="", metavar="CMD", help="build command, run in each commit's worktree")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--cmd", metavar="CMD", help="the benchmark command; {worktree} is the commit's checkout")
    what.add_argument("--suite", metavar="FILE", help="run the benchmarks of this suite file under each commit")
    p.add_argument("--only", metavar="GLOB", help="with --suite: only the benchmarks whose name matches")
    p.add_argument("--decide-on", metavar="METRIC",
                   help="the metric that decides (default: the first --metric, else each benchmark's primary one)")
    p.add_argument("--metric", action="append", default=[], metavar="NAME=REGEX",
                   help="a number the command prints; the first one given decides the steps (default: wall time)")
    p.add_argument("--max-time-per-step", type=positive_float, default=120.0, metavar="SECONDS",
                   help="measuring budget of one step; it stops early once both comparisons are settled (default 120)")
    p.add_argument("-r", "--runs", type=int, default=5, metavar="N", help="fewest blocks per step (default 5)")
    p.add_argument("-w", "--warmup", type=int, default=1, metavar="N", help="warm-up runs per commit (default 1)")
    p.add_argument("--threshold", type=threshold_percent, default=1.0, metavar="PCT",
                   help="noise band δ in percent: smaller differences count as none (default 1)")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level of intervals (default 0.95)")
    p.add_argument("--build-timeout", type=positive_float, metavar="SECONDS", help="stop a build that takes longer")
    p.add_argument("--cache-dir", metavar="DIR", help="build cache (default $PAIRBENCH_CACHE_DIR or ~/.cache/pairbench)")
    p.add_argument("--history", metavar="PATH_OR_URL", help="history store (SQLite path or postgresql:// URL)")
    p.add_argument("--no-history", action="store_true", help="neither reuse nor record step runs")
    p.add_argument("--seed", type=int, help="seed of the random order")
    p.add_argument("--export-json", metavar="FILE",
                   help="also write the result (steps, changes, ranges) as JSON ('-' for standard output)")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from pairbench.flows.bisect import Bisection, bisect

    return bisect(Bisection(
        good=args.good, bad=args.bad, cmd=args.cmd, suite=args.suite, repo=args.repo, build=args.build,
        only=args.only, decide_on=args.decide_on, metric=tuple(args.metric), max_time_per_step=args.max_time_per_step,
        runs=args.runs, warmup=args.warmup, threshold=args.threshold, confidence=args.confidence,
        build_timeout=args.build_timeout, cache_dir=args.cache_dir, history=args.history, no_history=args.no_history,
        seed=args.seed, export_json=args.export_json))
