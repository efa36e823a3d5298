"""forges/: which pull or merge request a CI environment names, and what a missing token says.
(The conversation with the API is tested against a local server in tests/e2e/test_ci.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from pairbench.forges import FORGES, detect_target, redact, upsert_comment


def _event(tmp_path: Path, head_repo: str = "owner/app") -> str:
    path = tmp_path / "event.json"
    path.write_text(json.dumps({"pull_request": {"number": 41, "base": {"ref": "develop"},
                                                 "head": {"repo": {"full_name": head_repo}}}}))
    return str(path)


def test_github_pull_request_from_the_event_file(tmp_path: Path) -> None:
    env = {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": _event(tmp_path),
           "GITHUB_REPOSITORY": "owner/app", "GITHUB_TOKEN": "secret-1"}
    t = detect_target(env)
    assert t is not None and (t.forge, t.project, t.number, t.base_ref, t.fork) == ("github", "owner/app", 41, "develop", False)
    assert t.api_url == "https://api.github.com"
    assert "secret-1" not in repr(t)


def test_a_fork_is_recognised(tmp_path: Path) -> None:
    env = {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": _event(tmp_path, "me/app"),
           "GITHUB_REPOSITORY": "owner/app"}
    t = detect_target(env)
    assert t is not None and t.fork


def test_a_push_or_no_ci_is_no_target(tmp_path: Path) -> None:
    assert detect_target({}) is None
    assert detect_target({"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": _event(tmp_path),
                          "GITHUB_REPOSITORY": "owner/app"}) is None
    assert detect_target({"GITLAB_CI": "true", "CI_API_V4_URL": "https://gl/api/v4", "CI_PROJECT_ID": "9"}) is None


def test_gitlab_merge_request_from_its_variables() -> None:
    t = detect_target({"GITLAB_CI": "true", "CI_API_V4_URL": "https://gl.example/api/v4/", "CI_PROJECT_ID": "9",
                       "CI_MERGE_REQUEST_IID": "5", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
                       "PAIRBENCH_GITLAB_TOKEN": "glpat-x"})
    assert t is not None and (t.forge, t.api_url, t.project, t.number, t.base_ref, t.token) == (
        "gitlab", "https://gl.example/api/v4", "9", 5, "main", "glpat-x")


def test_no_token_is_a_skipped_outcome_with_the_fix(tmp_path: Path) -> None:
    env = {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": _event(tmp_path),
           "GITHUB_REPOSITORY": "owner/app"}
    t = detect_target(env)
    assert t is not None
    out = upsert_comment(t, "body", "<!-- m -->")
    assert (out.ok, out.action) == (False, "skipped") and "GITHUB_TOKEN" in out.message


def test_redact_and_the_table() -> None:
    assert redact("a tok b tok", "tok") == "a *** b ***"
    assert redact("nothing", "") == "nothing"
    assert set(FORGES) == {"github", "gitlab"}
