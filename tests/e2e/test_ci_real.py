"""`pairbench ci` measuring for real: a shell loop whose pull request does 40% more work, and one
whose pull request changes only the docs. Real git, real worktrees, a real build, real processes;
the effect is far beyond the 20% this noisy machine can be trusted with."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_ci import git

pytestmark = pytest.mark.slow

LOOP = "i=0; while [ $i -lt {n} ]; do i=$((i+1)); done\n"


def make_repo(tmp_path: Path, head_steps: int | None) -> Path:
    repo = tmp_path / "app"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "bench.in").write_text(LOOP.format(n=20000))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    if head_steps is None:
        (repo / "README").write_text("docs only\n")
    else:
        (repo / "bench.in").write_text(LOOP.format(n=head_steps))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the pull request")
    return repo


def run_ci(run_cli, repo: Path, tmp_path: Path):
    # The build copies the script, so the benchmark runs what the build made, as a real project's would.
    return run_cli("ci", "--base", "main", "--build", "cp bench.in bench.sh", "--cmd", "sh {worktree}/bench.sh",
                   "--max-time", "40", "--no-history", "--comment", str(tmp_path / "comment.md"),
                   "--export-json", str(tmp_path / "run.json"), cwd=repo,
                   env={"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")}, timeout=200)


def test_a_really_slower_head_is_confirmed_and_fails_the_gate(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path, head_steps=28000)
    proc = run_ci(run_cli, repo, tmp_path)
    assert proc.returncode == 3, proc.stderr
    text = (tmp_path / "comment.md").read_text()
    assert "1 confirmed regression" in text and "slower, confirmed" in text
    assert "confirming: 1 benchmark found slower" in proc.stderr


def test_a_docs_only_head_passes(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path, head_steps=None)
    proc = run_ci(run_cli, repo, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "confirmed regression" not in (tmp_path / "comment.md").read_text().splitlines()[1].replace("no confirmed", "")
