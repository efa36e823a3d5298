"""The HTTP/2 load (`--http2`): `connections` clients, each keeping `streams` requests in flight on
one connection, in a closed loop, with the `h2` library (pure Python, sans-I/O) on the engine's
event loop. h2c with prior knowledge for http:// (RFC 9113 §3.3), ALPN h2 for https://.

Why a loop of its own: HTTP/1's scheduler (scheduler.py) books one request per connection at a
time; here a connection multiplexes streams, and each stream's latency runs from its HEADERS
frame to its END_STREAM, so a stream queued behind others on the same connection is charged for
the wait (as h2load measures). The connection's set-up (TCP, TLS, the preface and SETTINGS)
counts in its first streams' latency, as the connect does for HTTP/1.
"""

from __future__ import annotations

import asyncio
import resource
import ssl
import time
from typing import Any, Callable
from urllib.parse import urlsplit

from pairbench.runners.http.h2session import ENDED, GOAWAY, RESET, STATUS, SessionError, new_session
from pairbench.runners.http.histogram import Histogram
from pairbench.runners.http.spec import LoadResult, LoadSpec

__all__ = ["run_h2_load", "h2_available", "H2_MISSING", "Http2Refused"]

_now = time.perf_counter_ns
_MAX_CONNECT_FAILURES = 50
_SETTINGS = 0x4
"""The type of an HTTP/2 SETTINGS frame: the fourth byte of the first frame a server sends."""
H2_MISSING = "--http2 needs an HTTP/2 library: pip install 'pairbench[http]' (ngh2, or h2)"


class Http2Refused(Exception):
    """The server does not speak HTTP/2 (ALPN chose another protocol): a setting to fix, not a bad round."""


def h2_available() -> bool:
    from pairbench.runners.http.h2session import library_name

    return library_name() != ""


