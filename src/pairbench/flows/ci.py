"""`pairbench ci`: the pull request's head against its merge-base, on this machine, with a gate that
does not cry wolf.

Why this shape: shared CI runners drift and differ from one job to the next, so numbers stored by
an earlier job cannot judge this one. Both commits are therefore built and measured here, in one
interleaved run with adaptive stopping. A benchmark found slower beyond the noise band is measured
again in a fresh interleaved run of just those benchmarks ("confirm, then alert"): the gate trips
only when the regression reproduces, which costs a real regression a second look and a false one
its alarm. The comment goes to a file, to the job summary and (with a token) to the pull request,
where one comment is kept up to date. Posting never fails the job: a refused or failed call is one
warning line, and the summary keeps the results.

    resolve commits (ci_git) -> build both, make the run (ci_sides) -> measure (pipeline) -> confirm
    the slower -> comment (report.comment) -> file, step summary, forge (ci_publish) -> exit code
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

from pairbench.errors import UserError
from pairbench.flows.ci_git import default_branch, merge_base as find_merge_base, resolve_commit, toplevel
from pairbench.flows.ci_publish import publish, render, say
from pairbench.flows.ci_sides import base_line, build_commit, load_suite, make_run, suite_build

if TYPE_CHECKING:
    from pairbench.builds import Build
    from pairbench.flows.builders.pytest import PytestSettings
    from pairbench.forges import Target
    from pairbench.model import Comparison, Run
    from pairbench.flows.settings import Reports, RunOptions
    from pairbench.session import Observer

__all__ = ["CiRequest", "CiResult", "run_ci", "EXIT_OK", "EXIT_REGRESSION", "TOKEN_VARIABLES"]

EXIT_OK = 0
EXIT_REGRESSION = 3

TOKEN_VARIABLES = ("GITHUB_TOKEN", "GH_TOKEN", "PAIRBENCH_GITLAB_TOKEN", "GITLAB_TOKEN")
"""Read once, then taken out of this process's environment: the pull request's builds and
benchmarks run its own code and never see a write token."""

@dataclass(frozen=True, slots=True)
class CiRequest:
    """What `pairbench ci` was asked, typed (the command turns its flags into this)."""

    options: RunOptions
    reports: Reports
    repo: str = "."
    base: str | None = None
    """The base ref (None: the pull request's base branch from the CI environment, else the remote's default)."""
    head: str = "HEAD"
    build: str | None = None
    """Build command run in each commit's worktree (None: the suite baseline's git build, else none)."""
    cmd: str | None = None
    """The benchmark command, `{worktree}` the commit's checkout; or `suite`."""
    suite: str | None = None
    pytest: PytestSettings | None = None
    """A pytest-benchmark suite instead (its paths as given, from the current folder; `python` may hold
    `{worktree}`): run in each commit's checkout, with that checkout's code first on PYTHONPATH."""
    comment: str | None = None
    """Write the comment's Markdown here too."""
    threshold_source: str = "the default"
    env: Mapping[str, str] = field(default_factory=dict)
    """The CI environment (os.environ for the command; a dict in tests)."""
    fakes: tuple[tuple[float, ...] | None, tuple[float, ...] | None] = (None, None)
    """Scripted timings (factors) of the first and the confirmation run (--debug-fake), else real runners."""
    observer: Callable[[RunOptions], Observer | None] = lambda _o: None
    """Makes the live progress view of each run."""
    cache: Path | None = None
    build_timeout: float | None = None
    post: bool = True
    """Post or update the forge comment when the environment names a pull request."""


@dataclass(frozen=True, slots=True)
class CiResult:
    """What the flow did: the runs, the comment, the gate."""

    exit_code: int
    run: Run
    confirm: Run | None
    comment: str
    regressions: tuple[str, ...]
    """The benchmarks whose regression was confirmed."""
    messages: tuple[str, ...] = ()


