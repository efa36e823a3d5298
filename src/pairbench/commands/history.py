"""`pairbench history`: runs recorded on this machine (or in a shared database), trends, CSV."""

from __future__ import annotations

import argparse
import sys

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["register", "handle"]


def register(subparsers: Any) -> None:
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
    p.add_argument("--threshold", type=float, default=1.0, metavar="PCT",
                   help="smallest step flagged as a change point, in percent (default 1)")
    p.add_argument("--csv", metavar="FILE", help="write the matching samples as CSV to FILE ('-' for standard output)")
    p.set_defaults(handler=handle)
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    pub = actions.add_parser("publish", help="write a static site of the history: trends, change points, verdicts",
                             description="Write a self-contained static site (no script, works from file:// and any "
                                         "static host) with an index of benchmarks and metrics, a trend plot per "
                                         "machine and variant with each run's CI and the change points, and each "
                                         "run's HTML report.")
    pub.add_argument("dir", metavar="DIR", help="folder to write the site into (created; its pages are replaced)")
    # Its own dest: a subparser's default would overwrite a --history given before `publish`.
    pub.add_argument("--history", dest="publish_history", metavar="PATH_OR_URL", help="history store to publish")
    pub.add_argument("--threshold", dest="publish_threshold", type=float, default=1.0, metavar="PCT",
                     help="smallest step marked as a change point, in percent (default 1)")
    pub.set_defaults(handler=_publish)


def handle(args: argparse.Namespace) -> int:
    from pairbench.errors import UserError
    from pairbench.report.tables import render_history_runs
    from pairbench.store.history import open_history, resolve_location

    location = resolve_location(args.history)
    if location is None:
        raise UserError("history is turned off (PAIRBENCH_HISTORY=off); pass --history PATH_OR_URL to read one")
    with open_history(location, create=False) as history:
        if args.csv:
            if args.csv == "-":
                try:
                    history.write_csv(sys.stdout, args.benchmark, args.metric, args.variant)
                    sys.stdout.flush()
                except BrokenPipeError:  # `| head`: the reader has all it wants
                    import os

                    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            else:
                from pairbench.store.output import open_output

                with open_output(args.csv, newline="") as fh:
                    n = history.write_csv(fh, args.benchmark, args.metric, args.variant)
                print(f"wrote {n} samples to {args.csv}", file=sys.stderr)
            return 0
        if args.benchmark:
            return _trend(history, args)
        runs = history.runs(args.benchmark, args.metric, args.variant, limit=args.limit or None)
        if not runs:
            print(f"no runs recorded in {history.location}" + (" match" if args.metric or args.variant else ""))
            return 0
        sys.stdout.write(render_history_runs(runs))
        print(f"\n{len(runs)} runs from {history.location}, newest first")
    return 0


def _trend(history: Any, args: argparse.Namespace) -> int:
    from pairbench.errors import UserError
    from pairbench.report.tables import render_trend
    from pairbench.stats.changepoint import find_change_points

    known = history.benchmarks()
    if args.benchmark not in known:
        raise UserError(f"no benchmark {args.benchmark!r} in {history.location}; recorded: {', '.join(known) or 'none'}")
    metrics = history.metrics(args.benchmark)
    if args.metric and args.metric not in metrics:
        raise UserError(f"benchmark {args.benchmark!r} has no metric {args.metric!r}; recorded: {', '.join(metrics)}")
    units = _units(history, args.benchmark)
    flagged = 0
    for metric in [args.metric] if args.metric else metrics:
        for variant, points in history.series(args.benchmark, metric, args.variant).items():
            if args.limit:
                points = points[-args.limit:]
            cps = {c.index: c for c in find_change_points([p.values for p in points], min_step=args.threshold / 100)}
            print(f"{args.benchmark} · {metric} · {variant}  ({len(points)} runs)")
            sys.stdout.write(render_trend(points, cps, units.get(metric, "")))
            flagged += len(cps)
            print()
    print(f"{flagged} change point{'s' if flagged != 1 else ''} (steps beyond ±{args.threshold:g}% that the noise "
          "does not explain)")
    return 0


def _publish(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pairbench.errors import UserError
    from pairbench.report.html import render_html
    from pairbench.report.site import render_site
    from pairbench.report.site.data import collect_site
    from pairbench.store.history import open_history, resolve_location
    from pairbench.store.runfile import load_run

    location = resolve_location(getattr(args, "publish_history", None) or args.history)
    if location is None:
        raise UserError("history is turned off (PAIRBENCH_HISTORY=off); pass --history PATH_OR_URL to publish one")
    with open_history(location, create=False) as history:
        data = collect_site(history, min_step=args.publish_threshold / 100)
    reports: dict[int, str] = {}
    for run_id, path in data.run_files.items():
        try:
            reports[run_id] = render_html(load_run(path), title=f"run {run_id}")
        except (UserError, OSError, ValueError):
            continue  # a run file that moved on or broke: its points simply have no link
    out = Path(args.dir)
    if out.exists() and not out.is_dir():
        raise UserError(f"{out} exists and is not a folder; give a folder for the site")
    try:
        for rel, text in render_site(data, reports).items():
            target = out / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write the site into {out}: {exc.strerror}") from None
    pages = 1 + len({(s.benchmark, s.metric) for s in data.series})
    print(f"wrote {pages} pages and {len(reports)} run reports to {out / 'index.html'}")
    return 0


def _units(history: Any, benchmark: str) -> dict[str, str]:
    import json

    rows = history.backend.execute("SELECT metrics FROM benchmarks WHERE name = ? ORDER BY run_id DESC LIMIT 1", (benchmark,))
    if not rows:
        return {}
    try:
        return {m[0]: m[1] for m in json.loads(rows[0][0])}
    except (ValueError, TypeError, IndexError):
        return {}
