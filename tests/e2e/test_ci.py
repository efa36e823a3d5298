"""`pairbench ci` on git repositories made here, talking to a local GitHub/GitLab API.

Git, worktrees and builds are real; the timings are scripted (`--debug-fake FIRST;CONFIRM`: the
head's ratio in the first and in the confirmation run), so the gate, the comment and the API
conversation are tested in seconds. `test_ci_real.py` measures a really slower commit.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e._forge_server import ForgeServer

TOKEN = "ghp_pairbenchKNOWNfakeTOKEN0123456789abcd"
"""A token the tests look for everywhere it must not be."""


def git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "PATH": "/usr/bin:/bin", "HOME": str(repo)}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def make_repo(tmp_path: Path, head_files: dict[str, str] | None = None) -> Path:
    """main: bench.sh and build.sh; the checked-out branch `feature` adds a commit (README, or `head_files`)."""
    repo = tmp_path / "app"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "bench.sh").write_text("true\n")
    (repo / "build.sh").write_text("echo building\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    for name, text in (head_files or {"README": "docs only\n"}).items():
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the pull request")
    return repo


def github_env(tmp_path: Path, api: str, token: str | None = TOKEN, fork: bool = False) -> dict[str, str]:
    event = {"number": 7, "pull_request": {"number": 7, "base": {"ref": "main"},
                                           "head": {"repo": {"full_name": "someone/app" if fork else "owner/app"}}}}
    (tmp_path / "event.json").write_text(json.dumps(event))
    env = {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
           "GITHUB_API_URL": api, "GITHUB_REPOSITORY": "owner/app", "GITHUB_BASE_REF": "main",
           "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), "PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")}
    if token is not None:
        env["GITHUB_TOKEN"] = token
    return env


def gitlab_env(tmp_path: Path, api: str) -> dict[str, str]:
    return {"GITLAB_CI": "true", "CI_API_V4_URL": api + "/api/v4", "CI_PROJECT_ID": "42", "CI_MERGE_REQUEST_IID": "3",
            "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main", "PAIRBENCH_GITLAB_TOKEN": TOKEN,
            "PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")}


def ci(run_cli, repo: Path, env: dict[str, str], fake: str = "1,1.3", *extra: str):
    return run_cli("ci", "--cmd", "sh {worktree}/bench.sh", "--debug-fake", fake, "--no-history",
                   "--max-time", "30", *extra, cwd=repo, env=env)


def one_line_error(proc) -> str:
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


def test_a_second_run_updates_the_one_comment_it_created(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    with ForgeServer() as srv:
        env = github_env(tmp_path, srv.url)
        first = ci(run_cli, repo, env)
        second = ci(run_cli, repo, env)
    assert first.returncode == 3, first.stderr
    assert second.returncode == 3, second.stderr
    ours = [c for c in srv.state.comments if "pairbench-ci-comment" in c["body"]]
    assert len(ours) == 1, [c["body"][:40] for c in srv.state.comments]
    writes = [(r.method, r.path) for r in srv.state.requests if r.method != "GET"]
    assert [m for m, _ in writes] == ["POST", "PATCH"], writes
    assert writes[1][1] == f"/repos/owner/app/issues/comments/{ours[0]['id']}"
    # the five other comments fill three pages of two: the listing followed the Link header
    assert any("page=3" in r.path for r in srv.state.requests if r.method == "GET")
    for r in srv.state.requests:
        assert r.headers["authorization"] == f"Bearer {TOKEN}"
        assert r.headers["x-github-api-version"] == "2022-11-28"
        assert r.headers["accept"] == "application/vnd.github+json"
    assert "confirmed" in ours[0]["body"]
    assert "created the comment on pull request #7" in first.stderr
    assert "updated the comment on pull request #7" in second.stderr


def test_the_known_token_appears_nowhere(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    with ForgeServer() as srv:
        env = github_env(tmp_path, srv.url)
        env["GITHUB_API_URL"] = srv.url
        env["XDG_DATA_HOME"] = str(tmp_path / "data")  # the run files saved without --export-json
        proc = run_cli("ci", "--cmd", "sh {worktree}/bench.sh", "--debug-fake", "1,1.3", "--max-time", "30",
                       "--history", str(tmp_path / "history.sqlite"),
                       "--build", "env > built-env.txt; echo $GITHUB_TOKEN $GH_TOKEN",
                       "--export-json", str(tmp_path / "run.json"), "--comment", str(tmp_path / "comment.md"),
                       "--export-markdown", str(tmp_path / "report.md"), "--export-html", str(tmp_path / "report.html"),
                       cwd=repo, env={**env, "GH_TOKEN": TOKEN})
    assert proc.returncode == 3, proc.stderr
    assert srv.state.requests and all(TOKEN in r.headers["authorization"] for r in srv.state.requests)
    assert TOKEN not in proc.stdout and TOKEN not in proc.stderr
    seen = [tmp_path / "run.json", tmp_path / "summary.md", tmp_path / "comment.md", tmp_path / "report.md",
            tmp_path / "report.html", tmp_path / "history.sqlite"]
    seen += [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]  # build logs, the build's environment
    saved = [p for p in (tmp_path / "data").rglob("*.json") if p.is_file()]
    assert saved, "no run file of the confirmation run"  # the first run's is run.json
    seen += saved
    assert any(p.name == "built-env.txt" for p in seen)
    for path in seen:
        assert TOKEN.encode() not in path.read_bytes(), path
    for c in srv.state.comments:
        assert TOKEN not in c["body"]


def test_a_403_keeps_the_summary_and_says_why_there_is_no_comment(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    with ForgeServer() as srv:
        srv.state.refuse = True
        proc = ci(run_cli, repo, github_env(tmp_path, srv.url, fork=True))
    assert proc.returncode == 3, proc.stderr  # the verdict decides, not the refused comment
    assert "Traceback" not in proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning: no comment")]
    assert len(warnings) == 1, proc.stderr
    assert "403" in warnings[0] and "fork" in warnings[0] and "read-only" in warnings[0]
    summary = (tmp_path / "summary.md").read_text()
    assert "| Benchmark | Base | Head |" in summary and "confirmed" in summary


def test_a_rate_limit_is_one_warning_and_the_summary_stays(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    with ForgeServer() as srv:
        srv.state.rate_limited = True
        proc = ci(run_cli, repo, github_env(tmp_path, srv.url), "1,1.0")
    assert proc.returncode == 0, proc.stderr
    assert "rate limit" in proc.stderr and "Traceback" not in proc.stderr
    assert "pairbench-ci-comment" in (tmp_path / "summary.md").read_text()


def test_no_token_on_a_pull_request_writes_the_summary_and_warns(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    with ForgeServer() as srv:
        proc = ci(run_cli, repo, github_env(tmp_path, srv.url, token=None), "1,1.3")
    assert proc.returncode == 3, proc.stderr
    assert not srv.state.requests
    assert "warning: no comment on pull request #7 of owner/app: GITHUB_TOKEN is not set" in proc.stderr
    assert "confirmed" in (tmp_path / "summary.md").read_text()


def test_gitlab_creates_one_note_then_updates_it(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    with ForgeServer() as srv:
        env = gitlab_env(tmp_path, srv.url)
        assert ci(run_cli, repo, env, "1,1.0").returncode == 0
        assert ci(run_cli, repo, env, "1,1.0").returncode == 0
    writes = [r for r in srv.state.requests if r.method != "GET"]
    assert [r.method for r in writes] == ["POST", "PUT"]
    assert writes[0].path == "/api/v4/projects/42/merge_requests/3/notes"
    assert all(r.headers["private-token"] == TOKEN for r in srv.state.requests)
    assert any("page=3" in r.path for r in srv.state.requests)
    assert sum("pairbench-ci-comment" in c["body"] for c in srv.state.comments) == 1


def test_a_slower_result_that_does_not_reproduce_does_not_fail(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    proc = ci(run_cli, repo, {"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")}, "1,1.3;1,1.0", "--base", "main",
              "--comment", str(tmp_path / "c.md"))
    assert proc.returncode == 0, proc.stderr
    assert "confirming: 1 benchmark found slower" in proc.stderr
    # the terminal ends on why it passes, as it does on a confirmed regression (it ended on the
    # confirmation run's table, its slower verdict gone, and exited 0 without a word)
    assert any(line.startswith("regression not confirmed: command") for line in proc.stderr.splitlines())
    text = (tmp_path / "c.md").read_text()
    assert "not confirmed" in text and "no confirmed regression" in text


def test_no_difference_measures_once_and_passes(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    proc = ci(run_cli, repo, {"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")}, "1,1.0", "--base", "main",
              "--comment", str(tmp_path / "c.md"))
    assert proc.returncode == 0, proc.stderr
    assert "confirming" not in proc.stderr
    text = (tmp_path / "c.md").read_text()
    base = git(repo, "merge-base", "main", "HEAD")
    assert f"pairbench ci --base {base[:12]} --head {git(repo, 'rev-parse', 'HEAD')[:12]}" in text


def test_not_a_git_repository(tmp_path: Path, run_cli) -> None:
    (tmp_path / "plain").mkdir()
    proc = run_cli("ci", "--cmd", "sh {worktree}/bench.sh", "--debug-fake", "1,1", cwd=tmp_path / "plain",
                   env={"GIT_CEILING_DIRECTORIES": str(tmp_path)})
    assert "is not a git repository" in one_line_error(proc)


def test_a_base_that_is_not_there(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    proc = ci(run_cli, repo, {"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")}, "1,1", "--base", "no-such-branch")
    line = one_line_error(proc)
    assert "'no-such-branch' does not exist" in line and "main" in line


def test_a_shallow_clone_says_fetch_depth_0(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{repo}", str(clone)],
                   check=True, capture_output=True)
    with ForgeServer() as srv:
        proc = ci(run_cli, clone, github_env(tmp_path, srv.url))
    assert "fetch-depth: 0" in one_line_error(proc)


@pytest.mark.parametrize("broken", ["base", "head"])
def test_a_failing_build_says_which_and_shows_its_log(tmp_path: Path, run_cli, broken: str) -> None:
    failing = "echo 'compiler says no: missing semicolon'; exit 2\n"
    repo = make_repo(tmp_path, {"build.sh": failing} if broken == "head" else None)
    if broken == "base":  # the base's build fails, the head fixed it
        git(repo, "checkout", "-q", "main")
        (repo / "build.sh").write_text(failing)
        git(repo, "commit", "-q", "-am", "broken build")
        git(repo, "checkout", "-q", "feature")
        git(repo, "rebase", "-q", "main")
        (repo / "build.sh").write_text("echo fixed\n")
        git(repo, "commit", "-q", "-am", "fix the build")
    proc = ci(run_cli, repo, {"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")}, "1,1", "--base", "main",
              "--build", "sh build.sh")
    line = one_line_error(proc)
    assert f"the build of the {broken}" in line
    assert "compiler says no: missing semicolon" in proc.stderr


def test_neither_cmd_nor_suite(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    assert "--cmd" in one_line_error(run_cli("ci", "--debug-fake", "1,1", cwd=repo))


SUITE = """
[variants.base]
git = { repo = ".", ref = "main", build = "cp bench.sh built.sh" }
command = "sh"

