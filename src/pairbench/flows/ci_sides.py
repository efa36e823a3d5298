"""The two sides of `pairbench ci` as one run: the base (the baseline) and the head as variants, each
pointing at its commit's checkout, and the benchmarks measured under both.

Why one run: both commits are measured interleaved on this machine, so the drift of a shared runner
falls on both alike. The run comes from `--cmd`, a suite file's baseline variant, or a
pytest-benchmark suite (`ci_pytest.py`); the builds come from the build cache (`builds.py`).
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pairbench.builds import Build
    from pairbench.flows.ci import CiRequest
    from pairbench.model import Benchmark, Run, Variant

__all__ = ["load_suite", "suite_build", "build_commit", "make_run", "base_line"]


def load_suite(path: str) -> Any:
    from pairbench.suite import load_suite as load

    return load(path)


def suite_build(suite: Any) -> str:
    if suite is None:
        return ""
    template = next((v for v in suite.matrix if v.baseline), None)
    git = (template.meta.get("git") or {}) if template is not None else {}
    return str(git.get("build", ""))


def build_commit(repo: str, commit: str, role: str, build: str, req: CiRequest) -> Build:
    from pairbench.builds import ensure_build
    from pairbench.flows.ci_publish import say

    return ensure_build(repo, commit, build, cache=req.cache, progress=say, timeout=req.build_timeout)


def make_run(req: CiRequest, suite: Any, builds: dict[str, Build], base: str, head: str,
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


def base_line(run: Run) -> Run:
    """The base's part of a measured run: the results of a commit on the base branch's line.

    The history is that line (the trend site, `--threshold auto`'s band); the head of a pull request
    is not a point on it, and neither are the comparisons with it.
    """
    base = run.baseline.name

    def mine(items: list[Any]) -> list[Any]:
        return [x for x in items if getattr(x, "variant", base) == base]

    return replace(run, metadata=dict(run.metadata), variants=[run.baseline], samples=mine(run.samples),
                   comparisons=[], notices=mine(run.notices), sweeps=[], summaries=[],
                   steady_states=mine(run.steady_states), series=mine(run.series), profiles=mine(run.profiles),
                   profile_differences=[])


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