def run_ci(req: CiRequest) -> CiResult:
    """Build, measure, confirm, comment; the exit code is 3 on a confirmed regression, else 0."""
    from pairbench.forges import detect_target

    env = dict(req.env)
    target = detect_target(env)
    if req.env is os.environ:
        for name in TOKEN_VARIABLES:
            os.environ.pop(name, None)
    repo = toplevel(req.repo)
    base_ref = req.base or (target.base_ref if target else "") or env.get("GITHUB_BASE_REF", "") \
        or env.get("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "") or default_branch(repo)
    base_tip = resolve_commit(repo, base_ref, given=req.base is not None)
    head = resolve_commit(repo, req.head, given=True)
    merge_base = find_merge_base(repo, base_tip, head, base_ref)
    suite = load_suite(req.suite) if req.suite else None
    if req.pytest is not None:
        from pairbench.flows.ci_pytest import in_repo

        req = replace(req, pytest=replace(req.pytest, paths=tuple(in_repo(p, repo) for p in req.pytest.paths)))
    build = req.build if req.build is not None else suite_build(suite)
    builds: dict[str, Build] = {}
    for role, commit in (("base", merge_base), ("head", head)):
        builds[role] = build_commit(repo, commit, role, build, req)
        if not builds[role].ok:
            _failed_build(req, env, target, role, builds[role], base_ref, merge_base, head)
    run = make_run(req, suite, builds, merge_base, head)
    gated = tuple((b.name, b.metrics[0].name) for b in run.benchmarks if b.metrics)
    first_options = replace(req.options, record_history=False)  # the base's part only, below
    _measure_or_say(req, env, target, (base_ref, merge_base, head),
                    lambda: measure(run, first_options, req.reports, req.fakes[0], req.observer(req.options)))
    if req.options.record_history:
        _record_base(run, req.options.history)
    suspects = [c for c in run.comparisons if (c.benchmark, c.metric) in gated and c.verdict == "slower"]
    confirm = None
    if suspects:
        names = sorted({c.benchmark for c in suspects})
        say(f"confirming: {len(names)} benchmark{'s' if len(names) != 1 else ''} found slower "
            f"({', '.join(names[:5])}{' ...' if len(names) > 5 else ''}) measured again in a fresh interleaved run")
        confirm = make_run(req, suite, builds, merge_base, head, only=set(names), first=run)
        again_options = replace(req.options, export_json=None, record_history=False,
                                seed=None if req.options.seed is None else req.options.seed + 1)
        from pairbench.flows.settings import Reports

        again = confirm
        _measure_or_say(req, env, target, (base_ref, merge_base, head), lambda: measure(
            again, again_options, Reports(style=req.reports.style, time_unit=req.reports.time_unit),
            req.fakes[1] or req.fakes[0], req.observer(again_options),
            to_stderr=req.options.export_json == "-"))  # standard output holds the run file
    confirmed = _confirmed(suspects, confirm)
    comment = render(req, run, confirm, gated, base_ref, merge_base, head, build, builds, len(confirmed))
    posted = render(req, run, confirm, gated, base_ref, merge_base, head, build, builds, len(confirmed), limited=True)
    messages = publish(req, env, target, comment, posted)
    if confirmed:
        say(f"regression confirmed: {', '.join(confirmed)} slower beyond the noise band in both runs")
    elif suspects:
        say(f"regression not confirmed: {', '.join(sorted({c.benchmark for c in suspects}))} slower in the first "
            "run only (the confirmation run did not reproduce it), so the check passes")
    return CiResult(EXIT_REGRESSION if confirmed else EXIT_OK, run, confirm, comment, tuple(confirmed), messages)


def measure(run: Run, options: RunOptions, reports: Reports, fake: tuple[float, ...] | None,
            observer: Observer | None, to_stderr: bool = False) -> None:
    """The one call into the measuring machinery (the pipeline every measuring command uses)."""
    from pairbench.flows.measure import run_pipeline
    from pairbench.runners.options import FakeOptions

    console = None
    if to_stderr:
        from pairbench.report.display import console_for

        console = console_for(reports.style, stderr=True)
    run_pipeline(run, replace(options, fail_on_regression=False), reports,
                 fake=FakeOptions(factors=fake) if fake is not None else None, observer=observer,
                 console=console)


def _measure_or_say(req: CiRequest, env: Mapping[str, str], target: Target | None, commits: tuple[str, str, str],
                    measuring: Callable[[], None]) -> None:
    """Measure; a benchmark that cannot be measured replaces the comment with its error, then stops (exit 1)."""
    from pairbench.errors import BenchmarkFailed
    from pairbench.report.comment import render_run_failure

    try:
        measuring()
    except BenchmarkFailed as exc:
        publish(req, env, target, render_run_failure(str(exc), *commits))
        raise


def _record_base(run: Run, history: str | None) -> None:
    """Record the base's results of the first run in the history (the head's belong to no line yet).

    A store that cannot be used never fails the check: one warning line, and the comment's notices say it.
    """
    from pairbench.store.history import record_run

    notice = record_run(base_line(run), history)
    if notice is not None:
        run.notices.append(notice)
        say(f"warning: {notice.message} ({notice.hint})")


def _confirmed(suspects: list[Comparison], confirm: Run | None) -> list[str]:
    """The suspects whose confirmation run finds them slower beyond the band too."""
    if confirm is None:
        return []
    again = {(c.benchmark, c.metric): c for c in confirm.comparisons}
    out = []
    for c in suspects:
        a = again.get((c.benchmark, c.metric))
        if a is not None and a.verdict == "slower" and a.meaningful:
            out.append(c.benchmark)
    return sorted(set(out))


def _failed_build(req: CiRequest, env: Mapping[str, str], target: Target | None, role: str, done: Build,
                  base_ref: str, base: str, head: str) -> None:
    """Say which side does not build, with its log's tail, on the pull request too; then stop (exit 1).

    The comment is replaced: results of an earlier push would describe code that is no longer there.
    """
    from pairbench.builds import LOG_TAIL_LINES
    from pairbench.report.comment import render_build_failure

    try:
        tail = Path(done.log).read_text(encoding="utf-8", errors="replace").rstrip().splitlines()[-LOG_TAIL_LINES:]
    except OSError:
        tail = ["(no log)"]
    publish(req, env, target, render_build_failure(role, done.commit, done.build, "\n".join(tail), base_ref, base, head))
    raise UserError(f"the build of the {role} ({done.commit[:12]}) failed: {done.build}; the last lines of {done.log}:\n"
                    + "\n".join("  " + line for line in tail))

