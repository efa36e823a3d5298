"""The comment of `pairbench ci` and where it goes: the `--comment` file, the job summary, and the one
comment on the pull request (found again by its hidden marker and updated, never one per push).

Why never fail here: the results are measured by now; a refused or failed post is one warning line,
and the file and the summary keep them.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:
    from pairbench.builds import Build
    from pairbench.flows.ci import CiRequest
    from pairbench.forges import Target
    from pairbench.model import Run

__all__ = ["SUMMARY_ENV", "render", "publish", "say"]

SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


def say(text: str) -> None:
    """One line of what the flow does, on standard error (standard output may hold the run file)."""
    print(text, file=sys.stderr, flush=True)


def render(req: CiRequest, run: Run, confirm: Run | None, gated: tuple[tuple[str, str], ...], base_ref: str,
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


def publish(req: CiRequest, env: Mapping[str, str], target: Target | None, comment: str,
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
        say(m)
    return tuple(messages)


def _marker() -> str:
    from pairbench.report.comment import MARKER

    return MARKER


def _in_ci(env: Mapping[str, str]) -> bool:
    return env.get("GITHUB_ACTIONS") == "true" or env.get("GITLAB_CI") == "true"
