"""Variants built from git refs: worktrees, the build cache, failed builds, bad refs, dirty repos."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pairbench.builds import ensure_build, resolve_builds
from pairbench.errors import UserError
from pairbench.suite import parse_suite

PROGRAM = """
import time
n = {n}
t = time.perf_counter()
x = 0
for i in range(n):
    x += i
print("work time:", time.perf_counter() - t)
"""


def git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "PATH": "/usr/bin:/bin", "HOME": str(repo)}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def make_repo(tmp_path: Path) -> Path:
    """Commit `fast` (tag) runs 150k loop steps; commit `slow` (tag) does 2.5x the work."""
    repo = tmp_path / "app"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "prog.py").write_text(PROGRAM.format(n=150_000))
    git(repo, "add", "prog.py")
    git(repo, "commit", "-q", "-m", "fast")
    git(repo, "tag", "fast")
    (repo / "prog.py").write_text(PROGRAM.format(n=375_000))
    git(repo, "commit", "-q", "-am", "slow: 2.5x the loop")
    git(repo, "tag", "slow")
    return repo


# The "build" copies the program to a built name and counts builds in a file outside the cache.
def build_command(counter: Path) -> str:
    return f"cp prog.py built.py && echo built >> {counter}"


def test_build_once_then_cached(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    counter = tmp_path / "count.txt"
    cache = tmp_path / "cache"
    first = ensure_build(str(repo), "fast", build_command(counter), cache=cache)
    assert first.ok and not first.cached
    assert (Path(first.worktree) / "built.py").read_text() == PROGRAM.format(n=150_000)
    assert first.commit == git(repo, "rev-parse", "fast")
    assert "cp prog.py built.py" in Path(first.log).read_text()
    again = ensure_build(str(repo), "fast", build_command(counter), cache=cache)
    assert again.cached and again.worktree == first.worktree
    assert counter.read_text().count("built") == 1
    # Another build command is another build.
    other = ensure_build(str(repo), "fast", build_command(counter) + " && true", cache=cache)
    assert not other.cached and other.worktree != first.worktree
    assert counter.read_text().count("built") == 2


def test_failed_build_is_a_notice_and_others_go_on(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    suite = parse_suite(textwrap.dedent(f"""
        [variants.fast]
        git = {{ repo = "{repo}", ref = "fast" }}
        command = "{sys.executable} {{worktree}}/prog.py"
        [variants.broken]
        git = {{ repo = "{repo}", ref = "slow", build = "echo compiling; echo 'error: no such file' >&2; exit 3" }}
        command = "{sys.executable} {{worktree}}/prog.py"
        [variants.plain]
        command = "true"
        [benchmarks.b]
        command = "{{variant}}"
        """), str(tmp_path / "s.toml"))
    variants, notices = resolve_builds(suite.matrix, cache=tmp_path / "cache")
    assert [v.name for v in variants] == ["fast", "plain"]
    assert variants[0].command.endswith("/src/prog.py") and "{worktree}" not in variants[0].command
    assert variants[0].meta["git_commit"] == git(repo, "rev-parse", "fast")
    assert variants[0].params["worktree"] == variants[0].meta["worktree"]
    assert Path(variants[0].meta["build_log"]).is_file()
    (n,) = notices
    assert n.kind == "build_failed" and n.variant == "broken"
    assert "error: no such file" in n.message and "exit code 3" in n.message


def test_missing_ref_and_dirty_repo_are_clear_errors(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    with pytest.raises(UserError, match=r"git ref 'nope' does not exist in .*app; branches and tags: main, fast, slow"):
        ensure_build(str(repo), "nope", "", cache=tmp_path / "cache")
    with pytest.raises(UserError, match=r"does not exist; fix git.repo"):
        ensure_build(str(tmp_path / "missing"), "main", "", cache=tmp_path / "cache")
    (repo / "prog.py").write_text("edited")
    with pytest.raises(UserError, match=r"uncommitted changes \(prog.py\) and ref 'main' is its checked-out commit"):
        ensure_build(str(repo), "main", "", cache=tmp_path / "cache")
    # Another ref of a dirty repository is fine: the edits are not on it either way.
    assert ensure_build(str(repo), "fast", "", cache=tmp_path / "cache").ok


@pytest.mark.slow
def test_cli_builds_two_commits_compares_and_does_not_rebuild_and_survives_a_failed_build(run_cli, tmp_path: Path) -> None:
    from pairbench.store.runfile import load_run

    repo = make_repo(tmp_path)
    counter = tmp_path / "count.txt"
    suite = tmp_path / "builds.toml"
    suite.write_text(textwrap.dedent(f"""
        [defaults]
        runs = 10
        warmup = 1
        seed = 3

        [variants.fast]
        git = {{ repo = "app", ref = "fast", build = "{build_command(counter)}" }}
        command = "{sys.executable} -S -I {{worktree}}/built.py"
        baseline = true

        [variants.slow]
        git = {{ repo = "app", ref = "slow", build = "{build_command(counter)}" }}
        command = "{sys.executable} -S -I {{worktree}}/built.py"

        [variants.broken]
        git = {{ repo = "app", ref = "slow", build = "echo compiling; echo 'fatal: missing header' >&2; exit 2" }}
        command = "{sys.executable} -S -I {{worktree}}/built.py"

        [benchmarks.loop]
        command = "{{variant}}"
        shell = false
        metrics = {{ work = {{ regex = 'work time: ([\\d.e-]+)', unit = "s" }} }}
        """))
    env = {"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache"), "XDG_DATA_HOME": str(tmp_path / "data")}
    out1 = tmp_path / "run1.json"
    proc = run_cli("run", str(suite), "--export-json", str(out1), "--no-history", "--no-progress", env=env)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert proc.stderr.count("building ") == 3
    assert counter.read_text().count("built") == 2
    # The failed build is reported with its log's tail; the others were measured all the same.
    assert "warning: the build of slow" in proc.stderr and "fatal: missing header" in proc.stderr

    run = load_run(out1)
    assert [n.variant for n in run.notices if n.kind == "build_failed"] == ["broken"]
    by_name = {v.name: v for v in run.variants}
    assert set(by_name) == {"fast", "slow"}
    assert by_name["fast"].meta["git_commit"] == git(repo, "rev-parse", "fast")
    assert by_name["slow"].meta["git_commit"] == git(repo, "rev-parse", "slow")
    assert Path(by_name["slow"].meta["build_log"]).is_file()
    assert run.suite is not None
    assert {m["name"]: m["git_commit"] for m in run.suite["matrix"]} == {
        "fast": git(repo, "rev-parse", "fast"), "slow": git(repo, "rev-parse", "slow")}
    verdicts = {(c.metric, c.candidate): c.verdict for c in run.comparisons}
    assert verdicts[("time", "slow")] == "slower"
    assert verdicts[("work", "slow")] == "slower"

    out2 = tmp_path / "run2.json"
    proc = run_cli("run", str(suite), "--export-json", str(out2), "--no-history", "--no-progress",
                   "--runs", "6", "--warmup", "0", env=env)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    # Only the failed build is tried again; the two good ones come from the cache.
    assert proc.stderr.count("building ") == 1 and "exit 2" in proc.stderr
    assert counter.read_text().count("built") == 2
    assert all(v.meta["build_cached"] for v in load_run(out2).variants)


def test_every_ref_is_checked_before_any_build(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    counter = tmp_path / "count.txt"
    suite = parse_suite(textwrap.dedent(f"""
        [variants.a]
        git = {{ repo = "{repo}", ref = "fast", build = "{build_command(counter)}" }}
        command = "{{worktree}}/prog.py"
        [variants.b]
        git = {{ repo = "{repo}", ref = "typo", build = "{build_command(counter)}" }}
        command = "{{worktree}}/prog.py"
        [benchmarks.b]
        command = "{{variant}}"
        """))
    with pytest.raises(UserError, match="git ref 'typo' does not exist"):
        resolve_builds(suite.matrix, cache=tmp_path / "cache")
    assert not counter.exists()


def _suite_with_build(tmp_path: Path, repo: Path, build: str, timeout: str = "") -> Path:
    suite = tmp_path / "bench.toml"
    suite.write_text(textwrap.dedent(f"""\
        [variants.fast]
        git = {{ repo = "{repo}", ref = "fast", build = "cp prog.py built.py"{timeout} }}
        command = "{sys.executable} -S -I {{worktree}}/built.py"
        baseline = true

        [variants.hung]
        git = {{ repo = "{repo}", ref = "slow", build = "{build}"{timeout} }}
        command = "{sys.executable} -S -I {{worktree}}/built.py"

        [benchmarks.loop]
        command = "{{variant}}"
        shell = false
        """))
    return suite


def test_a_build_past_its_timeout_is_stopped_with_its_children_and_reported(run_cli, tmp_path: Path) -> None:
    from tests.e2e._http_servers import processes_with

    repo = make_repo(tmp_path)
    marker = f"61.{os.getpid()}"  # a sleep duration no other process uses
    # The build forks a background child (as `make -j` does) and hangs in the foreground.
    suite = _suite_with_build(tmp_path, repo, f"echo compiling; sleep {marker} & sleep {marker}", ", timeout = 1.5")
    env = {"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache"), "XDG_DATA_HOME": str(tmp_path / "data")}
    proc = run_cli("run", str(suite), "--runs", "3", "--warmup", "0", "--no-history", "--no-progress",
                   "--export-json", str(tmp_path / "r.json"), env=env, timeout=120)
    # The only candidate failed to build: nothing to compare, said with the log's tail, no traceback.
    assert proc.returncode == 1, proc.stderr
    assert "every candidate failed to build" in proc.stderr and "timed out after 1.5 s" in proc.stderr
    assert "compiling" in proc.stderr and "Traceback" not in proc.stderr
    assert processes_with(marker) == []


@pytest.mark.slow
def test_ctrl_c_during_a_build_stops_the_whole_build_and_says_so(tmp_path: Path) -> None:
    import signal
    import time

    from tests.conftest import cli_env
    from tests.e2e._http_servers import processes_with

    repo = make_repo(tmp_path)
    marker = f"62.{os.getpid()}"
    suite = _suite_with_build(tmp_path, repo, f"echo compiling; sleep {marker} & sleep {marker}")
    env = cli_env({"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache"), "XDG_DATA_HOME": str(tmp_path / "data")})
    proc = subprocess.Popen([sys.executable, "-m", "pairbench", "run", str(suite), "--no-history", "--no-progress"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while len(processes_with(marker)) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(processes_with(marker)) >= 3, "the build never started"  # the shell and two sleeps
        os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err, err
    assert processes_with(marker) == []
    # The half-made build is not taken for a finished one: the next run builds it again.
    log = next((tmp_path / "cache" / "builds").glob(f"{git(repo, 'rev-parse', 'slow')[:12]}-*/build.log"))
    assert not (log.parent / "done.json").exists()
