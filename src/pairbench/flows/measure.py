"""The measuring flow: one path from a described run to an exit code: kinds -> session -> reports.

Every measuring subcommand (and the Python API) only turns its flags into a Run (variants and
benchmarks, flows/builders/) and a `Measuring` (flows/settings.py), then calls `measure`. The
runners come from the kinds table (one construction for every subcommand, seeded alike), each
kind's own figures are printed before the comparisons, and the export formats go through the
exporter table (report/exporters.py), so `pairbench run`, `cmd`, `http` and `micro` cannot drift
apart.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Callable, Mapping

from pairbench.flows.settings import Measuring, Reports

if TYPE_CHECKING:
    from rich.console import Console

    from pairbench.cluster.units import ClusterOptions
    from pairbench.model import Run
    from pairbench.runners.base import Runner
    from pairbench.runners.options import FakeOptions
    from pairbench.session import Observer, RunOptions

__all__ = ["Measuring", "Reports", "measure", "observer_for", "make_runners", "kind_figures",
           "run_pipeline", "EXIT_OK", "EXIT_REGRESSION"]

EXIT_OK = 0
EXIT_REGRESSION = 3


def make_runners(run: Run, seed: int | None, kind_options: Mapping[str, Any] | None = None,
                 fake: FakeOptions | None = None) -> dict[str, Runner]:
    """runners.kinds.make_runners: a runner for every kind in `run` (here for the subcommands)."""
    from pairbench.runners import kinds

    return kinds.make_runners(run, seed, kind_options, fake)


def kind_figures(run: Run) -> list[str]:
    """The figures each kind of `run` renders itself (ab-style HTTP tables, benchmark-ips lines)."""
    from pairbench.report.kinds import kind_figures as figures

    return figures(run)


def _after_views(reports: Reports, profiled: bool = False) -> tuple[Callable[[Run, Console], None], ...]:
    views: list[Callable[[Run, Console], None]] = []
    if profiled:  # --profile: where the difference is, under the verdicts
        from pairbench.report.profiles import render_where

        views.append(render_where)
    if reports.sweeps:
        from pairbench.report.sweep import render_sweeps

        views.append(render_sweeps)
    if reports.suite_summary:
        from pairbench.report.suite_summary import render_suite_summary

        views.append(render_suite_summary)
    return tuple(views)


def run_pipeline(run: Run, options: RunOptions, reports: Reports = Reports(), *,
                 runners: Mapping[str, Runner] | None = None, kind_options: Mapping[str, Any] | None = None,
                 fake: FakeOptions | None = None, observer: Observer | None = None,
                 console: Console | None = None, cluster: ClusterOptions | None = None) -> int:
    """Measure `run`, print its figures and comparisons, write the exports; return the exit code.

    `runners` are used as given (a subcommand that calibrated its runner before the run), else
    made by the kinds. With `cluster`, each benchmark is measured whole on one worker machine
    (pairbench.cluster) and the results merged here. An interrupted or failed run prints what it
    has, then the error goes on.
    """
    from rich.console import Console as RichConsole

    from pairbench.errors import BenchmarkFailed, Interrupted
    from pairbench.session import execute

    # `--export-json -` makes standard output the run file's: the report moves to standard error
    from pairbench.report.display import console_for

    out = console or console_for(reports.style, stderr=options.export_json == "-")
    # warnings and notes: `> results.txt` keeps the results only (a given console gets everything)
    diagnostics = out if console is not None else console_for(reports.style, stderr=True)
    after = _after_views(reports, profiled=options.profile > 0)
    try:
        if cluster is not None:
            from pairbench.cluster.client import execute_on_cluster

            execute_on_cluster(run, options, cluster, fake=fake.factors if fake is not None else None)
        else:
            chosen = dict(runners) if runners is not None else make_runners(run, options.seed, kind_options, fake)
            execute(run, chosen, options, observer=observer)
    except (Interrupted, BenchmarkFailed):
        _close(observer)
        if run.comparisons:
            _answer(reports)(run, out, after=after, diagnostics=diagnostics)
        if any(not s.warmup for s in run.samples):
            _export(run, reports)  # what was measured, in every format asked, as hyperfine does
        raise
    finally:
        _close(observer)
    _show(run, reports, out, diagnostics, after)
    if options.fail_on_regression and any(c.verdict == "slower" and c.meaningful for c in run.comparisons):
        print("regression: a candidate is significantly slower beyond the noise band", file=sys.stderr)
        return EXIT_REGRESSION
    return EXIT_OK


def _show(run: Run, reports: Reports, out: Console, diagnostics: Console,
          after: tuple[Callable[[Run, Console], None], ...]) -> None:
    """The kinds' figures, the comparisons and the exports, in the order and time unit asked."""
    from pairbench.report.display import sorted_view
    from pairbench.report.format import fixed_time_unit

    shown = sorted_view(run, reports.sort)
    with fixed_time_unit(reports.time_unit):
        for text in kind_figures(shown):
            out.print(text, markup=False, highlight=False, soft_wrap=True)
        _answer(reports)(shown, out, after=after, diagnostics=diagnostics)
        _export(run, reports)
    if reports.export_folded:
        _export_folded(run, reports.export_folded, diagnostics)


