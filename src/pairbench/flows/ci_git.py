"""The commits `pairbench ci` compares, found with git: the repository, the base branch, the head and
their merge-base.

Why the merge-base: commits added to the base branch after the pull request branched off are not
the pull request's doing, so they must not count against it. A shallow clone lacks the history
that finds it, and every error here says so (the fix is one line of the workflow).
"""

from __future__ import annotations

import os
import subprocess

from pairbench.errors import UserError

__all__ = ["toplevel", "default_branch", "resolve_commit", "merge_base"]


def _git(repo: str, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, timeout=300)
    except FileNotFoundError:
        raise UserError("git is not installed; pairbench ci builds commits from the repository") from None


def toplevel(repo: str) -> str:
    out = _git(repo, "rev-parse", "--show-toplevel")
    if out.returncode != 0 or not out.stdout.strip():
        where = os.path.abspath(repo)
        raise UserError(f"{where} is not a git repository; run pairbench ci inside the checkout of the project")
    return out.stdout.strip()


def _shallow(repo: str) -> bool:
    return _git(repo, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"


_FETCH_ALL = ("the clone is shallow: fetch the whole history (actions/checkout with fetch-depth: 0; "
              "GitLab: GIT_DEPTH: 0)")


def default_branch(repo: str) -> str:
    """The remote's default branch (origin/HEAD), else main or master if one exists."""
    out = _git(repo, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    if out.returncode == 0 and out.stdout.strip():
        return out.stdout.strip()
    for name in ("origin/main", "origin/master", "main", "master"):
        if _git(repo, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}").returncode == 0:
            return name
    raise UserError("no base to compare with: not in a pull request and the remote has no default branch; "
                    "give --base BRANCH")


def resolve_commit(repo: str, ref: str, given: bool) -> str:
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


def merge_base(repo: str, base: str, head: str, base_ref: str) -> str:
    out = _git(repo, "merge-base", base, head)
    if out.returncode == 0 and out.stdout.strip():
        return out.stdout.strip()
    if _shallow(repo):
        raise UserError(f"no merge-base of {base_ref} and the head in this clone: {_FETCH_ALL}")
    raise UserError(f"{base_ref} and the head have no common commit; give --base a branch the head grew from")

