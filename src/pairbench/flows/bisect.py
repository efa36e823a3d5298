"""The bisect flow: find the commit that changed a benchmark, deciding each step with a paired verdict.

Each step builds the commit in the middle of the open interval (in the build cache, so a commit is
built once) and measures it interleaved with the interval's two ends in one run; the verdicts of
that run decide whether it behaves like the good end, like the bad end, like neither (the change
has several steps: both halves are searched) or cannot tell (the interval is reported as a range).
Every step is recorded in the history store tagged with what it measured, so a second bisect of
the same commits and command reuses it.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pairbench.analysis.bisection import BisectStep, Commit, Finding, Outcome
    from pairbench.builds import Build
    from pairbench.model import Comparison, Run

__all__ = ["Bisection", "bisect", "STEP_KEY"]

STEP_KEY = "bisect_step"
"""Metadata key that tags a recorded step run with a digest of what it measured."""

@dataclass(frozen=True, slots=True)
class Bisection:
    """What `pairbench bisect` is asked, by its flags' names (defaults: `bisect` without the flag)."""

    good: str
    """A commit that behaves well."""
    bad: str
    """A later commit that behaves badly."""
    cmd: str | None = None
    """The benchmark command; {worktree} is the commit's checkout (or `suite`)."""
    suite: str | None = None
    """A suite file whose benchmarks run under each commit."""
    repo: str = "."
    build: str = ""
    """The build command, run in each commit's worktree."""
    only: str | None = None
    decide_on: str | None = None
    """The metric that decides (default: the first metric, else each benchmark's primary one)."""
    metric: tuple[str, ...] = ()
    """NAME=REGEX specs of numbers the command prints."""
    max_time_per_step: float = 120.0
    runs: int = 5
    warmup: int = 1
    threshold: float = 1.0
    confidence: float = 0.95
    build_timeout: float | None = None
    cache_dir: str | None = None
    history: str | None = None
    no_history: bool = False
    """Neither reuse nor record step runs."""
    seed: int | None = None
    export_json: str | None = None
    """Where the result (steps, changes, ranges) goes as JSON ('-': standard output)."""


@dataclass
class _Context:
    """What every step shares: the request, the commits and their builds."""

    args: Bisection
    commits: list[Commit]
    metric: str
    """The deciding metric ("" for each benchmark's primary one)."""
    suite: Any = None
    """With --suite: the loaded suite (its selected benchmarks and its baseline variant)."""
    builds: dict[int, Build] = field(default_factory=dict)
    steps: list[BisectStep] = field(default_factory=list)
    skipped: set[int] = field(default_factory=set)


def bisect(args: Bisection) -> int:
    """Search the first-parent commits from `good` to `bad`, print the result; the exit code."""
    from pairbench.analysis.bisection import search_changes
    from pairbench.errors import Interrupted

    ctx = _prepare(args)
    start = time.monotonic()
    pending: list[tuple[int, int]] = []
    try:
        for end in (0, len(ctx.commits) - 1):
            if not _build(ctx, end).ok:
                from pairbench.errors import UserError

                raise UserError(f"{_describe(ctx.commits[end])} (the {'good' if end == 0 else 'bad'} end) does not "
                                f"build; see {ctx.builds[end].log}")
        findings = search_changes(len(ctx.commits), lambda g, m, b: _probe(ctx, g, m, b), ctx.skipped, pending)
    except (KeyboardInterrupt, Interrupted):
        from pairbench import interrupts
        from pairbench.analysis.bisection import Finding

        interrupts.shield()
        so_far = [Finding(g, b, "interrupted", tuple(i for i in range(g + 1, b) if i in ctx.skipped)) for g, b in pending]
        _print_result(ctx, so_far, [], time.monotonic() - start)
        raise Interrupted(f"bisect interrupted after {len(ctx.steps)} step{'s' if len(ctx.steps) != 1 else ''}; "
                          "the range found so far is above") from None
    confirmed = [_confirm(ctx, f) if f.exact else None for f in findings]
    _print_result(ctx, findings, confirmed, time.monotonic() - start)
    return 0