class _H2Load:
    """Shared counters of one HTTP/2 load."""

    def __init__(self, spec: LoadSpec, streams: int, done: asyncio.Future[None], library: str = "") -> None:
        self.spec = spec
        self.library = library
        self.streams = streams
        self.done = done
        self.hist = Histogram()
        self.status_counts: dict[int, int] = {}
        self.errors: dict[str, int] = {}
        self.bytes = 0
        self.completed = 0
        self.started = 0
        self.busy = 0
        self.connect_failures = 0
        self.aborted = ""
        self.stopping = False
        self.t0 = _now()
        self.t_end = 0
        self.deadline = self.t0 + int(spec.duration * 1e9) if spec.duration is not None else 1 << 62
        self.count_limit = spec.count if spec.count is not None else 1 << 62
        self.conns: set[_H2Connection] = set()
        self.refused = False

    def may_start(self) -> bool:
        return not self.stopping and self.started < self.count_limit and _now() < self.deadline

    def refuse(self, why: str) -> None:
        """The server does not speak HTTP/2: the load stops, and the run with it (Http2Refused)."""
        host, port = self.spec.requests[0].host_port()
        tls = self.spec.requests[0].url.startswith("https:")
        self.aborted = (f"--http2: the server at {host}:{port} does not speak HTTP/2: {why}; drop --http2 or "
                        f"enable HTTP/2 in the server ({'h2 in its TLS' if tls else 'h2c, cleartext HTTP/2'})")
        self.stopping = True
        self.refused = True

    def fail(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    def check_done(self) -> None:
        if self.busy == 0 and not self.done.done() and (self.stopping or not self.may_start()):
            self.t_end = self.t_end or _now()
            self.done.set_result(None)


class _H2Connection(asyncio.Protocol):
    """One HTTP/2 connection keeping up to `streams` requests in flight."""

    def __init__(self, load: _H2Load, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
        self.load = load
        self.headers = headers
        self.body = body
        self.h2 = new_session(load.library)
        self.transport: asyncio.Transport | None = None
        self.open_streams: dict[int, list[int]] = {}
        """stream id -> [start ns, status]."""
        self.opened_at = _now()
        self.going_away = False
        """GOAWAY received (a server's limit of requests per connection): no new streams here."""
        self.received = 0
        """Bytes the server sent on this connection."""

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        ssl_object = transport.get_extra_info("ssl_object")
        if ssl_object is not None and ssl_object.selected_alpn_protocol() != "h2":
            self.load.refuse(f"it did not agree to HTTP/2 in the TLS handshake (ALPN "
                             f"{ssl_object.selected_alpn_protocol() or 'none'})")
            transport.close()
            return
        self.load.connect_failures = 0
        self.h2.start()
        for _ in range(self.load.streams):
            if not self._start_stream(self.opened_at):
                break
        self._flush()

    def _start_stream(self, start_ns: int) -> bool:
        load = self.load
        if self.going_away or not load.may_start():
            if self.going_away and not self.open_streams and self.transport is not None:
                self.transport.close()  # the next connection takes over (see _connect)
            return False
        sid = self.h2.request(self.headers, self.body)
        self.open_streams[sid] = [start_ns, 0]
        load.started += 1
        load.busy += 1
        return True

    def _flush(self) -> None:
        data = self.h2.pending()
        if data and self.transport is not None:
            self.transport.write(data)

    def data_received(self, data: bytes) -> None:
        load = self.load
        if not self.received and len(data) >= 4 and data[3] != _SETTINGS:
            # An HTTP/2 server's first frame is SETTINGS (RFC 9113 §3.4); an HTTP/1 server answers the
            # preface (`PRI * HTTP/2.0`) with an HTTP/1 error, or bare HTML (python -m http.server).
            first = data.strip().split(b"\n", 1)[0].strip()[:60].decode("latin-1", "replace")
            said = "in HTTP/1" if data.startswith(b"HTTP/") else "with no HTTP/2 SETTINGS frame"
            load.refuse(f"it answered the HTTP/2 preface (h2c with prior knowledge) {said}: {first!r}")
            self._drop()
            return
        self.received += len(data)
        load.bytes += len(data)
        try:
            events = self.h2.feed(data)
        except SessionError:
            self._lost("protocol")
            return
        for kind, sid, value in events:
            if kind == STATUS:
                stream = self.open_streams.get(sid)
                if stream is not None:
                    stream[1] = value
            elif kind == ENDED:
                self._ended(sid)
            elif kind == RESET:
                if self.open_streams.pop(sid, None) is not None:
                    load.busy -= 1
                    load.fail("reset")
                    self._start_stream(_now())
            elif kind == GOAWAY:
                self._going_away(value)
                if self.transport is None:
                    return
        self._flush()
        load.check_done()

    def _ended(self, sid: int) -> None:
        stream = self.open_streams.pop(sid, None)
        if stream is None:
            return
        load = self.load
        now = _now()
        load.hist.record(now - stream[0])
        load.status_counts[stream[1]] = load.status_counts.get(stream[1], 0) + 1
        load.completed += 1
        load.busy -= 1
        self._start_stream(now)

    def _going_away(self, last_stream_id: int) -> None:
        """GOAWAY: streams the server will not process (ids above `last_stream_id`) are begun again
        on the next connection, not failed (RFC 9113 §6.8); the others finish here."""
        self.going_away = True
        load = self.load
        for sid in [s for s in self.open_streams if s > last_stream_id]:
            del self.open_streams[sid]
            load.busy -= 1
            load.started -= 1
        if not self.open_streams and self.transport is not None:
            transport, self.transport = self.transport, None
            transport.close()
            load.conns.discard(self)

    def _lost(self, kind: str) -> None:
        """The connection failed: its open streams are failed, and a new connection takes over."""
        load = self.load
        for _ in self.open_streams:
            load.busy -= 1
            load.fail(kind)
        self.open_streams.clear()
        transport, self.transport = self.transport, None
        if transport is not None:
            transport.abort()
        load.conns.discard(self)

    def _drop(self) -> None:
        """Give up the connection without counting its streams as failed (the run stops)."""
        load = self.load
        load.busy -= len(self.open_streams)
        load.started -= len(self.open_streams)
        self.open_streams.clear()
        transport, self.transport = self.transport, None
        if transport is not None:
            transport.abort()
        load.conns.discard(self)
        load.check_done()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is not None and not self.received and not self.load.completed and not self.load.refused:
            # Closed or reset before a single byte: no server that speaks HTTP/2 does that to the preface.
            self.load.refuse("it closed the connection on the HTTP/2 preface (h2c with prior knowledge) "
                             "without a word of HTTP/2")
            self._drop()
            return
        if self.going_away and not self.open_streams:
            self.transport = None
            self.load.conns.discard(self)
            self.load.check_done()
            return
        if self.transport is not None:
            self.transport = None
            self._lost("reset")
            self.load.check_done()


async def _connect(load: _H2Load, aio: asyncio.AbstractEventLoop, make: Callable[[], _H2Connection],
                   tls: ssl.SSLContext | None) -> None:
    spec = load.spec
    host, port = spec.requests[0].host_port()
    while load.may_start() and load.connect_failures < _MAX_CONNECT_FAILURES:
        conn = make()
        try:
            await asyncio.wait_for(aio.create_connection(lambda: conn, host, port, ssl=tls,
                                                         server_hostname=host if tls else None), spec.timeout)
        except (OSError, asyncio.TimeoutError) as exc:
            load.fail("connect")
            load.connect_failures += 1
            if isinstance(exc, ssl.SSLCertVerificationError):
                load.aborted = f"certificate not verified ({exc.verify_message}); give --insecure to accept it"
                break
            if isinstance(exc, ssl.SSLError) and "no application protocol" in str(exc).lower():
                # The server's TLS refused ALPN h2 outright (alert 120); the TLS transports of asyncio
                # and uvloop leave `reason` unset, so OpenSSL's alert text is what tells it.
                load.refuse("it did not agree to HTTP/2 in the TLS handshake (ALPN none: it offers no h2)")
                break
            await asyncio.sleep(0.01)
            continue
        load.conns.add(conn)
        while conn.transport is not None and not load.done.done():
            await asyncio.sleep(0.05)
            _expire(conn, spec.timeout)
    if load.connect_failures >= _MAX_CONNECT_FAILURES and not load.aborted:
        load.aborted = f"cannot connect to {host}:{port}"
    if load.aborted:
        load.stopping = True
    load.check_done()


def _expire(conn: _H2Connection, timeout: float) -> None:
    """Streams older than the per-request timeout: the connection is given up, its streams failed."""
    limit = _now() - int(timeout * 1e9)
    if any(start < limit for start, _ in conn.open_streams.values()):
        conn._lost("timeout")


def _request_headers(spec: LoadSpec) -> tuple[list[tuple[bytes, bytes]], bytes]:
    req = spec.requests[0]
    parts = urlsplit(req.url)
    host, port = req.host_port()
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    default = {"http": 80, "https": 443}[parts.scheme]
    headers = [(b":method", req.method.encode()), (b":path", target.encode("latin-1")),
               (b":scheme", parts.scheme.encode()),
               (b":authority", (host if port == default else f"{host}:{port}").encode("latin-1"))]
    names = {k.lower() for k, _ in req.headers}
    if "user-agent" not in names:
        headers.append((b"user-agent", b"pairbench"))
    if "accept" not in names:
        headers.append((b"accept", b"*/*"))
    # HTTP/2 header names are lower case; the connection-specific ones are not sent (RFC 9113 §8.2.2).
    headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in req.headers
                if k.lower() not in ("host", "connection", "keep-alive", "transfer-encoding", "upgrade")]
    if req.body:
        headers.append((b"content-length", str(len(req.body)).encode()))
    return headers, req.body


def run_h2_load(spec: LoadSpec, streams: int = 1, tls: ssl.SSLContext | None = None,
                new_loop: Callable[[], asyncio.AbstractEventLoop] = asyncio.new_event_loop,
                library: str = "") -> LoadResult:
    """Apply a closed-loop HTTP/2 load and return what it measured (one URL, no fixed rate);
    `library` ("ngh2", "h2") picks the protocol library, by default the fastest installed."""
    if spec.rate is not None or len(spec.requests) != 1:
        raise ValueError("the HTTP/2 load is a closed loop on one URL (no --rate, no --mix)")
    headers, body = _request_headers(spec)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    aio = new_loop()
    try:
        load = _H2Load(spec, streams, aio.create_future(), library)
        tasks = [aio.create_task(_connect(load, aio, lambda: _H2Connection(load, headers, body), tls))
                 for _ in range(spec.connections)]
        aio.run_until_complete(asyncio.wait_for(load.done, spec.max_time))
        load.t_end = load.t_end or _now()
        for conn in list(load.conns):
            if conn.transport is not None:
                conn.transport.close()
        for task in tasks:
            task.cancel()
        aio.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
    finally:
        aio.close()
    if load.refused:
        raise Http2Refused(load.aborted)
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return LoadResult(histogram=load.hist, elapsed_s=max(load.t_end - load.t0, 1) / 1e9, completed=load.completed,
                      status_counts=load.status_counts, errors=load.errors, bytes_received=load.bytes,
                      client_cpu_s=cpu, aborted=load.aborted)
