"""Typed options of kind "http", parsed once from a mapping (a suite table, or flags)."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import quote

from pairbench.runners.option_fields import (
    Where,
    check_keys,
    read_bool,
    read_choice,
    read_int,
    read_number,
    read_string,
    shown,
)

__all__ = ["HttpOptions", "parse_http_options", "HTTP_ALIASES", "HTTP_ENGINES"]


@dataclass(frozen=True, slots=True)
class HttpOptions:
    """A server per variant and round, loaded by a client (runners/http/runner.py)."""

    url: str = "/"
    """Path loaded on the started server, or the full URL of a running one."""
    mix: tuple[Mapping[str, Any], ...] | None = None
    """Several URLs loaded as one weighted mix: ({"url": ..., "weight": ...}, ...)."""
    method: str = "GET"
    headers: tuple[tuple[str, str], ...] = ()
    body: str = ""
    connections: int = 1
    requests: int | None = None
    """Requests per round (closed loop, like ab -n)."""
    duration: float | None = None
    """Seconds of load per round."""
    rate: float | None = None
    """Open loop: requests per second on a fixed schedule."""
    keepalive: bool = True
    timeout: float = 30.0
    """Seconds per request."""
    warmup_time: float = 0.0
    warmup_requests: int = 0
    server: str = ""
    """Server command template; empty: the variant's own command."""
    port: int | None = None
    ready_path: str | None = None
    ready_timeout: float = 30.0
    grace: float = 5.0
    """Seconds from SIGTERM to SIGKILL."""
    engine: str = "builtin"
    error_rate_warning: float = 0.01
    """Fraction of failed or non-2xx requests in a round that draws a warning."""
    log_dir: str | None = None
    insecure: bool = False
    """https: accept a certificate that does not verify (self-signed); the default checks it."""
    threads: int | None = None
    """wrk's threads (engine "wrk"); None: as many as CPUs, at most the connections."""
    http2: bool = False
    """HTTP/2 (built-in engine): h2c with prior knowledge for http://, ALPN h2 for https://."""
    streams: int = 1
    """HTTP/2: requests in flight per connection (h2load's -m)."""


HTTP_ALIASES: Mapping[str, str] = {"warmup_duration": "warmup_time", "concurrency": "connections", "n": "requests"}
"""Other spellings accepted in suite files."""
HTTP_ENGINES: tuple[str, ...] = ("builtin", "wrk")
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
"""A method or a header name as RFC 9110 §5.6.2 spells them (a `token`): sent as given, anything
else breaks the request line or the header block, and the server answers 400 to every request."""


