"""A small GitHub and GitLab API on 127.0.0.1 (port 0), in this process: issue comments and
merge request notes (list with pagination, create, update) and the token's own account (`GET /user`),
every request recorded.

Enough of the documented REST API for `pairbench ci` to hold its conversation against it: GitHub
pages with a `Link: <…>; rel="next"` header, GitLab with `X-Next-Page`. Every comment has its author
as each API gives it (GitHub `user.login`, GitLab `author.id`); the ones created here are the
token's account's. `refuse` makes every call answer 403 (a fork's read-only token); `rate_limited`
answers 403 with the rate limit headers; `installation_token` makes GitHub's `GET /user` answer 403,
as it does to a GitHub App installation token (Actions' GITHUB_TOKEN), whose comments are
github-actions[bot]'s.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class ForgeState:
    comments: list[dict[str, Any]] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    refuse: bool = False
    rate_limited: bool = False
    fail_writes: int = 0
    """An HTTP status (500...) every POST, PATCH and PUT answers with, when set."""
    page_size: int = 2
    next_id: int = 100
    login: str = "pairbench-bot"
    """The account of the token (GitHub login, GitLab username)."""
    user_id: int = 77
    installation_token: bool = False
    """GitHub: the token is a GitHub App installation token (Actions' GITHUB_TOKEN)."""

    def account(self) -> dict[str, Any]:
        """The token's account as the comments it writes carry it."""
        if self.installation_token:
            return by("github-actions[bot]", 41898282, "Bot")
        return by(self.login, self.user_id)


def by(login: str, user_id: int, kind: str = "User") -> dict[str, Any]:
    """A comment's author fields, as GitHub (`user`) and GitLab (`author`) give them."""
    return {"user": {"login": login, "id": user_id, "type": kind}, "author": {"id": user_id, "username": login}}


class _Handler(BaseHTTPRequestHandler):
    state: ForgeState
    base: str

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _reply(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(raw)

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        st = self.state
        st.requests.append(Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        if st.rate_limited:
            return self._reply(403, {"message": "API rate limit exceeded"},
                               {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1893456000"})
        if st.refuse:
            return self._reply(403, {"message": "Resource not accessible by integration"})
        if st.fail_writes and self.command != "GET":
            return self._reply(st.fail_writes, {"message": "Server Error"})
        path, _, query = self.path.partition("?")
        params = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
        if self.command == "GET" and path in ("/user", "/api/v4/user"):
            if st.installation_token and path == "/user":
                return self._reply(403, {"message": "Resource not accessible by integration"})
            return self._reply(200, {"login": st.login, "username": st.login, "id": st.user_id})
        gh_list = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/(\d+)/comments", path)
        gh_one = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/comments/(\d+)", path)
        gl_list = re.fullmatch(r"/api/v4/projects/[^/]+/merge_requests/(\d+)/notes", path)
        gl_one = re.fullmatch(r"/api/v4/projects/[^/]+/merge_requests/(\d+)/notes/(\d+)", path)
        if self.command == "GET" and (gh_list or gl_list):
            page = int(params.get("page", "1"))
            size = st.page_size
            items = st.comments[(page - 1) * size: page * size]
            more = page * size < len(st.comments)
            headers = {}
            if more and gh_list:
                headers["Link"] = f'<{self.base}{path}?per_page=100&page={page + 1}>; rel="next"'
            if gl_list:
                headers["X-Next-Page"] = str(page + 1) if more else ""
            return self._reply(200, items, headers)
        if self.command == "POST" and (gh_list or gl_list):
            st.next_id += 1
            item = {"id": st.next_id, "body": body["body"], "html_url": f"{self.base}/c/{st.next_id}", **st.account()}
            st.comments.append(item)
            return self._reply(201, item)
        if self.command in ("PATCH", "PUT") and (gh_one or gl_one):
            match = gh_one or gl_one
            assert match is not None
            wanted = int(match.group(match.lastindex or 1))
            for item in st.comments:
                if item["id"] == wanted:
                    item["body"] = body["body"]
                    return self._reply(200, item)
            return self._reply(404, {"message": "Not Found"})
        return self._reply(404, {"message": "Not Found"})

    do_GET = do_POST = do_PATCH = do_PUT = _handle


class ForgeServer:
    """Start with `with ForgeServer() as srv:`; `srv.url` is the API root, `srv.state` what it saw."""

    def __init__(self) -> None:
        self.state = ForgeState()
        self.state.comments = [{"id": i, "body": f"someone else's comment {i}", **by(f"user{i}", i)} for i in range(1, 6)]

    def __enter__(self) -> ForgeServer:
        handler = type("H", (_Handler,), {"state": self.state})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        handler.base = self.url
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
