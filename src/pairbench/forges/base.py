"""What every forge shares: the request a comment goes to, the outcome, and one JSON call over urllib.

No new dependency: the REST calls are a handful, and urllib is what every Python has. The token
travels only in a request header; every message that leaves this layer passes through `redact`.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol

__all__ = ["Target", "CommentOutcome", "Response", "Forge", "call", "redact", "MAX_PAGES"]

MAX_PAGES = 50
"""Pages of comments read at most (100 each): a request with more than 5000 comments gets a new one."""


@dataclass(frozen=True, slots=True)
class Target:
    """A pull or merge request to comment on, as the CI environment describes it."""

    forge: str
    """The key of the forge in `forges.FORGES` (github, gitlab)."""
    api_url: str
    """The REST API root, without a trailing slash (https://api.github.com, …/api/v4)."""
    project: str
    """owner/repo on GitHub, the project id (or url-encoded path) on GitLab."""
    number: int
    """The pull request number, or the merge request's iid."""
    token: str = field(default="", repr=False)
    """The write token; never printed (left out of repr)."""
    token_hint: str = ""
    """What to set when the token is missing."""
    base_ref: str = ""
    """The branch the request merges into (the default base of the comparison)."""
    fork: bool = False
    """The pull request comes from a fork (its token is read-only on GitHub)."""

    def describe(self) -> str:
        word = "merge request !" if self.forge == "gitlab" else "pull request #"
        return f"{word}{self.number} of {self.project}"


@dataclass(frozen=True, slots=True)
class CommentOutcome:
    """What became of the comment: created, updated, skipped or failed, and why."""

    ok: bool
    action: str
    """created, updated, skipped (nothing to post to, or no token) or failed."""
    message: str
    """One line for the log (never holds the token)."""
    url: str = ""
    """The comment's web address, when the forge returned one."""


@dataclass(frozen=True, slots=True)
class Response:
    """One HTTP exchange: status (0 when no answer came), lower-cased headers, decoded JSON."""

    status: int
    headers: Mapping[str, str]
    data: Any
    error: str = ""
    """Why the call failed, in words (network error, the API's own message)."""

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class Forge(Protocol):
    """A forge finds its request in the CI environment and keeps one comment on it."""

    def detect(self, env: Mapping[str, str]) -> Target | None: ...

    def upsert(self, target: Target, body: str, marker: str, timeout: float) -> CommentOutcome: ...


def redact(text: str, secret: str) -> str:
    """`text` with `secret` replaced by ***, so that no message can carry the token."""
    return text.replace(secret, "***") if secret else text


def call(method: str, url: str, headers: Mapping[str, str], payload: Any = None, timeout: float = 30.0) -> Response:
    """One JSON request; HTTP errors and network failures come back as a Response, not an exception."""
    data = json.dumps(payload).encode() if payload is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={**headers, **({"Content-Type": "application/json"} if data else {})})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - the API root comes from CI
            raw = resp.read()
            return Response(resp.status, {k.lower(): v for k, v in resp.headers.items()}, _decode(raw))
    except urllib.error.HTTPError as exc:
        raw = exc.read() if exc.fp is not None else b""
        decoded = _decode(raw)
        message = decoded.get("message") if isinstance(decoded, dict) else None
        return Response(exc.code, {k.lower(): v for k, v in (exc.headers or {}).items()}, decoded,
                        error=str(message or exc.reason or f"HTTP {exc.code}")[:300])
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return Response(0, {}, None, error=f"cannot reach {url.split('?')[0]}: {reason}")


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None
