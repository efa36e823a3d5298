"""Forges: the one comment pairbench keeps on a pull request (GitHub) or merge request (GitLab).

Why a layer of its own: posting is the only network conversation `pairbench ci` has, it holds a
write token, and it must never fail the measurement. Each forge module finds its pull request in
the CI environment (`detect`), lists the request's comments, finds pairbench's by a hidden marker
and its author (the token's own account, so a quote of it is left alone) and updates it, or creates
it once (`upsert_comment`). Every problem (no token, a fork's read-only
token, a rate limit, an API error, no network) comes back as a `CommentOutcome` with a sentence,
never as an exception, so the flow shows one warning line and keeps the summary.

    detect_target(env) -> Target | None       (forges.FORGES: github, gitlab)
    upsert_comment(target, body, marker) -> CommentOutcome
"""

from __future__ import annotations

from typing import Mapping

from pairbench.forges.base import CommentOutcome, Forge, Target, redact
from pairbench.forges.github import GITHUB
from pairbench.forges.gitlab import GITLAB

__all__ = ["CommentOutcome", "Forge", "Target", "FORGES", "detect_target", "upsert_comment", "redact"]

FORGES: dict[str, Forge] = {"github": GITHUB, "gitlab": GITLAB}
"""The forges pairbench can comment on, by name."""


def detect_target(env: Mapping[str, str]) -> Target | None:
    """The pull or merge request this CI job runs for, from the first forge that recognises `env`."""
    for forge in FORGES.values():
        target = forge.detect(env)
        if target is not None:
            return target
    return None


def upsert_comment(target: Target, body: str, marker: str, timeout: float = 30.0) -> CommentOutcome:
    """Update pairbench's comment on `target` (found by `marker`), or create it; never raises."""
    if not target.token:
        return CommentOutcome(False, "skipped", f"no comment on {target.describe()}: {target.token_hint}")
    try:
        outcome = FORGES[target.forge].upsert(target, body, marker, timeout)
    except Exception as exc:  # noqa: BLE001 - a bug in the conversation must not cost the results
        outcome = CommentOutcome(False, "failed", f"no comment on {target.describe()}: {type(exc).__name__}: {exc}")
    return CommentOutcome(outcome.ok, outcome.action, redact(outcome.message, target.token), outcome.url)