def _export_folded(run: Run, directory: str, diagnostics: Console) -> None:
    """--export-folded: the folded files, or one line saying why there are none."""
    from pairbench.errors import UserError
    from pairbench.report.profiles import export_folded

    if not run.profiles:
        diagnostics.print("folded stacks: none to write (no profile: give --profile)", markup=False, highlight=False)
        return
    try:
        written = export_folded(run, directory)
    except OSError as exc:
        raise UserError(f"--export-folded {directory}: {exc.strerror or exc}") from None
    diagnostics.print(f"folded stacks: {len(written)} files in {directory}", markup=False, highlight=False)

def _export(run: Run, reports: Reports) -> None:
    """Write every `--export-FORMAT` asked, in the order and time unit asked."""
    if not reports.exports:
        return
    from pairbench.report.display import sorted_view
    from pairbench.report.exporters import ExportOptions, export
    from pairbench.report.format import fixed_time_unit

    # never over the run file, nor over the suite file it ran from
    inputs = [str(run.metadata.get("run_file", "")), str((run.suite or {}).get("path") or "")]
    with fixed_time_unit(reports.time_unit):
        for fmt, target in reports.exports:
            export(sorted_view(run, reports.sort), fmt, target, ExportOptions(title=reports.title), inputs=inputs)


def _answer(reports: Reports) -> Callable[..., None]:
    """The full results under `-v`, else the short answer."""
    if reports.verbose:
        from pairbench.report.terminal import render_terminal

        return render_terminal
    from pairbench.report.brief import render_brief

    return render_brief


def _close(observer: Any) -> None:
    close = getattr(observer, "close", None)
    if close is not None:
        close()


def observer_for(style: str, progress: bool, options: RunOptions | None = None) -> Observer | None:
    """The live progress bar on a terminal's stderr, a line at most every 30 s on any other stderr
    (a CI log, a file), unless turned off (its bounds from `options`)."""
    from pairbench.report.display import console_for, shows_progress

    style = style or "auto"
    if not progress:
        return None
    max_time = options.max_time if options is not None else None
    if options is not None and max_time is None:
        max_time = options.default_bound  # the bar's ETA is bounded by the default bound too
    max_runs = options.max_runs if options is not None else None
    if not shows_progress(style, sys.stderr.isatty()):
        if style not in ("auto", "nocolor") or sys.stderr.isatty():  # basic, color, none: no progress at all
            return None
        from pairbench.flows.progress import ProgressLines

        return ProgressLines(max_time=max_time, max_runs=max_runs)
    from pairbench.flows.progress import ProgressBar

    return ProgressBar(console_for(style, stderr=True), max_time=max_time, max_runs=max_runs)


def measure(run: Run, measuring: Measuring, *, runners: Mapping[str, Runner] | None = None,
            kind_options: Mapping[str, Any] | None = None, cluster: ClusterOptions | None = None) -> int:
    """`run_pipeline` with the settings every measuring subcommand shares (progress, exports,
    --debug-fake, which replaces any runner given, and --threshold auto); returns the exit code.

    `run` is measured in place: its samples and comparisons are there when this returns.
    """
    fake = None
    if measuring.fake is not None:
        from pairbench.runners.options import FakeOptions

        fake = FakeOptions(factors=measuring.fake)
        runners = None
    options = measuring.options
    if measuring.plan is not None:
        from pairbench.flows.power_plan import plan_run

        return plan_run(run, measuring, measuring.plan, runners=runners, kind_options=kind_options, fake=fake,
                        observer=observer_for(measuring.reports.style, measuring.progress, options))
    if measuring.auto_threshold:  # 1.0 until the stored calibration says otherwise
        from pairbench.flows.threshold import auto_threshold

        options = auto_threshold(run, options, options.history)
    return run_pipeline(run, options, measuring.reports, runners=runners, kind_options=kind_options, fake=fake,
                        observer=observer_for(measuring.reports.style, measuring.progress, options),
                        cluster=cluster)
