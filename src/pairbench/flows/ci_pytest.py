"""`pairbench ci --pytest`: a pytest-benchmark suite run in the base's and the head's checkouts.

Why PYTHONPATH: each side must import its own commit's code, not a copy installed in the job's
environment. The checkout's `src` folder (a src layout), else its top, goes first on PYTHONPATH, and
pytest runs in the checkout, so each side collects its own test files. A project with compiled parts
builds them in place (`--build`), or installs into a virtual environment inside the checkout and
names it with `--python '{worktree}/.venv'`: that environment is then the code, and PYTHONPATH is
left alone.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Mapping

from pairbench.errors import UserError

if TYPE_CHECKING:
    from pairbench.flows.builders.pytest import PytestSettings
    from pairbench.model import Run, Variant

__all__ = ["in_repo", "pytest_sides"]


def in_repo(path: str, repo: str) -> str:
    """A --pytest path (a file, a folder, a node id) given from here, as the same path in any checkout."""
    file, sep, rest = path.partition("::")
    rel = os.path.relpath(os.path.realpath(file), repo)
    if rel == ".." or rel.startswith(".." + os.sep):
        raise UserError(f"--pytest {path!r} is outside the repository {repo}; give tests of the project")
    return rel + sep + rest


def _variant(s: PytestSettings, role: str, worktree: str, commit: str, env: Mapping[str, str]) -> Variant:
    """The commit's checkout as a pytest variant: pytest runs there, and its code comes first on
    PYTHONPATH (its `src` folder in a src layout, else the checkout's top), ahead of an installed copy.

    An interpreter inside the checkout (`--python '{worktree}/.venv'`) is an environment the build
    installed this commit into: that install is the code (with its compiled parts), and the source
    folder on PYTHONPATH would shadow it, so none is set."""
    from pairbench.flows.builders.pytest import interpreter
    from pairbench.model import Variant

    given = s.python[0] if s.python else "python3"
    python = given.replace("{worktree}", worktree)
    code = os.path.join(worktree, "src") if os.path.isdir(os.path.join(worktree, "src")) else worktree
    path = os.pathsep.join([code, *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])])
    own = {} if "{worktree}" in given else {"PYTHONPATH": path}
    return Variant(name=role, command=interpreter(python), env=own, cwd=worktree,
                   baseline=role == "base", params={"worktree": worktree},
                   meta={"language": "python", "python": python, "git_commit": commit, "worktree": worktree})


def pytest_sides(s: PytestSettings, sides: Mapping[str, tuple[str, str]], env: Mapping[str, str],
                 seed: int | None) -> Run:
    """The run of both sides ({role: (worktree, commit)}, the base first): the suite collected in
    each checkout, its loop counts calibrated on the base's."""
    from pairbench.flows.builders.pytest import pytest_run, pytest_runner

    for path in s.paths:
        for role, (worktree, commit) in sides.items():
            if not os.path.exists(os.path.join(worktree, path.split("::")[0])):
                why = ("the pull request adds it, so its benchmarks have nothing to compare with until it is merged"
                       if role == "base" else "the pull request removes or moves it")
                where = "the merge-base with the base branch" if role == "base" else "the pull request's head"
                raise UserError(f"--pytest {path} is not in the {role} ({commit[:12]}, {where}): {why}")
    variants = [_variant(s, role, worktree, commit, env) for role, (worktree, commit) in sides.items()]
    with pytest_runner(s, seed) as runner:
        return pytest_run(s, runner, variants)
