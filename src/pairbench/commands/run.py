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

from pairbench.commands.common import add_run_options

__all__ = ["register", "build_suite_run"]

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
    # Left unset unless given, so that the file's [defaults] apply (see options_from_args).
    p.set_defaults(handler=_handle, confidence=None)


def _suite_defaults(suite: Any) -> dict[str, Any]:
    d = suite.defaults
    out = {k: getattr(d, k) for k in ("runs", "warmup", "threshold", "max_time", "confidence", "seed")}
    return {k: v for k, v in out.items() if v is not None}


def _load(args: argparse.Namespace) -> Any:
    from pathlib import Path

    from pairbench.errors import SuiteError
    from pairbench.suite import load_suite, parse_suite, select_benchmarks

    if args.file == DEFAULT_FILE and not Path(DEFAULT_FILE).exists():
        if args.set:  # a suite said entirely on the command line
            return select_benchmarks(parse_suite("", "<command line>", args.set), args.only)
        raise SuiteError(f"no {DEFAULT_FILE} in {Path.cwd()}; name a suite file, write an example with "
                         "`pairbench init`, or describe the suite with --set KEY=VALUE")
    suite = select_benchmarks(load_suite(args.file, args.set), args.only)
    return suite


def _filter_variants(suite: Any, pattern: str | None) -> list[Any]:
    import fnmatch

    from pairbench.errors import SuiteError

    if not pattern:
        return list(suite.matrix)
    globs = [g.strip() for g in pattern.split(",") if g.strip()]
    kept = [v for v in suite.matrix if v.baseline or any(fnmatch.fnmatchcase(v.name, g) for g in globs)]
    if len(kept) < 2:
        names = [v.name for v in suite.matrix if not v.baseline]
        raise SuiteError(f"--variants {pattern!r} matches no candidate of {suite.path}; candidates: "
                         + ", ".join(names[:20]) + (" ..." if len(names) > 20 else ""))
    return kept


def build_suite_run(args: argparse.Namespace, say: Any = None, build: bool = True) -> tuple[Any, Any]:
    """Load, build and assemble: the Run to execute and the Suite it came from.

    `build=False` leaves git variants unbuilt (each cluster worker builds them in its own cache).
    """
    from pathlib import Path

    from pairbench.builds import resolve_builds
    from pairbench.commands.common import new_run
    from pairbench.errors import UserError
    from pairbench.suite import suite_record

    suite = _load(args)
    variants = _filter_variants(suite, args.variants)
    cache = Path(args.cache_dir).expanduser() if args.cache_dir else None
    built, notices = resolve_builds(variants, cache=cache, progress=say) if build else (variants, [])
    names = {v.name for v in built}
    baseline = next(v for v in variants if v.baseline)
    if baseline.name not in names:
        failed = next((n for n in notices if n.kind == "build_failed"), None)
        raise UserError(f"the baseline {baseline.name} could not be built, so nothing can be compared"
                        + (f": {failed.message}" if failed else ""))
    if len(built) < 2:
        raise UserError("every candidate failed to build; nothing to compare:\n"
                        + "\n".join(n.message for n in notices))
    for n in notices:
        if say is not None:
            say(f"warning: {n.message}")
    run = new_run(built, list(suite.benchmarks), suite=suite_record(suite, built))
    run.notices.extend(notices)
    return run, suite


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


def _handle(args: argparse.Namespace) -> int:
    from pairbench.commands.common import options_from_args, reports_from, run_measured

    if args.check:
        suite = _load(args)
        _print_check(suite, _filter_variants(suite, args.variants))
        return 0

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    cluster = None
    if args.cluster:
        from pairbench.cluster.units import ClusterOptions

        cluster = ClusterOptions(args.cluster, args.cache_dir, each_machine=args.each_machine)
    elif args.each_machine:
        from pairbench.errors import UserError

        raise UserError("--each-machine needs --cluster (the machines to measure on)")
    run, suite = build_suite_run(args, say, build=cluster is None)
    options = options_from_args(args, **_suite_defaults(suite))
    reports = reports_from(args, sweeps=bool(suite.sweeps), suite_summary=len(run.benchmarks) > 1)
    return run_measured(run, options, args, reports, cluster=cluster)