def _prepare(args: Bisection) -> _Context:
    from pairbench.analysis.bisection import Commit
    from pairbench.builds import resolve_commit
    from pairbench.errors import UserError
    from pairbench.runners.command import compile_metric

    suite = _load_suite(args) if args.suite else None
    if suite is None and "{worktree}" not in str(args.cmd):
        raise UserError("--cmd must name the commit's checkout as {worktree}, e.g. '{worktree}/bin/tool input'")
    if args.only and suite is None:
        raise UserError("--only selects benchmarks of a suite: give --suite FILE too")
    if args.runs < 2:
        raise UserError(f"--runs must be at least 2 (got {args.runs})")
    metrics = [compile_metric(spec)[0] for spec in args.metric]
    _check_repository(args.repo)
    good, bad = resolve_commit(args.repo, args.good), resolve_commit(args.repo, args.bad)
    if good == bad:
        raise UserError(f"--good {args.good} and --bad {args.bad} are the same commit; give two commits")
    if _git(args.repo, "merge-base", "--is-ancestor", good, bad).returncode != 0:
        raise UserError(f"--good {args.good} is not an ancestor of --bad {args.bad}; give an older good commit")
    listed = _git(args.repo, "rev-list", "--reverse", "--first-parent", "--ancestry-path", f"{good}..{bad}")
    ids = [good, *listed.stdout.split()]
    if ids[-1] != bad:  # a merge brought the good commit in from the side: keep the bad end's own line
        ids = [good, *_git(args.repo, "rev-list", "--reverse", "--first-parent", f"{good}..{bad}").stdout.split()]
    subjects = _subjects(args.repo, ids)
    metric = args.decide_on or (metrics[0] if metrics else ("" if suite is not None else "time"))
    if suite is not None and metric:
        lacking = [b.name for b in suite.benchmarks if metric not in {m.name for m in b.metrics}]
        if lacking:
            raise UserError(f"--decide-on {metric}: benchmark {lacking[0]!r} has no such metric; its metrics: "
                            + ", ".join(m.name for m in next(b for b in suite.benchmarks if b.name == lacking[0]).metrics))
    return _Context(args, [Commit(i, subjects.get(i, "")) for i in ids], metric, suite)


def _check_repository(repo: str) -> None:
    """The folder bisect searches must be a git repository; the message names it (`.` as the folder
    it stands for) and says how to give another (the builds' own messages speak of suites)."""
    import os

    from pairbench.errors import UserError

    where = os.path.abspath(repo) if repo in ("", ".") else repo
    if not os.path.isdir(repo):
        raise UserError(f"--repo {where} does not exist; run bisect inside a git repository, or pass --repo DIR")
    try:
        found = _git(repo, "rev-parse", "--git-dir").returncode == 0
    except FileNotFoundError:
        raise UserError("git is not installed (bisect checks out and builds commits with it); install git") from None
    if not found:
        raise UserError(f"{where} is not a git repository; run bisect inside one, or pass --repo DIR")


def _load_suite(args: Bisection) -> Any:
    from pairbench.suite import load_suite, select_benchmarks

    return select_benchmarks(load_suite(args.suite), args.only)


def _git(repo: str, *argv: str) -> Any:
    import subprocess

    return subprocess.run(["git", "-C", repo, *argv], capture_output=True, text=True, timeout=300)


def _subjects(repo: str, ids: list[str]) -> dict[str, str]:
    out = _git(repo, "log", "--no-walk=unsorted", "--format=%H%x00%s", *ids)
    return dict(line.split("\0", 1) for line in out.stdout.splitlines() if "\0" in line)


