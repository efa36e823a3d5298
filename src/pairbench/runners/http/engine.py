"""The built-in HTTP/1.1 load engine: raw asyncio protocols, uvloop when installed.

Why raw protocols: the client's CPU per request decides how hard one core can push a server. A
client library (httpx, aiohttp) spends tens of microseconds per request in Python; here a request
is one pre-encoded `bytes` written to the transport and a response is parsed with a few `find`
calls, so the engine keeps up with `wrk` on loopback (see docs/http.md). A single kept-alive
connection in a closed loop needs no event loop at all and runs on a blocking socket
(blocking_loop.py): two system calls per request.

Two modes:
- **closed loop** (ab, siege, wrk): `connections` clients each send a request, wait for the
  answer, send the next; for `count` requests in all or for `duration` seconds;
- **open loop** (wrk2): `rate` requests/s on a fixed schedule spread over the connections; a
  request's latency runs from its *intended* send time, so a stalled server is charged for the
  requests it delayed (coordinated omission corrected).

Every loop is bounded: by `count` or `duration`, by a per-request `timeout`, by `max_time` for
the whole load, and by giving up when the target refuses connections again and again.
"""

from __future__ import annotations

import asyncio
import resource
import signal
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence
from urllib.parse import urlsplit

from pairbench.runners.http.blocking_loop import BlockingLoop
from pairbench.runners.http.histogram import SUB_BITS, Histogram

__all__ = ["RequestSpec", "LoadSpec", "LoadResult", "run_load", "new_event_loop", "engine_loop_name"]

_now = time.perf_counter_ns
_M = 1 << SUB_BITS
_TWO_M = 2 * _M
_SUB1 = SUB_BITS + 1

# Consecutive failed connects (no response in between) after which the target is declared down.
_MAX_CONNECT_FAILURES = 50
_CONNECT_BACKOFF_S = 0.01
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
        """Host and port of the URL (https: for `--engine wrk`; the built-in engine speaks plain http)."""
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
    server_closes: int = 0
    """Complete responses after which the server ended the connection (`Connection: close`,
    HTTP/1.0 without keep-alive, or a body ended by closing); each next request reconnected."""

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
        return sum(c for s, c in self.status_counts.items() if not 200 <= s < 300)

    @property
    def req_per_s(self) -> float:
        return self.completed / self.elapsed_s if self.elapsed_s > 0 else 0.0


def new_event_loop() -> asyncio.AbstractEventLoop:
    """A uvloop loop when uvloop is installed (several times less CPU per request), else asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    return loop


def engine_loop_name() -> str:
    """The event loop of loads with several connections (one connection needs none)."""
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


def _weighted_sequence(requests: Sequence[RequestSpec], keepalive: bool) -> list[bytes]:
    """The order requests are sent in a mix: smooth weighted round-robin (as nginx balances), so
    that each URL's share is met over any short stretch, deterministically."""
    encoded = [r.encode(keepalive) for r in requests]
    if len(encoded) == 1:
        return encoded
    weights = [max(1, round(r.weight * 100 / max(q.weight for q in requests))) for r in requests]
    total = sum(weights)
    current = [0] * len(weights)
    seq: list[bytes] = []
    for _ in range(total):
        for i, w in enumerate(weights):
            current[i] += w
        best = max(range(len(weights)), key=lambda i: current[i])
        current[best] -= total
        seq.append(encoded[best])
    return seq


class _Loop(Protocol):
    """What the engine needs of an event loop (asyncio through _AsyncioLoop, or BlockingLoop)."""

    def create_future(self) -> Any: ...
    def call_later(self, delay: float, fn: Callable[..., None], *args: Any) -> None: ...
    def connect(self, host: str, port: int, protocol: _Conn, timeout: float,
                on_error: Callable[[OSError], None]) -> None: ...


