"""`pairbench run [FILE]`: run every comparison of a suite file (default ./pairbench.toml).

The file is loaded and validated first (nothing runs if it is wrong), then variants built from git
refs are built (or found in the cache), then every benchmark runs under every point of the matrix
in interleaved blocks. Flags given on the command line override the file's [defaults].
"""

from __future__ import annotations

import argparse
import sys

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

from pairbench.commands.common import add_plan_option, add_run_options

__all__ = ["register", "build_suite_run", "suite_measuring", "cluster_from"]

DEFAULT_FILE = "pairbench.toml"

EPILOG = """examples:
  pairbench run                                   # runs ./pairbench.toml
  pairbench run bench/packed-hash.toml --only 'issues*' --max-time 600
  pairbench run bench/jit.toml --check            # validate and list the matrix, run nothing

The file format is in docs/suite.md; `pairbench init` writes a commented example.
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "run",
        help="run a suite file: variants, sweeps, builds from git refs, benchmarks (default ./pairbench.toml)",
        description="Run every benchmark of a suite file under every variant of its matrix, interleaved.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", nargs="?", default=DEFAULT_FILE, metavar="FILE",
                   help=f"the suite file (default ./{DEFAULT_FILE})")
    p.add_argument("--only", metavar="GLOB", help="run only the benchmarks whose name matches (comma-separated globs)")
    p.add_argument("--variants", metavar="GLOB",
                   help="run only the matrix points whose name matches (comma-separated globs); the baseline always runs")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="set or override any key of the suite (dotted TOML key, TOML value), e.g. "
                        "--set 'variants.head.command=\"ruby-head\"' --set defaults.runs=20; "
                        "without a file, the flags are the whole suite")
    p.add_argument("--check", action="store_true", help="validate the file, print the matrix and stop")
    p.add_argument("--cache-dir", metavar="DIR",
                   help="where git builds are kept (default $PAIRBENCH_CACHE_DIR or ~/.cache/pairbench)")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="measure on Dask distributed workers: a scheduler address (tcp://host:8786) or local:N; "
                        "each benchmark runs whole on one machine, git variants are built on each worker "
                        "(needs pip install 'pairbench[dask]'; docs/scale-out.md)")
    p.add_argument("--each-machine", action="store_true",
                   help="with --cluster: measure every benchmark on every worker and compare per machine, "
                        "saying where the machines' verdicts disagree")
    add_run_options(p, runs=None, warmup=None)
    add_plan_option(p)
    # Left unset unless given, so that the file's [defaults] apply (see options_from_args).
    p.set_defaults(handler=_handle, confidence=None)


def _print_check(suite: Any, variants: list[Any]) -> None:
    print(f"{suite.path}: valid; {len(variants)} variants x {len(suite.benchmarks)} benchmarks")
    for v in variants:
        mark = "  (baseline)" if v.baseline else ""
        git = v.meta.get("git")
        src = f"  [git {git['ref']} of {git['repo']}]" if git else ""
        print(f"  variant {v.name}{mark}{src}")
    for b in suite.benchmarks:
        metrics = ", ".join(m.name for m in b.metrics)
        print(f"  benchmark {b.name} ({b.kind}): {b.options.get('command', '')}  metrics: {metrics}")


def build_suite_run(args: argparse.Namespace, say: Any = None, build: bool = True) -> tuple[Any, Any]:
    """The Run to execute and the Suite it came from, from `run`'s flags (flows.builders.suite.suite_run)."""
    from pairbench.flows.builders.suite import suite_run

    return suite_run(args.file, args.set, args.only, args.variants, args.cache_dir, say, build)


def suite_measuring(args: argparse.Namespace, run: Any, suite: Any) -> Any:
    """The shared settings of `run`'s flags, the suite's [defaults] filling what the flags left unset."""
    from pairbench.commands.common import measuring_from, options_from_args, reports_from
    from pairbench.flows.builders.suite import suite_defaults

    options = options_from_args(args, **suite_defaults(suite))
    reports = reports_from(args, sweeps=bool(suite.sweeps), suite_summary=len(run.benchmarks) > 1)
    return measuring_from(args, options, reports)


def cluster_from(args: argparse.Namespace) -> Any:
    """--cluster ADDRESS (and --each-machine) as the measuring flow's cluster options, or None."""
    if args.cluster:
        from pairbench.cluster.units import ClusterOptions

        return ClusterOptions(args.cluster, args.cache_dir, each_machine=args.each_machine)
    if args.each_machine:
        from pairbench.errors import UserError

        raise UserError("--each-machine needs --cluster (the machines to measure on)")
    return None


def _handle(args: argparse.Namespace) -> int:
    from pairbench.flows.builders.suite import filter_variants, load_suite
    from pairbench.flows.measure import measure

    if args.check:
        suite = load_suite(args.file, args.set, args.only)
        _print_check(suite, filter_variants(suite, args.variants))
        return 0

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    cluster = cluster_from(args)
    run, suite = build_suite_run(args, say, build=cluster is None)
    measuring = suite_measuring(args, run, suite)
    _refuse_writing_over(suite.path, measuring)
    return measure(run, measuring, cluster=cluster)


def _refuse_writing_over(path: Any, measuring: Any) -> None:
    """Before anything runs: no run file or report may be written over the suite file it runs."""
    import os

    from pairbench.errors import UserError

    targets = [t for _, t in measuring.reports.exports] + [measuring.options.export_json or ""]
    for target in targets:
        try:
            same = bool(target) and target != "-" and os.path.exists(target) and os.path.samefile(target, path)
        except (OSError, TypeError):
            same = False
        if same:
            raise UserError(f"{target} is the suite file; give another path for the run file or report")