def _describe(c: Commit) -> str:
    return f"{c.short} {c.subject!r}" if c.subject else c.short


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _build(ctx: _Context, index: int) -> Build:
    from pathlib import Path

    from pairbench.builds import ensure_build

    if index not in ctx.builds:
        a = ctx.args
        ctx.builds[index] = ensure_build(a.repo, ctx.commits[index].id, a.build,
                                         cache=Path(a.cache_dir) if a.cache_dir else None,
                                         progress=_say, timeout=a.build_timeout)
    return ctx.builds[index]


def _probe(ctx: _Context, g: int, m: int, b: int) -> Outcome:
    """Build commit `m` and measure it against the ends `g` and `b`; record the step."""
    from pairbench.analysis.bisection import BisectStep, decide_benchmarks

    c = ctx.commits
    started = time.monotonic()
    built = _build(ctx, m)
    if not built.ok:
        _say(f"step {len(ctx.steps) + 1}: {_describe(c[m])} does not build: skipped (log: {built.log})")
        ctx.steps.append(BisectStep(c[m], c[g], c[b], "skipped", seconds=time.monotonic() - started))
        return "skipped"
    _say(f"step {len(ctx.steps) + 1}: {_describe(c[m])} against {c[g].short} (good) and {c[b].short} (bad)")
    run, reused = _measure(ctx, [m, g, b])
    pairs = _pairs(ctx, run, c[g].short, c[b].short)
    outcome: Outcome = decide_benchmarks(pairs) if pairs else "undecided"
    # The table shows the benchmark whose ends differ most: the one the step is about.
    vs_good, vs_bad = max(pairs, key=_span) if pairs else (None, None)
    ctx.steps.append(BisectStep(c[m], c[g], c[b], outcome, vs_good, vs_bad, int(run.metadata.get("blocks", 0)),
                                0.0 if reused else time.monotonic() - started, reused,
                                str(run.metadata.get("run_file", ""))))
    _say(f"  -> {outcome}" + (" (reused from the history)" if reused else ""))
    return outcome


def _deciding(ctx: _Context, run: Run) -> dict[str, str]:
    """Benchmark -> the metric that decides it."""
    return {b.name: ctx.metric or b.metrics[0].name for b in run.benchmarks if b.metrics}


def _pairs(ctx: _Context, run: Run, good: str, bad: str) -> list[tuple[Comparison, Comparison]]:
    """Per benchmark, the deciding metric's comparisons with the good and the bad end."""
    out = []
    for bench, metric in _deciding(ctx, run).items():
        vs = {x.candidate: x for x in run.comparisons if x.benchmark == bench and x.metric == metric}
        if good in vs and bad in vs:
            out.append((vs[good], vs[bad]))
    return out


def _span(pair: tuple[Comparison, Comparison]) -> float:
    import math

    g, b = pair
    return abs(math.log(b.ratio / g.ratio)) if g.ratio and b.ratio and g.ratio > 0 and b.ratio > 0 else 0.0


def _step_key(ctx: _Context, indices: list[int]) -> str:
    a = ctx.args
    suite = ""
    if a.suite:
        from pathlib import Path

        suite = hashlib.sha256(Path(a.suite).read_bytes()).hexdigest() + (a.only or "")
    # The budget counts too: a bisect given more time per step measures an undecided step again.
    what = [[ctx.commits[i].id for i in indices], a.cmd or suite, a.build, list(a.metric), ctx.metric, a.threshold,
            a.confidence, a.runs, a.warmup, a.max_time_per_step]
    return hashlib.sha256(json.dumps(what).encode()).hexdigest()[:24]


