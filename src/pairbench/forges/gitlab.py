"""GitLab: one note on the merge request, created once and updated on every later pipeline.

Documented REST calls (docs.gitlab.com/api/notes, merge request notes):

    GET  {CI_API_V4_URL}/user                                                 (the token's user: its id)
    GET  {CI_API_V4_URL}/projects/{id}/merge_requests/{iid}/notes?per_page=100&page=N   (X-Next-Page)
    POST {CI_API_V4_URL}/projects/{id}/merge_requests/{iid}/notes            {"body": ...}
    PUT  {CI_API_V4_URL}/projects/{id}/merge_requests/{iid}/notes/{note_id}  {"body": ...}

Header `PRIVATE-TOKEN: TOKEN` (a project access token with the api scope, in a masked CI variable;
CI_JOB_TOKEN may not write notes). pairbench's note is the one with the marker whose `author.id` is
the token's user: a note quoting it is never edited. The merge request comes from a merge request pipeline's
variables (CI_MERGE_REQUEST_IID, CI_MERGE_REQUEST_TARGET_BRANCH_NAME).
"""

from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import quote

from pairbench.forges.base import MAX_PAGES, CommentOutcome, Response, Target, call

__all__ = ["GITLAB", "GitLab", "TOKEN_VARIABLES"]

TOKEN_VARIABLES = ("PAIRBENCH_GITLAB_TOKEN", "GITLAB_TOKEN")
"""Where the token is looked for, first found wins."""
TOKEN_HINT = ("set PAIRBENCH_GITLAB_TOKEN (a project access token with the api scope, as a masked CI/CD "
              "variable) to get a note on the merge request")


class GitLab:
    """The GitLab REST API v4 (gitlab.com or a self-managed instance, from CI_API_V4_URL)."""

    def detect(self, env: Mapping[str, str]) -> Target | None:
        iid, api, project = env.get("CI_MERGE_REQUEST_IID", ""), env.get("CI_API_V4_URL", ""), env.get("CI_PROJECT_ID", "")
        if not (iid.isdigit() and api and project):
            return None
        token = next((env[k] for k in TOKEN_VARIABLES if env.get(k)), "")
        source, own = env.get("CI_MERGE_REQUEST_SOURCE_PROJECT_ID", ""), env.get("CI_MERGE_REQUEST_PROJECT_ID", "")
        return Target("gitlab", api.rstrip("/"), project, int(iid), token=token, token_hint=TOKEN_HINT,
                      base_ref=env.get("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", ""),
                      fork=bool(source and own and source != own))

    def upsert(self, target: Target, body: str, marker: str, timeout: float) -> CommentOutcome:
        headers = {"PRIVATE-TOKEN": target.token, "Accept": "application/json", "User-Agent": "pairbench"}
        notes = f"{target.api_url}/projects/{quote(target.project, safe='')}/merge_requests/{target.number}/notes"
        me = call("GET", f"{target.api_url}/user", headers, timeout=timeout)
        if not me.ok:
            return _failed(target, "reading the token's user", me)
        user_id = me.data.get("id") if isinstance(me.data, dict) else None
        if not isinstance(user_id, int):
            return CommentOutcome(False, "failed", f"no note on {target.describe()}: GET /user named no user, "
                                                   "so pairbench cannot tell its own note from a quote of it")
        found: dict[str, Any] | None = None
        page: str | None = "1"
        for _ in range(MAX_PAGES):
            if not page:
                break
            resp = call("GET", f"{notes}?per_page=100&page={page}", headers, timeout=timeout)
            if not resp.ok:
                return _failed(target, "listing its notes", resp)
            found = next((n for n in resp.data or [] if isinstance(n, dict) and not n.get("system")
                          and marker in str(n.get("body", "")) and (n.get("author") or {}).get("id") == user_id), None)
            if found is not None:
                break
            page = resp.headers.get("x-next-page", "").strip() or None
        if found is not None:
            sent = call("PUT", f"{notes}/{found['id']}", headers, {"body": body}, timeout)
            action = "updated"
        else:
            sent = call("POST", notes, headers, {"body": body}, timeout)
            action = "created"
        if not sent.ok:
            return _failed(target, "updating its note" if action == "updated" else "creating a note", sent)
        return CommentOutcome(True, action, f"{action} the note on {target.describe()}")


def _failed(target: Target, doing: str, resp: Response) -> CommentOutcome:
    where = f"no note on {target.describe()}"
    if resp.status == 429:
        after = resp.headers.get("retry-after", "")
        return CommentOutcome(False, "failed", f"{where}: the GitLab API rate limit is reached"
                                               + (f" (retry after {after} s)" if after else "") + f" ({doing})")
    if resp.status in (401, 403):
        return CommentOutcome(False, "failed", f"{where}: GitLab refused ({doing}, {resp.status} {resp.error}): the "
                                               "token needs the api scope and at least the Reporter role; "
                                               "the job log has the results")
    status = f"HTTP {resp.status}" if resp.status else "no answer"
    return CommentOutcome(False, "failed", f"{where}: {doing} failed ({status}: {resp.error})")


GITLAB = GitLab()