[variants.head]
git = { repo = ".", ref = "HEAD", build = "cp bench.sh built.sh" }
command = "sh"

[benchmarks.loop]
kind = "command"
command = "{variant} {worktree}/built.sh"

[benchmarks.parse]
kind = "command"
command = "{variant} {worktree}/built.sh parse"
"""


def test_a_suite_file_runs_its_benchmarks_under_both_commits_with_its_build(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path, {"suite.toml": SUITE})
    proc = run_cli("ci", "suite.toml", "--base", "main", "--debug-fake", "1,1.3", "--no-history", "--max-time", "30",
                   "--export-json", str(tmp_path / "run.json"), "--comment", str(tmp_path / "c.md"), cwd=repo,
                   env={"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 3, proc.stderr
    run = json.loads((tmp_path / "run.json").read_text())
    worktrees = {v["name"]: v["params"]["worktree"] for v in run["variants"]}
    assert set(worktrees) == {"base", "head"}
    assert all((Path(w) / "built.sh").is_file() for w in worktrees.values())  # the suite's build ran in each
    assert {b["name"] for b in run["benchmarks"]} == {"loop", "parse"}
    text = (tmp_path / "c.md").read_text()
    assert "2 confirmed regressions" in text and "pairbench ci --base" in text and "suite.toml" in text


def test_an_api_that_does_not_answer_is_one_warning(tmp_path: Path, run_cli) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    repo = make_repo(tmp_path)
    proc = ci(run_cli, repo, github_env(tmp_path, f"http://127.0.0.1:{port}"), "1,1.0")
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning: no comment")]
    assert len(warnings) == 1 and "no answer" in warnings[0] and "Traceback" not in proc.stderr
    assert TOKEN not in proc.stderr
    assert "pairbench-ci-comment" in (tmp_path / "summary.md").read_text()


def test_a_failing_build_replaces_the_comment_with_which_side_and_the_log(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path, {"build.sh": "echo '@octocat compiler says no'; exit 2\n"})
    with ForgeServer() as srv:
        env = github_env(tmp_path, srv.url)
        proc = ci(run_cli, repo, env, "1,1", "--build", "sh build.sh")
    assert "the build of the head" in one_line_error(proc)
    ours = [c for c in srv.state.comments if "pairbench-ci-comment" in c["body"]]
    assert len(ours) == 1
    body = ours[0]["body"]
    assert "the head" in body and "does not build" in body
    assert "```\n" in body and "@octocat compiler says no" in body.split("```\n", 1)[1]  # inside the fence
    assert "does not build" in (tmp_path / "summary.md").read_text()


def test_export_json_dash_keeps_standard_output_the_run_file(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    proc = ci(run_cli, repo, {"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")}, "1,1.3", "--base", "main",
              "--export-json", "-")
    assert proc.returncode == 3, proc.stderr
    run = json.loads(proc.stdout)  # the first run's file, and nothing else (the confirmation went to stderr)
    assert {v["name"] for v in run["variants"]} == {"base", "head"}
    assert "confirming" in proc.stderr


def test_gitlab_refusing_the_token_is_one_warning_that_names_the_scope(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    with ForgeServer() as srv:
        srv.state.refuse = True
        proc = ci(run_cli, repo, gitlab_env(tmp_path, srv.url), "1,1.3", "--comment", str(tmp_path / "c.md"))
    assert proc.returncode == 3, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning: no note")]
    assert len(warnings) == 1 and "403" in warnings[0] and "api scope" in warnings[0]
    assert "confirmed" in (tmp_path / "c.md").read_text()


def test_history_records_the_base_only_under_its_commit_once(tmp_path: Path, run_cli) -> None:
    """The history is the base branch's line: a pull request's head is not a point on it."""
    import sqlite3

    repo = make_repo(tmp_path)
    store = tmp_path / "trend.sqlite"
    proc = run_cli("ci", "--cmd", "sh {worktree}/bench.sh", "--debug-fake", "1,1.3", "--max-time", "30", "--base", "main",
                   "--history", str(store), "--export-json", str(tmp_path / "run.json"), cwd=repo,
                   env={"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 3, proc.stderr  # a confirmation run happened: it is not recorded
    base, head = git(repo, "merge-base", "main", "HEAD"), git(repo, "rev-parse", "HEAD")
    with sqlite3.connect(store) as db:
        runs = db.execute("SELECT id, git_commit FROM runs").fetchall()
        assert [commit for _, commit in runs] == [base]
        variants = dict(db.execute("SELECT name, git_commit FROM variants").fetchall())
        assert variants == {"base": base}
        counted = dict(db.execute("SELECT variant, COUNT(*) FROM samples GROUP BY variant").fetchall())
        compared = db.execute("SELECT COUNT(*) FROM comparisons").fetchone()[0]
    assert set(counted) == {"base"} and counted["base"] > 0, counted
    assert compared == 0  # a comparison with the head is the pull request's, not the line's
    saved = json.loads((tmp_path / "run.json").read_text())  # the run file keeps both sides
    assert {v["name"] for v in saved["variants"]} == {"base", "head"}
    assert counted["base"] == sum(1 for s in saved["samples"] if s["variant"] == "base")
    listed = run_cli("history", "--history", str(store), cwd=repo)
    assert listed.returncode == 0 and base[:10] in listed.stdout, listed.stdout + listed.stderr


def test_a_history_store_that_cannot_be_used_is_one_warning_and_the_verdict_stands(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not a database at all" * 50)
    proc = run_cli("ci", "--cmd", "sh {worktree}/bench.sh", "--debug-fake", "1,1.3", "--max-time", "30", "--base", "main",
                   "--history", str(bad), "--comment", str(tmp_path / "c.md"), cwd=repo,
                   env={"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 3 and "Traceback" not in proc.stderr, proc.stderr
    warned = [line for line in proc.stderr.splitlines() if "run not recorded in the history" in line]
    assert len(warned) == 1 and warned[0].startswith("warning: "), proc.stderr
    assert bad.read_bytes() == b"not a database at all" * 50
    assert "not recorded in the history" in " ".join((tmp_path / "c.md").read_text().split())


def test_the_comment_says_the_band_how_it_was_set_and_the_machine(tmp_path: Path, run_cli) -> None:
    import os

    repo = make_repo(tmp_path)
    proc = ci(run_cli, repo, {"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")}, "1,1.3", "--base", "main",
              "--threshold", "3", "--comment", str(tmp_path / "c.md"))
    assert proc.returncode == 3, proc.stderr
    text = (tmp_path / "c.md").read_text()
    assert "**Noise band** ±3% (--threshold 3)" in text
    machine = next(line for line in text.splitlines() if line.startswith("**Machine**"))
    assert f"{os.cpu_count()} cores" in machine
    assert "<details>" in text and "Confirmation run" in text.split("<details>", 1)[1]
    assert "--threshold 3" in text.split("Reproduce locally", 1)[1]
    default = ci(run_cli, repo, {"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")}, "1,1.0", "--base", "main",
                 "--comment", str(tmp_path / "d.md"))
    assert "**Noise band** ±2% (the default of pairbench ci)" in (tmp_path / "d.md").read_text()


def test_an_api_error_on_writing_is_one_warning_and_the_summary_stays(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    with ForgeServer() as srv:
        srv.state.fail_writes = 500
        proc = ci(run_cli, repo, github_env(tmp_path, srv.url), "1,1.3")
    assert proc.returncode == 3, proc.stderr  # the verdict's
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning: no comment")]
    assert len(warnings) == 1 and "HTTP 500" in warnings[0] and "Traceback" not in proc.stderr, proc.stderr
    assert "confirmed" in (tmp_path / "summary.md").read_text()


def test_gitlab_without_a_token_warns_with_the_variable_to_set(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    with ForgeServer() as srv:
        env = {k: v for k, v in gitlab_env(tmp_path, srv.url).items() if k != "PAIRBENCH_GITLAB_TOKEN"}
        proc = ci(run_cli, repo, env, "1,1.0", "--comment", str(tmp_path / "c.md"))
    assert proc.returncode == 0, proc.stderr
    assert not srv.state.requests
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning: no comment")]
    assert len(warnings) == 1 and "merge request !3" in warnings[0] and "PAIRBENCH_GITLAB_TOKEN" in warnings[0]
    assert "no regression" in (tmp_path / "c.md").read_text()


def test_outside_a_pull_request_the_base_is_the_remotes_default_branch(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    git(repo, "checkout", "-q", "main")  # the remote's HEAD, so origin/HEAD is origin/main in the clone
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", f"file://{repo}", str(clone)], check=True, capture_output=True)
    git(clone, "checkout", "-q", "feature")
    proc = ci(run_cli, clone, {"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")}, "1,1.0", "--comment",
              str(tmp_path / "c.md"))
    assert proc.returncode == 0, proc.stderr
    base = git(clone, "rev-parse", "origin/main")
    assert f"against `{base[:12]}`, the merge-base with origin/main" in (tmp_path / "c.md").read_text()


def test_a_benchmark_failing_on_the_head_replaces_the_comment_with_the_error(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    with ForgeServer() as srv:
        env = github_env(tmp_path, srv.url)
        assert ci(run_cli, repo, env, "1,1.0").returncode == 0  # an earlier push: a comment with results
        (repo / "bench.sh").write_text("echo 'no such file: data.json' >&2; exit 1\n")
        git(repo, "commit", "-q", "-am", "a push that breaks the benchmark")
        proc = run_cli("ci", "--cmd", "sh {worktree}/bench.sh", "--no-history", "--max-time", "20", cwd=repo, env=env)
    line = one_line_error(proc)
    assert "variant 'head'" in line and "exited with code 1" in line
    ours = [c for c in srv.state.comments if "pairbench-ci-comment" in c["body"]]
    assert len(ours) == 1
    body = ours[0]["body"]
    assert "nothing to compare" in body and "variant 'head'" in body and "exited with code 1" in body, body
    assert "| Benchmark | Base | Head |" not in body  # the earlier push's results are gone
    assert "nothing to compare" in (tmp_path / "summary.md").read_text().split("pairbench-ci-comment")[-1]
