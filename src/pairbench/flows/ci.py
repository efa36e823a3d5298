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

    resolve commits -> build both (builds.ensure_build) -> measure (pipeline) -> confirm the slower
    -> comment (report.comment) -> file, step summary, forge (forges) -> exit code
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from pairbench.errors import UserError

if TYPE_CHECKING:
    from pairbench.builds import Build
    from pairbench.flows.builders.pytest import PytestSettings
    from pairbench.forges import Target
    from pairbench.model import Benchmark, Comparison, Run, Variant
    from pairbench.flows.settings import Reports, RunOptions
    from pairbench.session import Observer

__all__ = ["CiRequest", "CiResult", "run_ci", "EXIT_OK", "EXIT_REGRESSION", "TOKEN_VARIABLES"]

EXIT_OK = 0
EXIT_REGRESSION = 3

TOKEN_VARIABLES = ("GITHUB_TOKEN", "GH_TOKEN", "PAIRBENCH_GITLAB_TOKEN", "GITLAB_TOKEN")
"""Read once, then taken out of this process's environment: the pull request's builds and
benchmarks run its own code and never see a write token."""

SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


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


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run_ci(req: CiRequest) -> CiResult:
    """Build, measure, confirm, comment; the exit code is 3 on a confirmed regression, else 0."""
    from pairbench.forges import detect_target

    env = dict(req.env)
    target = detect_target(env)
    if req.env is os.environ:
        for name in TOKEN_VARIABLES:
            os.environ.pop(name, None)
    repo = _toplevel(req.repo)
    base_ref = req.base or (target.base_ref if target else "") or env.get("GITHUB_BASE_REF", "") \
        or env.get("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "") or _default_branch(repo)
    base_tip = _commit(repo, base_ref, given=req.base is not None)
    head = _commit(repo, req.head, given=True)
    merge_base = _merge_base(repo, base_tip, head, base_ref)
    suite = _load_suite(req.suite) if req.suite else None
    if req.pytest is not None:
        from pairbench.flows.ci_pytest import in_repo

        req = replace(req, pytest=replace(req.pytest, paths=tuple(in_repo(p, repo) for p in req.pytest.paths)))
    build = req.build if req.build is not None else _suite_build(suite)
    builds: dict[str, Build] = {}
    for role, commit in (("base", merge_base), ("head", head)):
        builds[role] = _build(repo, commit, role, build, req)
        if not builds[role].ok:
            _failed_build(req, env, target, role, builds[role], base_ref, merge_base, head)
    run = _make_run(req, suite, builds, merge_base, head)
    gated = tuple((b.name, b.metrics[0].name) for b in run.benchmarks if b.metrics)
    _measure_or_say(req, env, target, (base_ref, merge_base, head),
                    lambda: measure(run, req.options, req.reports, req.fakes[0], req.observer(req.options)))
    suspects = [c for c in run.comparisons if (c.benchmark, c.metric) in gated and c.verdict == "slower"]
    confirm = None
    if suspects:
        names = sorted({c.benchmark for c in suspects})
        _say(f"confirming: {len(names)} benchmark{'s' if len(names) != 1 else ''} found slower "
             f"({', '.join(names[:5])}{' ...' if len(names) > 5 else ''}) measured again in a fresh interleaved run")
        confirm = _make_run(req, suite, builds, merge_base, head, only=set(names), first=run)
        again_options = replace(req.options, export_json=None, record_history=False,
                                seed=None if req.options.seed is None else req.options.seed + 1)
        from pairbench.flows.settings import Reports

        again = confirm
        _measure_or_say(req, env, target, (base_ref, merge_base, head), lambda: measure(
            again, again_options, Reports(style=req.reports.style, time_unit=req.reports.time_unit),
            req.fakes[1] or req.fakes[0], req.observer(again_options),
            to_stderr=req.options.export_json == "-"))  # standard output holds the run file
    confirmed = _confirmed(suspects, confirm)
    comment = _comment(req, run, confirm, gated, base_ref, merge_base, head, build, builds, len(confirmed))
    posted = _comment(req, run, confirm, gated, base_ref, merge_base, head, build, builds, len(confirmed), limited=True)
    messages = _publish(req, env, target, comment, posted)
    if confirmed:
        _say(f"regression confirmed: {', '.join(confirmed)} slower beyond the noise band in both runs")
    elif suspects:
        _say(f"regression not confirmed: {', '.join(sorted({c.benchmark for c in suspects}))} slower in the first "
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
        _publish(req, env, target, render_run_failure(str(exc), *commits))
        raise


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


# ---- git ---------------------------------------------------------------------------------------

def _git(repo: str, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, timeout=300)
    except FileNotFoundError:
        raise UserError("git is not installed; pairbench ci builds commits from the repository") from None


def _toplevel(repo: str) -> str:
    out = _git(repo, "rev-parse", "--show-toplevel")
    if out.returncode != 0 or not out.stdout.strip():
        where = os.path.abspath(repo)
        raise UserError(f"{where} is not a git repository; run pairbench ci inside the checkout of the project")
    return out.stdout.strip()


def _shallow(repo: str) -> bool:
    return _git(repo, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"


_FETCH_ALL = ("the clone is shallow: fetch the whole history (actions/checkout with fetch-depth: 0; "
              "GitLab: GIT_DEPTH: 0)")


def _default_branch(repo: str) -> str:
    """The remote's default branch (origin/HEAD), else main or master if one exists."""
    out = _git(repo, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    if out.returncode == 0 and out.stdout.strip():
        return out.stdout.strip()
    for name in ("origin/main", "origin/master", "main", "master"):
        if _git(repo, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}").returncode == 0:
            return name
    raise UserError("no base to compare with: not in a pull request and the remote has no default branch; "
                    "give --base BRANCH")


def _commit(repo: str, ref: str, given: bool) -> str:
    """The commit `ref` names; a branch of the CI environment is looked for on the remote first."""
    names = [ref, f"origin/{ref}"] if given else [f"origin/{ref}", ref]
    for name in names:
        out = _git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{name}^{{commit}}")
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    if _shallow(repo):
        raise UserError(f"the base {ref!r} is not in this clone: {_FETCH_ALL}")
    known = _git(repo, "for-each-ref", "--format=%(refname:short)", "--count=15", "refs/heads", "refs/remotes")
    raise UserError(f"git ref {ref!r} does not exist in {repo}; branches: {', '.join(known.stdout.split()) or '(none)'}")


def _merge_base(repo: str, base: str, head: str, base_ref: str) -> str:
    out = _git(repo, "merge-base", base, head)
    if out.returncode == 0 and out.stdout.strip():
        return out.stdout.strip()
    if _shallow(repo):
        raise UserError(f"no merge-base of {base_ref} and the head in this clone: {_FETCH_ALL}")
    raise UserError(f"{base_ref} and the head have no common commit; give --base a branch the head grew from")


# ---- builds and the run ------------------------------------------------------------------------

def _load_suite(path: str) -> Any:
    from pairbench.suite import load_suite

    return load_suite(path)


def _suite_build(suite: Any) -> str:
    if suite is None:
        return ""
    template = next((v for v in suite.matrix if v.baseline), None)
    git = (template.meta.get("git") or {}) if template is not None else {}
    return str(git.get("build", ""))


def _build(repo: str, commit: str, role: str, build: str, req: CiRequest) -> Build:
    from pairbench.builds import ensure_build

    return ensure_build(repo, commit, build, cache=req.cache, progress=_say, timeout=req.build_timeout)


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
    _publish(req, env, target, render_build_failure(role, done.commit, done.build, "\n".join(tail), base_ref, base, head))
    raise UserError(f"the build of the {role} ({done.commit[:12]}) failed: {done.build}; the last lines of {done.log}:\n"
                    + "\n".join("  " + line for line in tail))


def _make_run(req: CiRequest, suite: Any, builds: dict[str, Build], base: str, head: str,
              only: set[str] | None = None, first: Run | None = None) -> Run:
    """The base (baseline) and the head as two variants, and the benchmarks to measure under both
    (`only` these, for the confirmation run of `first`)."""
    from pairbench.machine import machine_metadata
    from pairbench.model import Run

    commits = {"base": base, "head": head}
    notices: list[Any] = []
    collected: dict[str, Any] = {}
    if req.pytest is not None and first is not None:  # calibrated already: the same loop counts again
        variants, benchmarks = list(first.variants), list(first.benchmarks)
    elif req.pytest is not None:
        from pairbench.flows.ci_pytest import pytest_sides

        run = pytest_sides(req.pytest, {role: (builds[role].worktree, commits[role]) for role in ("base", "head")},
                           req.env, req.options.seed)
        variants, benchmarks = run.variants, [_settle_primary(b) for b in run.benchmarks]
        notices, collected = run.notices, {"pytest": run.metadata.get("pytest")}
    elif suite is not None:
        variants = [_suite_variant(suite, role, builds[role].worktree, commits[role]) for role in ("base", "head")]
        benchmarks = [_settle_primary(b) for b in suite.benchmarks]
    else:
        variants = [_cmd_variant(str(req.cmd), role, builds[role].worktree, commits[role]) for role in ("base", "head")]
        benchmarks = [_cmd_benchmark()]
    if only is not None:
        benchmarks = [b for b in benchmarks if b.name in only]
    run = Run(metadata=machine_metadata(), variants=variants, benchmarks=benchmarks)
    run.notices.extend(notices)
    run.metadata.update(collected)
    run.metadata["ci"] = {"base_commit": base, "head_commit": head, "confirmation": only is not None}
    run.metadata["git_commit"] = base
    return run


def _settle_primary(b: Benchmark) -> Benchmark:
    """Adaptive stopping waits for the primary metric only: the one the gate judges."""
    return replace(b, options={**b.options, "settle": [b.metrics[0].name]}) if b.metrics else b


def _cmd_variant(cmd: str, role: str, worktree: str, commit: str) -> Variant:
    from pairbench.model import Variant
    from pairbench.runners.command import resolve_command

    v = Variant(name=role, command=cmd.replace("{worktree}", shlex.quote(worktree)), baseline=role == "base")
    return replace(v, params={"worktree": worktree},
                   meta={**resolve_command(v), "git_commit": commit, "worktree": worktree})


def _cmd_benchmark() -> Benchmark:
    from pairbench.model import Benchmark
    from pairbench.runners.kinds import get_kind
    from pairbench.runners.options import Flags, as_mapping

    kind = get_kind("command")
    typed = kind.parse_options({"command": "{variant}"}, Flags({}))
    metrics = kind.metrics(typed, ())
    return Benchmark(name="command", kind="command", metrics=metrics,
                     options={**as_mapping(typed), "settle": [metrics[0].name]})


def _suite_variant(suite: Any, role: str, worktree: str, commit: str) -> Variant:
    """The suite's baseline variant with `{worktree}` this commit's checkout (a plain one without it)."""
    from pairbench.model import Variant

    template = next((v for v in suite.matrix if v.baseline), None)
    meta = {"git_commit": commit, "worktree": worktree}
    if template is None:
        return Variant(role, baseline=role == "base", params={"worktree": worktree}, meta=meta)

    def fill(text: str) -> str:
        return text.replace("{worktree}", worktree)

    return replace(template, name=role, baseline=role == "base", command=fill(template.command),
                   args=tuple(fill(a) for a in template.args), env={k: fill(x) for k, x in template.env.items()},
                   cwd=fill(template.cwd) if template.cwd else template.cwd,
                   params={**template.params, "worktree": worktree},
                   meta={**{k: x for k, x in template.meta.items() if k != "git"}, **meta})


# ---- the comment and where it goes -------------------------------------------------------------

def _comment(req: CiRequest, run: Run, confirm: Run | None, gated: tuple[tuple[str, str], ...], base_ref: str,
             base: str, head: str, build: str, builds: dict[str, Build], regressions: int, limited: bool = False) -> str:
    from pairbench.flows.builders.pytest import PytestSettings as PytestDefaults
    from pairbench.report.comment import COMMENT_LIMIT, CommentFacts, render_comment

    words = ["pairbench", "ci", "--base", base[:12], "--head", head[:12]]
    words += ["--build", build] if build else []
    if req.pytest is not None:
        words += [w for p in req.pytest.paths for w in ("--pytest", p)]
        words += ["--python", req.pytest.python[0]] if req.pytest.python else []
    else:
        words += ["--cmd", str(req.cmd)] if req.suite is None else [req.suite]
    if req.options.max_time is not None:
        words += ["--max-time", f"{req.options.max_time:g}"]
    words += ["--threshold", f"{req.options.threshold:g}"]
    if req.pytest is not None:
        p, plain = req.pytest, PytestDefaults()
        words += [w for b in p.bench for w in ("-b", b)]
        words += [w for flag, value, default in (("--samples", p.samples, plain.samples),
                                                 ("--warmup-samples", p.warmup_samples, plain.warmup_samples),
                                                 ("--target-time", p.target_time, plain.target_time),
                                                 ("--clock", p.clock, plain.clock)) if value != default
                  for w in (flag, f"{value:g}" if isinstance(value, float) else str(value))]
        words += ["--", *req.pytest.args] if req.pytest.args else []
    notes = tuple(f"{role} {b.commit[:12]}: " + ("build reused from the cache" if b.cached else f"built in {b.seconds:.1f} s")
                  for role, b in builds.items()) if build else ()
    facts = CommentFacts(base_ref=base_ref, base_commit=base, head_commit=head, threshold_source=req.threshold_source,
                         reproduce=shlex.join(words), gated=gated, notes=notes)
    return render_comment(run, confirm, facts, regressions, limit=COMMENT_LIMIT if limited else None)


def _publish(req: CiRequest, env: Mapping[str, str], target: Target | None, comment: str,
             posted: str | None = None) -> tuple[str, ...]:
    """Write the comment to --comment and the job summary; post it to the forge. One line each."""
    from pairbench.forges import upsert_comment
    from pairbench.forges.base import redact

    messages: list[str] = []
    if req.comment:
        try:
            Path(req.comment).write_text(comment, encoding="utf-8")
        except OSError as exc:
            messages.append(f"warning: cannot write the comment to {req.comment}: {exc.strerror}")
    summary = env.get(SUMMARY_ENV)
    if summary:
        try:
            with open(summary, "a", encoding="utf-8") as fh:
                fh.write(comment + "\n")
            messages.append("job summary: written")
        except OSError as exc:
            messages.append(f"warning: cannot write the job summary {summary}: {exc.strerror}")
    if target is not None and req.post:
        outcome = upsert_comment(target, posted or comment, _marker())
        messages.append(outcome.message if outcome.ok else f"warning: {outcome.message}")
    elif target is None and req.post and _in_ci(env):
        messages.append("note: no pull or merge request in this CI job's environment, so no comment was posted")
    token = target.token if target is not None else ""
    messages = [redact(m, token) for m in messages]
    for m in messages:
        _say(m)
    return tuple(messages)


def _marker() -> str:
    from pairbench.report.comment import MARKER

    return MARKER


def _in_ci(env: Mapping[str, str]) -> bool:
    return env.get("GITHUB_ACTIONS") == "true" or env.get("GITLAB_CI") == "true"
