"""One kept-alive connection in a closed loop, on a blocking socket: no event loop at all.

Why: with one connection (`ab -c 1`, the way seed 000 measured) the client's work is in series
with the server's, so every microsecond the client spends between a response and the next
request is added to each round trip. An event loop costs a wait call and its callbacks per
request; here a request is one `send` and its response one blocking `recv` — two system calls,
as few as a client can make — and the engine's connection class parses it unchanged (this loop
speaks the slice of asyncio's protocol interface the engine uses, plus `stream`: responses framed
like the last one are booked and answered by the connection itself, with no call back into this
loop until one differs or a timer is due). docs/http.md has the figures.

The socket's receive timeout (SO_RCVTIMEO) wakes the loop every `_WAKE_S` while no data comes,
so the engine's timers (per-request timeout, time limit, progress) run during a stalled
response; signal handlers turn Ctrl-C, SIGTERM and SIGHUP into the engine's stop.
"""

from __future__ import annotations

import heapq
import itertools
import signal
import socket
import ssl
import struct
import threading
import time
from types import TracebackType
from typing import Any, Callable, Protocol

from pairbench import interrupts

__all__ = ["BlockingLoop"]

_now = time.perf_counter_ns
_RECV_SIZE = 64 * 1024
_TLS_RECV_SIZE = 16 * 1024
"""One TLS record at most (RFC 8446 §5.1): SSL_read returns no more, and a smaller buffer is cheaper to allocate."""
_WAKE_S = 0.05
_TIMER_EVERY = 16
"""Reads between two looks at the timers while data keeps coming (a timer is late by at most these)."""


class StreamProtocol(Protocol):
    def connection_made(self, transport: Any) -> None: ...
    def data_received(self, data: bytes) -> None: ...
    def connection_lost(self, exc: Exception | None) -> None: ...
    def stream(self, recv: Callable[[int], bytes], send: Callable[[bytes], object], size: int,
               timers: list[Any]) -> bytes: ...


class _Flag:
    """What `asyncio.Future` offers the engine: set once, asked often."""

    __slots__ = ("_done",)

    def __init__(self) -> None:
        self._done = False

    def done(self) -> bool:
        return self._done

    def set_result(self, _: object) -> None:
        self._done = True


class _Stop(BaseException):
    """Raised by the signal handlers to leave a blocking call at once."""


class _SocketTransport:
    __slots__ = ("sock", "protocol", "loop", "closed", "recv", "send_all")

    def __init__(self, loop: BlockingLoop, sock: socket.socket, protocol: StreamProtocol) -> None:
        self.loop = loop
        self.sock = sock
        self.protocol = protocol
        self.closed = False
        # TLS: the C object under the SSLSocket (SSL_read, and SSL_write, which on a blocking
        # socket writes everything); the SSLSocket's methods add Python calls around them.
        raw = getattr(sock, "_sslobj", None) if isinstance(sock, ssl.SSLSocket) else None
        self.recv = sock.recv if raw is None else raw.read
        self.send_all = sock.sendall if raw is None else raw.write

    def write(self, data: bytes) -> None:
        if self.closed:
            return
        try:
            self.send_all(data)
        except OSError as exc:
            self.loop.lose(self, exc)

    def close(self) -> None:
        self.loop.lose(self, None)

    def abort(self) -> None:
        self.loop.lose(self, None)

    def is_closing(self) -> bool:
        return self.closed


class BlockingLoop:
    """The engine's loop interface (create_future, call_later, connect) for a single connection."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.tls = tls
        """https: the socket is wrapped, its handshake inside `connect` (in the first request's latency)."""
        self.current: _SocketTransport | None = None
        self.timers: list[tuple[int, int, Callable[..., None], tuple[Any, ...]]] = []
        self.soon: list[tuple[Callable[..., None], tuple[Any, ...]]] = []
        self._seq = itertools.count()

    def create_future(self) -> _Flag:
        return _Flag()

    def call_later(self, delay: float, fn: Callable[..., None], *args: Any) -> None:
        heapq.heappush(self.timers, (_now() + int(delay * 1e9), next(self._seq), fn, args))

    def connect(self, host: str, port: int, protocol: StreamProtocol, timeout: float,
                on_error: Callable[[OSError], None]) -> None:
        """Connect now (every address of the host in turn); `on_error` runs soon after a failure."""
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.tls is not None:
                sock = self.tls.wrap_socket(sock, server_hostname=host)
        except OSError as exc:
            self.soon.append((on_error, (exc,)))
            return
        sock.settimeout(None)
        wake = struct.pack("ll", 0, int(_WAKE_S * 1e6))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, wake)
        sec = int(timeout)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", sec, int((timeout - sec) * 1e6)))
        if self.current is not None:
            self.lose(self.current, None)
        self.current = t = _SocketTransport(self, sock, protocol)
        protocol.connection_made(t)

    def lose(self, t: _SocketTransport, exc: Exception | None) -> None:
        """Close a transport; its protocol hears `connection_lost` soon after, as with asyncio."""
        if t.closed:
            return
        t.closed = True
        t.sock.close()
        if self.current is t:
            self.current = None
        self.soon.append((t.protocol.connection_lost, (exc,)))

    def close(self) -> None:
        """The load is over: close the socket without telling the protocol."""
        if self.current is not None:
            self.current.closed = True
            self.current.sock.close()
            self.current = None
        self.soon.clear()
        self.timers.clear()

    def run_until(self, flag: _Flag) -> None:
        """Read responses and run timers until `flag` is set."""
        timers = self.timers
        size = _RECV_SIZE if self.tls is None else _TLS_RECV_SIZE
        # While responses stream in, the clock is read for the timers once every _TIMER_EVERY
        # reads (a clock read costs about as much as the fast-path framing check); at once after
        # a read that timed out, a timer or anything run soon.
        tick = 0
        while not flag._done:
            if self.soon:
                batch, self.soon = self.soon, []
                for fn, args in batch:
                    fn(*args)
                tick = 0
                continue
            if tick:
                tick -= 1
            elif timers and timers[0][0] <= _now():
                _, _, fn, args = heapq.heappop(timers)
                fn(*args)
                continue
            else:
                tick = _TIMER_EVERY - 1
            t = self.current
            if t is None:
                if not timers:
                    return  # nothing left that could happen
                time.sleep(max(0.0, (timers[0][0] - _now()) / 1e9))
                tick = 0
                continue
            try:
                # Responses framed like the last one are booked inside `stream`, which hands
                # back the first read it does not take (http1.Connection.stream).
                data = t.protocol.stream(t.recv, t.send_all, size, timers)
            except (BlockingIOError, ssl.SSLWantReadError):
                tick = 0
                continue  # no data within _WAKE_S: let the timers run
            except (ssl.SSLEOFError, ssl.SSLZeroReturnError):
                data = b""  # the peer closed (without close_notify, or with it)
            except OSError as exc:
                self.lose(t, exc)
                continue
            if data:
                t.protocol.data_received(data)
            else:
                self.lose(t, None)  # EOF

    def stopping_on_signals(self, on_signal: Callable[[], None]) -> _Signals:
        """A context in which Ctrl-C and SIGTERM call `on_signal` (main thread only)."""
        return _Signals(on_signal)


class _Signals:
    def __init__(self, on_signal: Callable[[], None]) -> None:
        self.on_signal = on_signal
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in interrupts.SIGNALS:
            self.previous[sig] = signal.signal(sig, _raise_stop)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> bool:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        if isinstance(exc, _Stop):
            self.on_signal()
            return True
        return False


def _raise_stop(signum: int, frame: object) -> None:
    interrupts.record(signum)
    raise _Stop
