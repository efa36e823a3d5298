"""`pairbench ci` updates only a comment its own token's account wrote, never one that quotes its marker.

A reviewer who quotes the bot's comment quotes its hidden marker too; the comment to update is the
one with the marker whose author is the token's account (GitHub: `GET /user`'s login against the
comment's `user.login`, github-actions[bot] for Actions' GITHUB_TOKEN, which may not read `/user`;
GitLab: `GET /user`'s id against the note's `author.id`). The local API server records every request.
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e._forge_server import ForgeServer, by
from tests.e2e.test_ci import TOKEN, ci, github_env, gitlab_env, make_repo

QUOTE = "> <!-- pairbench-ci-comment -->\n> **pairbench** said slower: is that the new parser?"


def _quoted(author: dict) -> dict:
    return {"id": 50, "body": QUOTE, **author}


def test_github_leaves_a_reviewers_quote_of_the_marker_alone(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    with ForgeServer() as srv:
        srv.state.comments.insert(0, _quoted(by("reviewer", 9)))
        env = github_env(tmp_path, srv.url)
        first = ci(run_cli, repo, env, "1,1.0")
        second = ci(run_cli, repo, env, "1,1.0")
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    quote = next(c for c in srv.state.comments if c["id"] == 50)
    assert quote["body"] == QUOTE
    ours = [c for c in srv.state.comments if c["user"]["login"] == "pairbench-bot"]
    assert len(ours) == 1 and ours[0]["body"].startswith("<!-- pairbench-ci-comment -->")
    writes = [(r.method, r.path) for r in srv.state.requests if r.method != "GET"]
    assert writes == [("POST", "/repos/owner/app/issues/7/comments"),
                      ("PATCH", f"/repos/owner/app/issues/comments/{ours[0]['id']}")], writes
    asked = [r for r in srv.state.requests if r.path == "/user"]
    assert len(asked) == 2 and all(r.headers["authorization"] == f"Bearer {TOKEN}" for r in asked)
    assert "created the comment" in first.stderr and "updated the comment" in second.stderr


def test_github_actions_token_updates_the_comment_of_github_actions_bot(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    with ForgeServer() as srv:
        srv.state.installation_token = True  # GET /user answers 403, as to Actions' GITHUB_TOKEN
        srv.state.comments.insert(0, _quoted(by("reviewer", 9)))
        srv.state.comments.append({"id": 60, "body": "<!-- pairbench-ci-comment -->\nan earlier push",
                                   **by("github-actions[bot]", 41898282, "Bot")})
        proc = ci(run_cli, repo, github_env(tmp_path, srv.url), "1,1.0")
    assert proc.returncode == 0, proc.stderr
    writes = [(r.method, r.path) for r in srv.state.requests if r.method != "GET"]
    assert writes == [("PATCH", "/repos/owner/app/issues/comments/60")], writes
    assert next(c for c in srv.state.comments if c["id"] == 50)["body"] == QUOTE
    assert "updated the comment" in proc.stderr and "warning: no comment" not in proc.stderr


def test_github_a_user_endpoint_that_fails_is_one_warning_and_no_write(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    with ForgeServer() as srv:
        srv.state.comments.insert(0, _quoted(by("reviewer", 9)))
        srv.state.login = ""  # an answer without a login: who the token is stays unknown
        proc = ci(run_cli, repo, github_env(tmp_path, srv.url), "1,1.3")
    assert proc.returncode == 3, proc.stderr  # the verdict's
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning: no comment")]
    assert len(warnings) == 1 and "account" in warnings[0], proc.stderr
    assert [r.method for r in srv.state.requests if r.method != "GET"] == []
    assert "confirmed" in (tmp_path / "summary.md").read_text()


def test_gitlab_leaves_a_note_quoting_the_marker_alone(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path)
    with ForgeServer() as srv:
        srv.state.comments.insert(0, _quoted(by("reviewer", 9)))
        env = gitlab_env(tmp_path, srv.url)
        assert ci(run_cli, repo, env, "1,1.0").returncode == 0
        assert ci(run_cli, repo, env, "1,1.0").returncode == 0
    assert next(c for c in srv.state.comments if c["id"] == 50)["body"] == QUOTE
    ours = [c for c in srv.state.comments if c["author"]["id"] == 77]
    assert len(ours) == 1
    writes = [(r.method, r.path) for r in srv.state.requests if r.method != "GET"]
    notes = "/api/v4/projects/42/merge_requests/3/notes"
    assert writes == [("POST", notes), ("PUT", f"{notes}/{ours[0]['id']}")], writes
    asked = [r for r in srv.state.requests if r.path == "/api/v4/user"]
    assert len(asked) == 2 and all(r.headers["private-token"] == TOKEN for r in asked)
