"""GitHub: one comment on the pull request, created once and updated on every later push.

Documented REST calls (docs.github.com/rest/issues/comments): a pull request is an issue, so its
conversation comments are issue comments.

    GET   {api}/user                                                 (the token's account: its login)
    GET   {api}/repos/{owner}/{repo}/issues/{number}/comments?per_page=100&page=N   (Link: rel="next")
    POST  {api}/repos/{owner}/{repo}/issues/{number}/comments        {"body": ...}
    PATCH {api}/repos/{owner}/{repo}/issues/comments/{comment_id}    {"body": ...}

pairbench's comment is the one with the marker whose author (`user.login`) is the token's account:
a reviewer who quotes the comment quotes the marker too, and their comment is never edited. A GitHub
App installation token (Actions' GITHUB_TOKEN) may not read `/user` (403); its comments are
github-actions[bot]'s.

Headers: `Authorization: Bearer TOKEN`, `Accept: application/vnd.github+json`,
`X-GitHub-Api-Version: 2022-11-28`. Inside Actions the pull request comes from the event file
(GITHUB_EVENT_PATH) of a `pull_request` event; the token from GITHUB_TOKEN (the workflow passes
`${{ github.token }}`), which is read-only for a pull request from a fork: a 403 then.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any, Mapping

from pairbench.forges.base import MAX_PAGES, CommentOutcome, Response, Target, call

__all__ = ["GITHUB", "GitHub", "API_VERSION"]

API_VERSION = "2022-11-28"
PR_EVENTS = ("pull_request", "pull_request_target")
TOKEN_HINT = ("GITHUB_TOKEN is not set; pass it to the step (env: GITHUB_TOKEN: ${{ github.token }}) "
              "with permissions: pull-requests: write")

ACTIONS_BOT = "github-actions[bot]"
"""The author of the comments written with Actions' GITHUB_TOKEN, which may not read `GET /user`."""

_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')


class GitHub:
    """The GitHub REST API (github.com, or GitHub Enterprise Server through GITHUB_API_URL)."""

    def detect(self, env: Mapping[str, str]) -> Target | None:
        if env.get("GITHUB_ACTIONS") != "true" or env.get("GITHUB_EVENT_NAME") not in PR_EVENTS:
            return None
        event = _event(env.get("GITHUB_EVENT_PATH", ""))
        pr = event.get("pull_request") or {}
        number = pr.get("number") or event.get("number")
        repo = env.get("GITHUB_REPOSITORY", "")
        if not isinstance(number, int) or "/" not in repo:
            return None
        head_repo = ((pr.get("head") or {}).get("repo") or {}).get("full_name")
        return Target("github", env.get("GITHUB_API_URL", "https://api.github.com").rstrip("/"), repo, number,
                      token=env.get("GITHUB_TOKEN") or env.get("GH_TOKEN", ""), token_hint=TOKEN_HINT,
                      base_ref=str((pr.get("base") or {}).get("ref") or env.get("GITHUB_BASE_REF", "")),
                      fork=bool(head_repo) and head_repo != repo)

    def upsert(self, target: Target, body: str, marker: str, timeout: float) -> CommentOutcome:
        headers = {"Authorization": f"Bearer {target.token}", "Accept": "application/vnd.github+json",
                   "X-GitHub-Api-Version": API_VERSION, "User-Agent": "pairbench"}
        me = _login(target, headers, timeout)
        if isinstance(me, CommentOutcome):
            return me
        issue = f"{target.api_url}/repos/{target.project}/issues/{target.number}"
        url: str | None = f"{issue}/comments?per_page=100"
        found: dict[str, Any] | None = None
        for _ in range(MAX_PAGES):
            if url is None:
                break
            page = call("GET", url, headers, timeout=timeout)
            if not page.ok:
                return _failed(target, "listing its comments", page)
            found = next((c for c in page.data or [] if isinstance(c, dict) and marker in str(c.get("body", ""))
                          and _author(c) == me), None)
            if found is not None:
                break
            match = _NEXT.search(page.headers.get("link", ""))
            url = match.group(1) if match else None
        if found is not None:
            sent = call("PATCH", f"{target.api_url}/repos/{target.project}/issues/comments/{found['id']}", headers,
                        {"body": body}, timeout)
            action = "updated"
        else:
            sent = call("POST", f"{issue}/comments", headers, {"body": body}, timeout)
            action = "created"
        if not sent.ok:
            return _failed(target, "updating its comment" if action == "updated" else "creating a comment", sent)
        link = str((sent.data or {}).get("html_url", "")) if isinstance(sent.data, dict) else ""
        return CommentOutcome(True, action, f"{action} the comment on {target.describe()}" + (f": {link}" if link else ""),
                              link)


def _login(target: Target, headers: Mapping[str, str], timeout: float) -> str | CommentOutcome:
    """The login of the token's account (`GET /user`), or why it is unknown (then nothing is written)."""
    resp = call("GET", f"{target.api_url}/user", headers, timeout=timeout)
    if resp.status in (403, 404) and not _rate_limited(resp):
        return ACTIONS_BOT  # an installation token: no user of its own, its comments are the Actions bot's
    if not resp.ok:
        return _failed(target, "reading the token's account", resp)
    login = resp.data.get("login") if isinstance(resp.data, dict) else None
    if not isinstance(login, str) or not login:
        return CommentOutcome(False, "failed", f"no comment on {target.describe()}: GET /user named no account, "
                                               "so pairbench cannot tell its own comment from a quote of it")
    return login


def _author(comment: Mapping[str, Any]) -> str | None:
    user = comment.get("user")
    return user.get("login") if isinstance(user, dict) else None


def _rate_limited(resp: Response) -> bool:
    return resp.status in (403, 429) and (resp.headers.get("x-ratelimit-remaining") == "0" or "retry-after" in resp.headers)


def _event(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _failed(target: Target, doing: str, resp: Response) -> CommentOutcome:
    """One sentence for a refused or failed call: rate limit, read-only token, or the API's message."""
    where = f"no comment on {target.describe()}"
    if _rate_limited(resp):
        reset = resp.headers.get("x-ratelimit-reset", "")
        when = (f" until {time.strftime('%H:%M:%S UTC', time.gmtime(int(reset)))}" if reset.isdigit()
                else f" for {resp.headers['retry-after']} s" if "retry-after" in resp.headers else "")
        return CommentOutcome(False, "failed", f"{where}: the GitHub API rate limit is spent{when} ({doing})")
    if resp.status == 403:
        why = ("the pull request comes from a fork, whose GITHUB_TOKEN is read-only" if target.fork else
               "the token may not write comments (a pull request from a fork gets a read-only token; "
               "the workflow needs permissions: pull-requests: write)")
        return CommentOutcome(False, "failed", f"{where}: GitHub refused ({doing}, 403 {resp.error}): {why}; "
                                               "the job summary has the results")
    if resp.status == 401:
        return CommentOutcome(False, "failed", f"{where}: GitHub rejected the token (401, {doing})")
    status = f"HTTP {resp.status}" if resp.status else "no answer"
    return CommentOutcome(False, "failed", f"{where}: {doing} failed ({status}: {resp.error})")


GITHUB = GitHub()