def _closes(buf: bytes, end: int) -> bool:
    """Whether the server ends the connection after this response (RFC 9112 §9.3): a `Connection`
    header with `close`, or HTTP/1.0 without `keep-alive`. `end` is where the head ends."""
    http10 = buf.startswith(b"HTTP/1.0")
    if not http10 and buf.find(b"onnection", 0, end) < 0 and buf.find(b"ONNECTION", 0, end) < 0:
        return False  # the usual HTTP/1.1 response: no Connection header, kept alive
    head = buf[:end].lower()
    tokens: set[bytes] = set()
    at = head.find(b"\r\nconnection:")
    while at >= 0:
        eol = head.find(b"\r\n", at + 13)
        tokens.update(t.strip() for t in head[at + 13 : eol if eol >= 0 else end].split(b","))
        at = head.find(b"\r\nconnection:", at + 13)
    if b"close" in tokens:
        return True
    return http10 and b"keep-alive" not in tokens


# Parser states of a connection.
_IDLE, _HEAD, _BODY, _CHUNKED, _UNTIL_CLOSE, _DEAD = range(6)


class _Load:
    """Shared state of one load: the schedule, the counters and the connections."""

    __slots__ = ("spec", "loop", "host", "port", "sequence", "seq_i", "hist", "counts", "total_ns",
                 "min_ns", "max_ns", "n200", "fast", "count_limit", "single", "status_counts", "errors", "bytes",
                 "completed", "server_closes", "started", "busy", "connect_failures", "conns", "done", "aborted", "stopping",
                 "interrupted", "t0", "t_end", "deadline_ns", "end_ns", "interval_ns", "progress")

    def __init__(self, spec: LoadSpec, loop: _Loop, progress: Callable[[float], None] | None):
        self.spec = spec
        self.loop = loop
        self.host, self.port = spec.requests[0].host_port()
        self.sequence = _weighted_sequence(spec.requests, spec.keepalive)
        self.seq_i = 0
        self.hist = Histogram()
        # Per-request figures live here while the load runs (fewer attribute hops than the
        # Histogram); `finish_histogram` moves them over.
        self.counts = self.hist.counts
        self.total_ns = 0
        self.min_ns = 1 << 62
        self.max_ns = 0
        self.n200 = 0
        self.fast = spec.rate is None and spec.keepalive
        self.count_limit = spec.count if spec.count is not None else 1 << 62
        self.single = self.sequence[0] if len(self.sequence) == 1 else None
        self.status_counts: dict[int, int] = {}
        self.errors: dict[str, int] = {}
        self.bytes = 0
        self.completed = 0
        self.server_closes = 0
        self.started = 0  # requests begun (count mode budget)
        self.busy = 0
        self.connect_failures = 0
        self.conns: set[_Conn] = set()
        self.done = loop.create_future()
        self.aborted = ""
        self.stopping = False
        self.interrupted = False
        self.t0 = 0
        self.t_end = 0
        self.deadline_ns = 0
        self.end_ns = 1 << 62
        """`deadline_ns`, or far away when there is none (one comparison on the hot path)."""
        self.interval_ns = 0
        self.progress = progress

    def finish_histogram(self) -> None:
        hist = self.hist
        hist.count = self.completed
        hist.total_ns = self.total_ns
        hist.min_ns = self.min_ns if self.completed else 0
        hist.max_ns = self.max_ns
        if self.n200:
            self.status_counts[200] = self.status_counts.get(200, 0) + self.n200
            self.n200 = 0

    # --- budget -----------------------------------------------------------------------------
    def may_start(self, at_ns: int) -> bool:
        spec = self.spec
        if self.stopping:
            return False
        if spec.count is not None and self.started >= spec.count:
            return False
        if self.deadline_ns and at_ns >= self.deadline_ns:
            return False
        return True

    def check_done(self) -> None:
        if self.busy == 0 and not self.done.done():
            spec = self.spec
            exhausted = (spec.count is not None and self.started >= spec.count) or (
                self.deadline_ns and _now() >= self.deadline_ns
            )
            if exhausted or self.stopping:
                self.t_end = self.t_end or _now()
                self.done.set_result(None)

    def next_request(self) -> bytes:
        seq = self.sequence
        req = seq[self.seq_i % len(seq)]
        self.seq_i += 1
        return req

    def fail(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    # --- connections ------------------------------------------------------------------------
    def open(self, conn: _Conn, start_ns: int) -> None:
        """Begin a request on a new connection (connect time counts in its latency, as in ab)."""
        conn.pending = True
        conn.start = start_ns
        conn.request = self.next_request()
        self.started += 1
        self.busy += 1
        self.loop.connect(self.host, self.port, conn, self.spec.timeout, lambda exc: self.connect_failed(conn, exc))

    def connect_failed(self, conn: _Conn, exc: OSError) -> None:
        conn.pending = False
        conn.state = _DEAD
        self.busy -= 1
        self.fail("connect")
        self.connect_failures += 1
        if self.connect_failures >= _MAX_CONNECT_FAILURES and self.completed == 0:
            self.aborted = f"cannot connect to {self.host}:{self.port}: {_reason(exc)}"
            self.stopping = True
            self.t_end = _now()
            self.check_done()
            return
        self.loop.call_later(_CONNECT_BACKOFF_S, self._retry, conn)

    def _retry(self, conn: _Conn) -> None:
        self.after(conn, _now())

    def after(self, conn: _Conn, now: int) -> None:
        """A connection finished a request (or failed): start its next one if the budget allows."""
        spec = self.spec
        if spec.rate is None:
            if self.may_start(now):
                if conn.state == _DEAD:
                    self.conns.discard(conn)
                    self.open(_Conn(self), now)
                else:
                    conn.send(now)
                    return  # busy again: not done
            self.check_done()
            return
        # Open loop: the connection's next slot on the fixed schedule.
        intended = conn.next_slot
        if not self.may_start(intended):
            self.check_done()
            return
        conn.next_slot += self.interval_ns
        delay = (intended - now) / 1e9
        if delay > 0:
            conn.waiting = True
            self.loop.call_later(delay, self._send_scheduled, conn, intended)
        else:
            self._send_scheduled(conn, intended)

    def _send_scheduled(self, conn: _Conn, intended: int) -> None:
        conn.waiting = False
        if self.stopping or self.done.done():
            return
        if conn.state == _DEAD:
            self.conns.discard(conn)
            fresh = _Conn(self)
            fresh.next_slot = conn.next_slot
            self.open(fresh, intended)
        else:
            conn.send(intended)

    def interrupt(self) -> None:
        """SIGINT during the load: stop at once, drop what is in flight."""
        self.interrupted = True
        self.stopping = True
        for conn in list(self.conns):
            if conn.transport is not None:
                conn.transport.abort()
        if not self.done.done():
            self.t_end = _now()
            self.done.set_result(None)

    def watchdog(self) -> None:
        """Abort requests older than the timeout; stop at the hard time limit."""
        if self.done.done():
            return
        now = _now()
        limit = int(self.spec.timeout * 1e9)
        for conn in list(self.conns):
            if conn.state not in (_IDLE, _DEAD) and now - conn.sent_at > limit and conn.transport is not None:
                conn.timed_out = True
                conn.transport.abort()
        if (now - self.t0) / 1e9 > self.spec.max_time and not self.stopping:
            self.aborted = f"stopped at the time limit of {self.spec.max_time:g} s"
            self.stopping = True
            for conn in list(self.conns):
                if conn.transport is not None and conn.state not in (_IDLE, _DEAD):
                    conn.timed_out = True
                    conn.transport.abort()
        self.check_done()
        if not self.done.done():
            self.loop.call_later(min(0.1, self.spec.timeout / 4), self.watchdog)


class _Conn(asyncio.Protocol):
    """One client connection: writes a request, parses the response, hands over to the load."""

    # Slots: attribute access on the per-request path is measurably cheaper than a __dict__.
    __slots__ = ("load", "transport", "state", "pending", "waiting", "request", "start", "sent_at",
                 "next_slot", "buf", "left", "status", "close_after", "timed_out", "shape_len",
                 "shape_at", "shape_tail")

    def __init__(self, load: _Load) -> None:
        self.load = load
        self.transport: asyncio.Transport | None = None
        self.state = _IDLE
        self.pending = False
        self.waiting = False
        self.request = b""
        self.start = 0
        self.sent_at = 0
        self.next_slot = 0
        self.buf = b""
        self.left = 0
        self.status = 0
        self.close_after = False
        self.timed_out = False
        # The framing of the last plain response (see `data_received`): its length, where its
        # Content-Length header starts, and every byte from there to its end.
        self.shape_len = -1
        self.shape_at = 0
        self.shape_tail = b""
        load.conns.add(self)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.load.connect_failures = 0
        self.pending = False
        self.state = _HEAD
        self.buf = b""
        self.sent_at = _now()
        transport.write(self.request)  # type: ignore[attr-defined]

    def send(self, start_ns: int) -> None:
        load = self.load
        self.request = load.next_request()
        load.started += 1
        load.busy += 1
        self.start = start_ns
        self.state = _HEAD
        self.buf = b""
        self.sent_at = _now()
        self.transport.write(self.request)  # type: ignore[union-attr]

    def data_received(self, data: bytes) -> None:
        load = self.load
        n = len(data)
        load.bytes += n
        state = self.state
        if state == _HEAD:
            # Fast path: a whole response framed exactly as the previous one — same length, same
            # bytes from its Content-Length header to the end (the body included) — whose part
            # before that header holds no end of head and no "close" (of `Connection: close`). Only the
            # status line and headers such as Date differ, so the framing is known without
            # parsing; the first response of a connection takes the full path below.
            if n == self.shape_len and not self.buf:
                at = self.shape_at
                if (data.startswith(self.shape_tail, at) and data.startswith(b"200", 9)
                        and data.find(b"\r\n\r\n", 0, at) < 0 and data.find(b"lose", 0, at) < 0):
                    self.status = 200
                    self._complete()
                    return
            buf = self.buf + data if self.buf else data
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                if len(buf) > 1 << 20:
                    self._broken("protocol")
                    return
                self.buf = buf
                return
            if buf.startswith(b"200", 9):
                self.status = status = 200
            else:
                try:
                    self.status = status = int(buf[9:12])
                except ValueError:
                    self._broken("protocol")
                    return
            self.close_after = _closes(buf, end)
            # Fast path: the usual spelling of the header, searched in place; lower-cased copy otherwise.
            i = buf.find(b"\r\nContent-Length:", 0, end)
            if i >= 0:
                head = buf
            else:
                head = buf[:end].lower()
                i = head.find(b"\r\ncontent-length:")
            if i >= 0:
                j = head.find(b"\r\n", i + 17)
                length = int(head[i + 17 : j if 0 <= j <= end else end])
                have = len(buf) - end - 4
                if have >= length:
                    if (have == length and buf is data and head is buf and status == 200
                            and not self.close_after):
                        self.shape_len, self.shape_at, self.shape_tail = n, i, data[i:]
                    self._complete()
                    return
                if self._bodiless(status):
                    self._complete()  # no body, whatever Content-Length says
                    return
                self.left = length - have
                self.state = _BODY
                return
            head = buf[:end].lower()
            rest = buf[end + 4 :]
            if self._bodiless(status):
                self._complete()
                return
            if b"\r\ntransfer-encoding:" in head and b"chunked" in head:
                self.state = _CHUNKED
                self.buf = rest
                self._chunks()
                return
            self.state = _UNTIL_CLOSE
            self.close_after = True
            return
        if state == _BODY:
            self.left -= len(data)
            if self.left <= 0:
                self._complete()
            return
        if state == _CHUNKED:
            self.buf += data
            self._chunks()
            return
        # _UNTIL_CLOSE: count the bytes, finish at EOF.

    def _bodiless(self, status: int) -> bool:
        """A response that has no body whatever its headers say (RFC 9112 §6.3)."""
        return status < 200 or status in (204, 304) or self.request.startswith(b"HEAD ")

    def _chunks(self) -> None:
        buf = self.buf
        pos = 0
        while True:
            eol = buf.find(b"\r\n", pos)
            if eol < 0:
                break
            try:
                size = int(buf[pos:eol].split(b";", 1)[0], 16)
            except ValueError:
                self._broken("protocol")
                return
            if size == 0:
                tail = buf[eol + 2 :]
                if tail.startswith(b"\r\n") or b"\r\n\r\n" in tail:
                    self._complete()
                    return
                break
            end = eol + 2 + size + 2
            if len(buf) < end:
                break
            pos = end
        self.buf = buf[pos:]

    def _complete(self) -> None:
        now = _now()
        load = self.load
        value = now - self.start
        self.buf = b""
        again = (load.fast and not self.close_after and not load.stopping and load.started < load.count_limit
                 and now < load.end_ns)
        if again:
            # Closed loop on a kept-alive connection: the next request goes out first, so that the
            # server works on it while this one is booked.
            load.started += 1
            self.start = self.sent_at = now
            self.state = _HEAD
            self.request = req = load.single or load.next_request()
            self.transport.write(req)  # type: ignore[union-attr]
        # Histogram.record, inlined: this runs once per request.
        if value < _TWO_M:
            idx = value if value > 0 else 0
        else:
            shift = value.bit_length() - _SUB1
            idx = shift * _M + (value >> shift)
        counts = load.counts
        counts[idx] = counts.get(idx, 0) + 1
        load.total_ns += value
        if value > load.max_ns:
            load.max_ns = value
        if value < load.min_ns:
            load.min_ns = value
        status = self.status
        if status == 200:
            load.n200 += 1
        else:
            sc = load.status_counts
            sc[status] = sc.get(status, 0) + 1
        load.completed += 1
        if again:
            return
        if self.close_after:
            # The server ends the connection after this response: it is complete, and the next
            # request goes on a new connection (its connect time in its latency, as in ab).
            load.server_closes += 1
            load.busy -= 1
            self.state = _DEAD
            transport = self.transport
            self.transport = None
            if transport is not None:
                transport.close()
            load.after(self, now)
            return
        if load.fast:
            # The closed loop's budget is spent: this connection rests.
            load.busy -= 1
            self.state = _IDLE
            load.check_done()
            return
        load.busy -= 1
        if not load.spec.keepalive:
            self.state = _DEAD
            transport = self.transport
            self.transport = None
            if transport is not None:
                transport.close()
        else:
            self.state = _IDLE
        load.after(self, now)

    def _broken(self, kind: str) -> None:
        load = self.load
        if self.state not in (_IDLE, _DEAD):
            load.fail(kind)
            load.busy -= 1
        self.state = _DEAD
        transport = self.transport
        self.transport = None
        if transport is not None:
            transport.abort()
        load.after(self, _now())

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is None and self.state == _DEAD:
            return
        load = self.load
        if self.state == _UNTIL_CLOSE and exc is None and not self.timed_out:
            self.close_after = True
            self._complete()
            return
        if self.state in (_IDLE, _DEAD):
            # An idle keep-alive connection closed by the server: reopen only if more is to come.
            self.state = _DEAD
            self.transport = None
            if not self.waiting:
                load.after(self, _now())
            return
        self.transport = None
        self._broken("timeout" if self.timed_out else "reset")


def _start(load: _Load) -> None:
    """Open the connections (or their schedules) and start the housekeeping timers."""
    spec = load.spec
    load.t0 = _now()
    if spec.duration is not None:
        load.deadline_ns = load.t0 + int(spec.duration * 1e9)
    elif spec.rate is not None and spec.count is not None:
        load.deadline_ns = load.t0 + int(spec.count / spec.rate * 1e9)
    if load.deadline_ns:
        load.end_ns = load.deadline_ns
    if spec.rate is not None:
        load.interval_ns = int(spec.connections / spec.rate * 1e9)
    n_conns = spec.connections if spec.count is None else min(spec.connections, spec.count)
    for i in range(n_conns):
        conn = _Conn(load)
        if spec.rate is None:
            load.open(conn, _now())
        else:
            # Stagger the connections' schedules evenly over one interval.
            conn.next_slot = load.t0 + int(i * 1e9 / spec.rate)
            conn.state = _DEAD
            load.after(conn, _now())
    load.loop.call_later(min(0.1, spec.timeout / 4), load.watchdog)
    if load.progress is not None:
        _report_progress(load, load.t0, 0)


def _finish(load: _Load) -> None:
    if not load.t_end:
        load.t_end = _now()
    load.finish_histogram()
    for conn in load.conns:
        if conn.transport is not None:
            conn.transport.close()


class _AsyncioLoop:
    """The engine's loop interface on asyncio (uvloop when installed): several connections or an open loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.aio = loop

    def create_future(self) -> asyncio.Future[None]:
        return self.aio.create_future()

    def call_later(self, delay: float, fn: Callable[..., None], *args: Any) -> None:
        self.aio.call_later(delay, fn, *args)

    def connect(self, host: str, port: int, protocol: _Conn, timeout: float,
                on_error: Callable[[OSError], None]) -> None:
        self.aio.create_task(self._connect(host, port, protocol, timeout, on_error))

    async def _connect(self, host: str, port: int, protocol: _Conn, timeout: float,
                       on_error: Callable[[OSError], None]) -> None:
        try:
            await asyncio.wait_for(self.aio.create_connection(lambda: protocol, host, port), timeout)
        except (OSError, asyncio.TimeoutError) as exc:
            on_error(exc if isinstance(exc, OSError) else TimeoutError("connect timed out"))

    async def run(self, load: _Load) -> None:
        _start(load)
        # Ctrl-C: a KeyboardInterrupt raised inside a protocol callback is swallowed by the loop
        # (uvloop reports it as a transport error), so SIGINT is turned into a stop here and
        # re-raised after.
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                self.aio.add_signal_handler(sig, load.interrupt)
            except (ValueError, RuntimeError, NotImplementedError):
                pass
        try:
            await load.done
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                try:
                    self.aio.remove_signal_handler(sig)
                except (ValueError, RuntimeError, NotImplementedError):
                    pass
        _finish(load)


def _run_asyncio(spec: LoadSpec, progress: Callable[[float], None] | None) -> _Load:
    aio = new_event_loop()
    loop = _AsyncioLoop(aio)
    load = _Load(spec, loop, progress)
    try:
        aio.run_until_complete(loop.run(load))
        # Let the closed transports finish before the loop goes away.
        aio.run_until_complete(asyncio.sleep(0))
    finally:
        for task in asyncio.all_tasks(aio):
            task.cancel()
        aio.close()
    return load


def _run_blocking(spec: LoadSpec, progress: Callable[[float], None] | None) -> _Load:
    loop = BlockingLoop()
    load = _Load(spec, loop, progress)
    try:
        with loop.stopping_on_signals(load.interrupt):
            _start(load)
            loop.run_until(load.done)
        _finish(load)
    finally:
        loop.close()
    return load


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
        return "connect timed out"
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def _report_progress(load: _Load, last_t: int, last_n: int) -> None:
    if load.done.done() or load.progress is None:
        return
    now = _now()
    if now > last_t and last_n >= 0 and now - load.t0 > 0:
        if last_t != load.t0 or last_n:
            load.progress((load.completed - last_n) * 1e9 / (now - last_t))
    load.loop.call_later(0.5, _report_progress, load, now, load.completed)


def run_load(spec: LoadSpec, progress: Callable[[float], None] | None = None, loop: str = "auto") -> LoadResult:
    """Apply the load and return what it measured.

    Args:
        spec: the requests and the shape of the load.
        progress: called about twice a second with the current requests/s.
        loop: "asyncio" (uvloop when installed), "blocking" (one kept-alive connection in a
            closed loop only), or "auto": blocking where it applies, else asyncio.
    """
    if loop not in ("auto", "blocking", "asyncio"):
        raise ValueError(f"unknown engine loop {loop!r}")
    if urlsplit(spec.requests[0].url).scheme != "http":
        raise ValueError("the built-in engine speaks plain http only (wrk speaks https)")
    single = spec.connections == 1 and spec.rate is None and spec.keepalive
    if loop == "blocking" and not single:
        raise ValueError("the blocking loop runs one kept-alive connection in a closed loop only")
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    load = _run_blocking(spec, progress) if single and loop != "asyncio" else _run_asyncio(spec, progress)
    if load.interrupted:
        raise KeyboardInterrupt
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return LoadResult(
        histogram=load.hist,
        elapsed_s=max(load.t_end - load.t0, 1) / 1e9,
        completed=load.completed,
        status_counts=dict(load.status_counts),
        errors=dict(load.errors),
        bytes_received=load.bytes,
        client_cpu_s=cpu,
        aborted=load.aborted,
        server_closes=load.server_closes,
    )