def parse_http_options(m: Mapping[str, Any], where: Where) -> HttpOptions:
    """Typed http options (aliases accepted); the load needs requests, a duration or a rate."""
    given = {HTTP_ALIASES.get(k, k): v for k, v in m.items()}
    check_keys(given, tuple(f.name for f in dataclasses.fields(HttpOptions)), where, "http", tuple(HTTP_ALIASES))
    d = HttpOptions()
    opts = HttpOptions(
        url=read_string(given, "url", where, d.url, empty=False) or d.url,
        mix=_mix(given, where),
        method=(read_string(given, "method", where, d.method, empty=False) or d.method).upper(),
        headers=_headers(given, where),
        body=read_string(given, "body", where, "") or "",
        connections=read_int(given, "connections", where, 1, 1) or 1,
        requests=read_int(given, "requests", where, None, 1),
        duration=read_number(given, "duration", where, None, positive=True),
        rate=read_number(given, "rate", where, None, positive=True),
        keepalive=read_bool(given, "keepalive", where, True),
        timeout=read_number(given, "timeout", where, d.timeout, positive=True) or d.timeout,
        warmup_time=read_number(given, "warmup_time", where, 0.0) or 0.0,
        warmup_requests=read_int(given, "warmup_requests", where, 0, 0) or 0,
        server=read_string(given, "server", where, "") or "",
        port=read_int(given, "port", where, None, 1, 65535),
        ready_path=read_string(given, "ready_path", where, None),
        ready_timeout=read_number(given, "ready_timeout", where, d.ready_timeout, positive=True) or d.ready_timeout,
        grace=read_number(given, "grace", where, d.grace) or 0.0,
        engine=read_choice(given, "engine", where, HTTP_ENGINES),
        error_rate_warning=read_number(given, "error_rate_warning", where, d.error_rate_warning, maximum=1.0) or 0.0,
        log_dir=read_string(given, "log_dir", where, None, empty=False),
        insecure=read_bool(given, "insecure", where, False),
        threads=read_int(given, "threads", where, None, 1),
        http2=read_bool(given, "http2", where, False),
        streams=read_int(given, "streams", where, 1, 1) or 1,
    )
    for url in [opts.url, *(str(e["url"]) for e in opts.mix or ())]:
        if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
            raise where.fail("url", f"url {url!r} holds a space or a control character: write it %20 (or "
                                    "its %XX), as the request line cannot carry it")
        if not url.isascii():
            encoded = quote(url, safe="".join(chr(c) for c in range(33, 127)))
            raise where.fail("url", f"url {url!r} holds a character outside ASCII: write it percent-encoded, "
                                    f"as {encoded}")
    if not _TOKEN.fullmatch(opts.method):
        raise where.fail("method", f"method {opts.method!r} is not an HTTP method: one word of letters, digits "
                                   "or !#$%&'*+-.^_`|~ (GET, POST, PURGE)")
    for name, value in opts.headers:
        if not _TOKEN.fullmatch(name):
            raise where.fail("headers", f"headers {name!r} is not a header name: one word of letters, digits "
                                        "or !#$%&'*+-.^_`|~ (X-Request-Id)")
        if any(ord(c) > 255 for c in value):
            raise where.fail("headers", f"headers {name!r}: its value holds a character outside Latin-1, which "
                                        "a header cannot carry: encode it (percent-encoding, or RFC 8187)")
        if any(c in value for c in "\r\n\0"):
            raise where.fail("headers", f"headers {name!r}: its value holds a line break or NUL, which would "
                                        "end the header there (one header per -H)")
    if opts.requests is None and opts.duration is None and opts.rate is None:
        raise where.fail(None, "the load needs requests (-n), a duration or a rate; give one of them")
    if opts.rate is not None and opts.duration is None and opts.requests is None:
        raise where.fail("rate", "rate needs a duration (or requests) to know how long to load")
    return opts


def _mix(m: Mapping[str, Any], where: Where) -> tuple[Mapping[str, Any], ...] | None:
    value = m.get("mix")
    if value is None:
        return None
    if not isinstance(value, list) or not value:
        raise where.fail("mix", f"mix must be a non-empty list of {{ url = ..., weight = ... }}, not {shown(value)}")
    out = []
    for entry in value:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("url"), str) or set(entry) - {"url", "weight"}:
            raise where.fail("mix", f"each mix entry is {{ url = \"/path\", weight = 1 }}, not {shown(entry)}")
        weight = entry.get("weight", 1.0)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not weight > 0:
            raise where.fail("mix", f"mix weight for {entry['url']!r} must be a positive number, not {shown(weight)}")
        out.append({"url": entry["url"], "weight": float(weight)})
    return tuple(out)


def _headers(m: Mapping[str, Any], where: Where) -> tuple[tuple[str, str], ...]:
    value = m.get("headers") or []
    items = list(value.items()) if isinstance(value, Mapping) else value
    if not isinstance(items, list):
        raise where.fail("headers", f"headers must be a table or a list of [name, value], not {shown(value)}")
    out = []
    for item in items:
        if (not isinstance(item, (list, tuple)) or len(item) != 2
                or not all(isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in item)):
            raise where.fail("headers", f"a header is [name, value], not {shown(item)}")
        out.append((str(item[0]), str(item[1])))
    return tuple(out)
