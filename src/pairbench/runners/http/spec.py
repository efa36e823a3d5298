"""What a load is: the requests to send (RequestSpec), the shape of the load (LoadSpec), and what
it measured (LoadResult). Shared by the built-in engine and by wrk.py, which fills the same result
from wrk's own figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence
from urllib.parse import urlsplit

from pairbench.runners.http.histogram import Histogram

__all__ = ["RequestSpec", "LoadSpec", "LoadResult", "load_spec"]

_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class RequestSpec:
    """One request to send: method, absolute URL, headers, body; `weight` in a mix."""

    url: str
    method: str = "GET"
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    weight: float = 1.0

    def host_port(self) -> tuple[str, int]:
        """Host and port of the URL (80 for http://, 443 for https:// when the URL gives none)."""
        parts = urlsplit(self.url)
        if parts.scheme not in _DEFAULT_PORTS:
            raise ValueError(f"URL {self.url!r}: only http:// and https:// are supported")
        return parts.hostname or "127.0.0.1", parts.port or _DEFAULT_PORTS[parts.scheme]

    def encode(self, keepalive: bool) -> bytes:
        """The request as sent on the wire."""
        parts = urlsplit(self.url)
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        host, port = self.host_port()
        names = {k.lower() for k, _ in self.headers}
        lines = [f"{self.method} {target} HTTP/1.1"]
        if "host" not in names:
            lines.append(f"Host: {host}" if port == _DEFAULT_PORTS[parts.scheme] else f"Host: {host}:{port}")
        if "user-agent" not in names:
            lines.append("User-Agent: pairbench")
        if "accept" not in names:
            lines.append("Accept: */*")
        lines += [f"{k}: {v}" for k, v in self.headers]
        if self.body and "content-length" not in names:
            lines.append(f"Content-Length: {len(self.body)}")
        if not keepalive:
            lines.append("Connection: close")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + self.body


@dataclass(frozen=True, slots=True)
class LoadSpec:
    """What load to apply. Give `count` or `duration` (or both: whichever ends first)."""

    requests: tuple[RequestSpec, ...]
    connections: int = 1
    count: int | None = None
    duration: float | None = None
    rate: float | None = None
    """Open loop: requests per second in all; None for a closed loop."""
    keepalive: bool = True
    timeout: float = 30.0
    """Per-request timeout in seconds."""
    max_time: float = 3600.0
    """Hard limit for the whole load, whatever else is set."""
    insecure: bool = False
    """https: accept any certificate (default: verify it and the host name)."""
    http2: bool = False
    """HTTP/2: h2c with prior knowledge for http://, ALPN h2 for https:// (http2.py)."""
    streams: int = 1
    """HTTP/2: requests in flight per connection (h2load's -m)."""

    def __post_init__(self) -> None:
        if not self.requests:
            raise ValueError("a load needs at least one request")
        if self.connections < 1:
            raise ValueError(f"connections must be at least 1, not {self.connections}")
        if self.count is None and self.duration is None and self.rate is None:
            raise ValueError("a load needs a request count or a duration")
        if self.count is not None and self.count < 1:
            raise ValueError(f"request count must be at least 1, not {self.count}")
        if self.duration is not None and self.duration <= 0:
            raise ValueError(f"duration must be positive, not {self.duration}")
        if self.rate is not None and self.rate <= 0:
            raise ValueError(f"rate must be positive, not {self.rate}")
        if self.streams < 1:
            raise ValueError(f"streams must be at least 1, not {self.streams}")
        if self.timeout <= 0:
            raise ValueError(f"timeout must be positive, not {self.timeout}")
        if len({r.host_port() for r in self.requests}) != 1:
            raise ValueError("all requests of one load must go to the same host and port")


@dataclass(slots=True)
class LoadResult:
    """What one load measured."""

    histogram: Histogram
    """Latency of every completed response (any status), from send (or intended send) time."""
    elapsed_s: float
    completed: int
    """Responses received in full (any status)."""
    status_counts: dict[int, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    """Failed requests by kind: connect, reset, timeout, protocol."""
    bytes_received: int = 0
    """Bytes read from the sockets, headers included (ab's "Total transferred")."""
    client_cpu_s: float = 0.0
    """CPU time of this process during the load (user + system)."""
    aborted: str = ""
    """Why the load stopped early (target unreachable, time limit), or ""."""
    fixed_percentiles: dict[float, float] | None = None
    """Percentiles (s) as an external engine reported them, when there is no full histogram."""
    unsent: int | None = None
    """Open loop: requests of the schedule not sent before the duration ended, because the server
    (or the client) could not keep up; None for a closed loop."""
    status_errors: int | None = None
    """Responses of status 400 or more, from an engine that counts them without saying their
    statuses (wrk); `status_counts` is then empty: no status class is known. None otherwise."""
    server_closes: int = 0
    """Complete responses after which the server ended the connection (`Connection: close`,
    HTTP/1.0 without keep-alive, a body ended by closing, or a close without a word, after which
    the request sent on it went again on a new connection); each next request reconnected."""

    def percentiles_s(self, qs: Sequence[float]) -> list[float]:
        """Latency percentiles in seconds (nearest value an external engine reported if no histogram)."""
        if self.fixed_percentiles is None:
            return self.histogram.percentiles_s(qs)
        known = sorted(self.fixed_percentiles)
        return [self.fixed_percentiles[min(known, key=lambda k: (abs(k - q), k))] for q in qs]

    @property
    def failed(self) -> int:
        return sum(self.errors.values())

    @property
    def non_2xx(self) -> int:
        if self.status_errors is not None:
            return self.status_errors
        return sum(c for s, c in self.status_counts.items() if not 200 <= s < 300)

    @property
    def req_per_s(self) -> float:
        return self.completed / self.elapsed_s if self.elapsed_s > 0 else 0.0


def load_spec(opts: Mapping[str, Any], requests: tuple[RequestSpec, ...]) -> LoadSpec:
    """The measured load of a round, from a benchmark's options (a profiled load is the same)."""
    return LoadSpec(
        requests=requests, connections=int(opts["connections"]),
        count=int(opts["requests"]) if opts["requests"] else None,
        duration=float(opts["duration"]) if opts["duration"] else None,
        rate=float(opts["rate"]) if opts["rate"] else None,
        keepalive=bool(opts["keepalive"]), timeout=float(opts["timeout"]), insecure=bool(opts["insecure"]),
        http2=bool(opts["http2"]), streams=int(opts["streams"]),
    )