def _step_run(ctx: _Context, indices: list[int]) -> Run:
    """A run of the commits at `indices`, the first the baseline, each running --cmd in its worktree."""
    from pairbench.flows.builders.common import new_run
    from pairbench.model import Benchmark, Variant
    from pairbench.runners.command import compile_metric, resolve_command
    from pairbench.runners.kinds import get_kind
    from pairbench.runners.options import Flags, as_mapping

    if ctx.suite is not None:
        return _suite_step_run(ctx, indices)
    variants = []
    for pos, i in enumerate(indices):
        v = Variant(name=ctx.commits[i].short, command=_command_of(ctx, i), baseline=pos == 0)
        variants.append(Variant(v.name, v.command, baseline=v.baseline,
                                meta={**resolve_command(v), "git_commit": ctx.commits[i].id}))
    kind = get_kind("command")
    typed = kind.parse_options({"command": "{variant}",
                                "metrics": {n: rx.pattern for n, rx in map(compile_metric, ctx.args.metric)}},
                               Flags({"metrics": "--metric"}))
    # Stopping waits for the deciding metric only: wall time beside a --metric would hold every step open.
    bench = Benchmark(name="bisect", kind="command", metrics=kind.metrics(typed, ()),
                      options={**as_mapping(typed), "settle": [ctx.metric]})
    run = new_run(variants, [bench])
    run.metadata[STEP_KEY] = _step_key(ctx, indices)
    run.metadata["git_commit"] = ctx.commits[indices[0]].id
    return run


def _suite_step_run(ctx: _Context, indices: list[int]) -> Run:
    """The suite's benchmarks under each commit: its baseline variant with {worktree} that commit's checkout."""
    from dataclasses import replace

    from pairbench.flows.builders.common import new_run

    base = next((v for v in ctx.suite.matrix if v.baseline), None)
    variants = []
    for pos, i in enumerate(indices):
        wt = ctx.builds[i].worktree

        def fill(text: str, wt: str = wt) -> str:
            return text.replace("{worktree}", wt)

        meta = {k: v for k, v in (base.meta if base else {}).items() if k != "git"}
        variants.append(replace(base, name=ctx.commits[i].short, baseline=pos == 0, command=fill(base.command),
                                args=tuple(fill(x) for x in base.args), env={k: fill(x) for k, x in base.env.items()},
                                cwd=fill(base.cwd) if base.cwd else base.cwd, params={**base.params, "worktree": wt},
                                meta={**meta, "git_commit": ctx.commits[i].id, "worktree": wt})
                        if base else _plain_variant(ctx, i, pos == 0))
    benchmarks = list(ctx.suite.benchmarks)
    if ctx.metric:
        benchmarks = [replace(b, options={**b.options, "settle": [ctx.metric]}) for b in benchmarks]
    run = new_run(variants, benchmarks)
    run.metadata[STEP_KEY] = _step_key(ctx, indices)
    run.metadata["git_commit"] = ctx.commits[indices[0]].id
    return run


def _plain_variant(ctx: _Context, index: int, baseline: bool) -> Any:
    from pairbench.model import Variant

    wt = ctx.builds[index].worktree
    return Variant(ctx.commits[index].short, baseline=baseline, params={"worktree": wt},
                   meta={"git_commit": ctx.commits[index].id, "worktree": wt})


def _command_of(ctx: _Context, index: int) -> str:
    return str(ctx.args.cmd).replace("{worktree}", shlex.quote(ctx.builds[index].worktree))


def _measure(ctx: _Context, indices: list[int]) -> tuple[Run, bool]:
    """Measure the commits at `indices` (or reuse the history's run of them); (run, reused)."""
    from dataclasses import replace

    from pairbench.errors import BudgetTooSmall
    from pairbench.flows.measure import make_runners
    from pairbench.session import RunOptions, execute

    run = _step_run(ctx, indices)
    a = ctx.args
    options = RunOptions(runs=a.runs, warmup=a.warmup, max_time=a.max_time_per_step, threshold=a.threshold,
                         confidence=a.confidence, seed=a.seed, history=a.history, record_history=not a.no_history)
    if not a.no_history:
        reused = _from_history(run, options)
        if reused is not None:
            return reused, True
    try:
        execute(run, make_runners(run, options.seed), options)
    except BudgetTooSmall as exc:
        # A step that cannot fit its -r blocks in the budget still needs them to decide anything.
        _say(f"  {exc}; measuring this step's {a.runs} blocks without the budget")
        run = _step_run(ctx, indices)
        execute(run, make_runners(run, options.seed), replace(options, max_time=None))
    return run, False


