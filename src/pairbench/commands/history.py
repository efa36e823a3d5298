"""`pairbench history`: runs recorded on this machine (or in a shared database), trends, CSV."""

from __future__ import annotations

import argparse
import sys

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

    from pairbench.flows.history import HistoryQuery

__all__ = ["register", "handle"]


def register(subparsers: Any) -> None:
    from pairbench.commands.common import threshold_percent
    from pairbench.commands.reading import add_history_option

    p: argparse.ArgumentParser = subparsers.add_parser(
        "history", help="list recorded runs; trend of a benchmark with change points; CSV export",
        description="Without --benchmark: recorded runs, newest first. With --benchmark: the trend of each "
                    "metric and variant across runs, with change points (steps the noise does not explain).",
    )
    add_history_option(p)
    p.add_argument("--benchmark", metavar="NAME", help="show the trend of this benchmark")
    p.add_argument("--metric", metavar="NAME", help="only this metric")
    p.add_argument("--variant", metavar="NAME", help="only this variant")
    p.add_argument("--limit", type=int, default=20, metavar="N", help="list at most N runs (default 20; 0 for all)")
    p.add_argument("--threshold", type=threshold_percent, default=1.0, metavar="PCT",
                   help="smallest step flagged as a change point, in percent (default 1)")
    p.add_argument("--csv", metavar="FILE", help="write the matching samples as CSV to FILE ('-' for standard output)")
    p.set_defaults(handler=handle, plain_text=True)  # no styling of its own: every control in a name escaped
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    pub = actions.add_parser("publish", help="write a static site of the history: trends, change points, verdicts",
                             description="Write a self-contained static site (no script, works from file:// and any "
                                         "static host) with an index of benchmarks and metrics, a trend plot per "
                                         "machine and variant with each run's CI and the change points, and each "
                                         "run's HTML report.")
    pub.add_argument("dir", metavar="DIR", help="folder to write the site into: new, empty, or an earlier site "
                                                "(whose pages are replaced)")
    pub.add_argument("--force", action="store_true",
                     help="write into a folder that holds other files (its index.html and pages are replaced)")
    # Its own dest: a subparser's default would overwrite a --history given before `publish`.
    pub.add_argument("--history", dest="publish_history", metavar="PATH_OR_URL", help="history store to publish")
    pub.add_argument("--threshold", dest="publish_threshold", type=threshold_percent, default=1.0, metavar="PCT",
                     help="smallest step marked as a change point, in percent (default 1)")
    pub.set_defaults(handler=_publish)


def _query(args: argparse.Namespace) -> HistoryQuery:
    from pairbench.flows.history import HistoryQuery

    return HistoryQuery(args.history, args.benchmark, args.metric, args.variant, args.limit or None)


def handle(args: argparse.Namespace) -> int:
    from pairbench.flows.history import export_csv, list_runs
    from pairbench.report.tables import render_history_runs

    query = _query(args)
    if args.csv:
        n = export_csv(query, args.csv)
        if args.csv != "-":
            print(f"wrote {n} samples to {args.csv}", file=sys.stderr)
        return 0
    if args.benchmark:
        return _trend(query, args.threshold)
    listed = list_runs(query)
    if not listed.runs:
        print(f"no runs recorded in {listed.location}" + (" match" if args.metric or args.variant else ""))
        return 0
    sys.stdout.write(render_history_runs(listed.runs))
    print(f"\n{len(listed.runs)} runs from {listed.location}, newest first")
    return 0


def _trend(query: HistoryQuery, threshold: float) -> int:
    from pairbench.flows.history import benchmark_trends
    from pairbench.report.tables import render_trend

    flagged = 0
    for found in benchmark_trends(query, min_step=threshold / 100):
        for trend in found.trends:
            print(f"{query.benchmark} · {found.metric} · {trend.variant}  ({len(trend.points)} runs)")
            sys.stdout.write(render_trend(trend.points, {c.index: c for c in trend.changes}, found.unit))
            flagged += len(trend.changes)
            print()
    print(f"{flagged} change point{'s' if flagged != 1 else ''} (steps beyond ±{threshold:g}% that the noise "
          "does not explain)")
    return 0


def _publish(args: argparse.Namespace) -> int:
    from pairbench.flows.history import publish_site

    done = publish_site(getattr(args, "publish_history", None) or args.history, args.dir,
                        min_step=args.publish_threshold / 100, force=args.force)
    print(f"wrote {done.pages} pages and {done.reports} run reports to {done.index}")
    return 0