def _from_history(run: Run, options: Any) -> Run | None:
    """The same step measured before, analysed again from its recorded samples."""
    from pairbench import analysis
    from pairbench.store.history import HistoryError, open_history, resolve_location

    location = resolve_location(options.history)
    if location is None:
        return None
    try:
        with open_history(location, create=False) as history:
            found = history.find_run(STEP_KEY, str(run.metadata[STEP_KEY]))
            if found is None:
                return None
            run.samples = history.samples(found[0])
    except (HistoryError, OSError):
        return None  # no store yet, or one that cannot be read: measure
    meta = found[1]
    run.metadata.update({k: meta[k] for k in ("blocks", "run_file", "seed", "adaptive") if k in meta})
    looks = len((meta.get("adaptive") or {}).get("looks") or [1])
    run.comparisons, _ = analysis.analyze(run, threshold=options.threshold / 100, confidence=options.confidence,
                                          looks=looks, correction=options.correction)
    run.status = "complete"
    return run


def _confirm(ctx: _Context, finding: Finding) -> Comparison | None:
    """The found commit against its parent, measured on their own: its ratio with the CI."""
    _say(f"confirming {_describe(ctx.commits[finding.bad])} against its parent {ctx.commits[finding.good].short}")
    run, _ = _measure(ctx, [finding.good, finding.bad])
    deciding = _deciding(ctx, run)
    chosen = [c for c in run.comparisons if deciding.get(c.benchmark) == c.metric and c.ratio]
    import math

    return max(chosen, key=lambda c: abs(math.log(c.ratio)) if c.ratio and c.ratio > 0 else 0.0, default=None)


def _reproduce(ctx: _Context, finding: Finding) -> str:
    a = ctx.args
    if a.suite:  # two adjacent commits: bisect goes straight to the comparison of the pair
        words = ["pairbench", "bisect", "--repo", a.repo, "--good", ctx.commits[finding.good].short,
                 "--bad", ctx.commits[finding.bad].short, "--build", a.build, "--suite", a.suite,
                 "--max-time-per-step", f"{a.max_time_per_step:g}", "--threshold", f"{a.threshold:g}"]
        words += (["--only", a.only] if a.only else []) + (["--decide-on", ctx.metric] if ctx.metric else [])
        return shlex.join(words)
    words = ["pairbench", "cmd", "--reference", _command_of(ctx, finding.good), _command_of(ctx, finding.bad),
             "-n", ctx.commits[finding.good].short, "-n", ctx.commits[finding.bad].short,
             "--max-time", f"{a.max_time_per_step:g}", "--threshold", f"{a.threshold:g}"]
    for spec in a.metric:
        words += ["--metric", spec]
    return shlex.join(words)


def _print_result(ctx: _Context, findings: list[Finding], confirmed: list[Comparison | None], seconds: float) -> None:
    from pairbench.report.bisect import render_bisect

    commands = [_reproduce(ctx, f) if f.exact else "" for f in findings]
    metric = ctx.metric or "each benchmark's primary metric"
    to_stdout = ctx.args.export_json == "-"
    text = render_bisect(ctx.commits, ctx.steps, findings, confirmed, commands, metric, seconds)
    (sys.stderr if to_stdout else sys.stdout).write(text)
    if ctx.args.export_json:
        from pairbench.report.bisect import bisect_document
        from pairbench.report.exporters import write_text

        doc = bisect_document(ctx.commits, ctx.steps, findings, confirmed, commands, metric, seconds)
        write_text(ctx.args.export_json, json.dumps(doc, indent=2) + "\n")
    sys.stdout.flush()
