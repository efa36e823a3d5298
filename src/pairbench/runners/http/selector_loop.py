"""Several connections on one epoll loop over non-blocking sockets (TLS: `ssl.SSLSocket`s).

Why: over https an event loop's TLS transport (asyncio's or uvloop's) runs OpenSSL on memory
buffers — every record is read from the socket into Python, copied into a `MemoryBIO`, decrypted
by an `SSLObject` call and copied out again, with a protocol layer and its callbacks in between.
Here a readable socket is one `SSL_read` straight on its file descriptor, in C, and a request one
`SSL_write`: the client CPU per request that decides how close the engine comes to wrk over TLS
(docs/http.md has the figures). The loop speaks the slice of asyncio's interface the engine uses
(create_future, call_later, connect; transports with write/close/abort), as blocking_loop.py does
for one connection, so http1.py's `Connection` runs unchanged.

A connect is non-blocking and bounded by its timeout, the TLS handshake included (it counts in the
first request's latency, as ab counts it); every address of the host is tried in turn. Sockets are
closed at the end of the batch of events being handled, so that a file descriptor is never reused
for a new connection while an event of the old one is still to be read. Ctrl-C, SIGTERM and
SIGHUP stop the load as on the blocking loop.

In a closed keep-alive loop on one URL (`fast` set by the engine) the C step (_fastpath.c) waits
on the epoll itself and books every response framed like its connection's last one, writing the
next request, until the next timer is due; it hands each other event back, in order, to
`_event`, which does what the loop below does with it. Without the C step the loop below does
it all.
"""

from __future__ import annotations

import errno
import heapq
import itertools
import os
import select
import socket
import ssl
import time
from typing import Any, Callable, Protocol

from pairbench.runners.http.blocking_loop import _Flag, _Signals
from pairbench.runners.http.http1 import HEAD

try:
    from pairbench.runners.http import _fastpath
except ImportError:  # built without a C compiler: the Python step below does it all
    _fastpath = None  # type: ignore[assignment]

__all__ = ["SelectorLoop", "has_c_step", "use_c_step"]

_now = time.perf_counter_ns
_RECV_SIZE = 64 * 1024
_TLS_RECV_SIZE = 16 * 1024
"""One TLS record at most (RFC 8446 §5.1): a shorter read means the record was read whole."""
_IN, _OUT = select.EPOLLIN, select.EPOLLOUT
_WANT = (BlockingIOError, InterruptedError, ssl.SSLWantReadError, ssl.SSLWantWriteError)


class StreamProtocol(Protocol):
    def connection_made(self, transport: Any) -> None: ...
    def data_received(self, data: bytes) -> None: ...
    def connection_lost(self, exc: Exception | None) -> None: ...


class _Transport:
    """An open connection: what the engine writes to and closes."""

    __slots__ = ("loop", "sock", "fd", "protocol", "feed", "closed", "raw", "recv", "send", "size", "out")

    def __init__(self, loop: SelectorLoop, sock: socket.socket, protocol: StreamProtocol, tls: bool) -> None:
        self.loop = loop
        self.sock = sock
        self.fd = sock.fileno()
        self.protocol = protocol
        self.feed = protocol.data_received
        """Bound once: the loop hands every read to it."""
        self.closed = False
        # TLS: the C object under the SSLSocket, whose read and write are SSL_read and SSL_write
        # (the SSLSocket's own methods add two Python calls each); a ragged EOF raises SSLEOFError.
        self.raw = raw = getattr(sock, "_sslobj", None) if tls else None
        self.recv = sock.recv if raw is None else raw.read
        self.send = sock.send if raw is None else raw.write
        self.size = _TLS_RECV_SIZE if tls else _RECV_SIZE
        self.out = b""
        """Bytes the socket did not take yet (sent when it is writable again)."""

    def write(self, data: bytes) -> None:
        if self.closed:
            return
        if self.out:
            self.out += data
            return
        try:
            n = self.send(data)
        except _WANT:
            n = 0  # TLS: the same bytes are written again (SSL_write's rule)
        except OSError as exc:
            self.loop.lose(self, exc)
            return
        if n < len(data):
            self.out = data[n:]
            self.loop.poller.modify(self.fd, _IN | _OUT)

    def flush(self) -> None:
        """The socket is writable again: send what is left."""
        data, self.out = self.out, b""
        self.loop.poller.modify(self.fd, _IN)
        self.write(data)

    def close(self) -> None:
        self.loop.lose(self, None)

    def abort(self) -> None:
        self.loop.lose(self, None)

    def is_closing(self) -> bool:
        return self.closed


class _Connecting:
    """A connect (and handshake) in progress, bounded by its deadline."""

    __slots__ = ("sock", "fd", "host", "addresses", "protocol", "on_error", "done", "handshaking")

    def __init__(self, host: str, addresses: list[Any], protocol: StreamProtocol,
                 on_error: Callable[[OSError], None]) -> None:
        self.sock: socket.socket | None = None
        self.fd = -1
        self.host = host
        self.addresses = addresses
        self.protocol = protocol
        self.on_error = on_error
        self.done = False
        self.handshaking = False


_c_step = {"on": _fastpath is not None}


def has_c_step() -> bool:
    """Whether the C step (_fastpath.c) is built and in use: it books responses framed like the last one."""
    return _c_step["on"]


def use_c_step(on: bool) -> None:
    """Turn the C step off (or on again, when built): the Python step beside it (bench/http_engine.py)."""
    _c_step["on"] = on and _fastpath is not None


class SelectorLoop:
    """The engine's loop interface for several connections or an open loop, on epoll."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.tls = tls
        self.fast: Any = None
        """The load whose responses the C step books (a closed keep-alive loop on one URL), or
        None: every response goes through the protocol's `data_received`."""
        self.poller = select.epoll()
        self.handlers: dict[int, _Transport | _Connecting] = {}
        self.timers: list[tuple[int, int, Callable[..., None], tuple[Any, ...]]] = []
        self.soon: list[tuple[Callable[..., None], tuple[Any, ...]]] = []
        self.to_close: list[socket.socket] = []
        self._seq = itertools.count()
        self._addresses: dict[tuple[str, int], list[Any]] = {}

    def create_future(self) -> _Flag:
        return _Flag()

    def call_later(self, delay: float, fn: Callable[..., None], *args: Any) -> None:
        heapq.heappush(self.timers, (_now() + int(delay * 1e9), next(self._seq), fn, args))

    def stopping_on_signals(self, on_signal: Callable[[], None]) -> _Signals:
        """A context in which Ctrl-C and SIGTERM call `on_signal` (main thread only)."""
        return _Signals(on_signal)

    # --- connecting ---------------------------------------------------------------------------
    def connect(self, host: str, port: int, protocol: StreamProtocol, timeout: float,
                on_error: Callable[[OSError], None]) -> None:
        """Begin a connect; `protocol.connection_made` runs once it (and its handshake) is done."""
        addresses = self._addresses.get((host, port))
        if addresses is None:
            try:
                infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except OSError as exc:
                self.soon.append((on_error, (exc,)))
                return
            addresses = self._addresses[(host, port)] = [(i[0], i[4]) for i in infos]
        c = _Connecting(host, list(addresses), protocol, on_error)
        self.call_later(timeout, self._connect_timed_out, c)
        self._next_address(c, None)

    def _next_address(self, c: _Connecting, last: OSError | None) -> None:
        while c.addresses:
            family, address = c.addresses.pop(0)
            try:
                sock = socket.socket(family, socket.SOCK_STREAM)
            except OSError as exc:  # e.g. no IPv6 on this host: the next address
                last = exc
                continue
            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            err = sock.connect_ex(address)
            if err in (0, errno.EINPROGRESS):
                c.sock, c.fd, c.handshaking = sock, sock.fileno(), False
                self.handlers[c.fd] = c
                self.poller.register(c.fd, _OUT)
                return
            sock.close()
            last = OSError(err, os.strerror(err))
        self._connect_failed(c, last or OSError(errno.EHOSTUNREACH, "no address"))

    def _connect_failed(self, c: _Connecting, exc: OSError) -> None:
        c.done = True
        self._drop(c)
        self.soon.append((c.on_error, (exc,)))

    def _connect_timed_out(self, c: _Connecting) -> None:
        if not c.done:
            self._connect_failed(c, TimeoutError("connect timed out"))

    def _drop(self, c: _Connecting) -> None:
        if c.sock is not None:
            self.handlers.pop(c.fd, None)
            self.poller.unregister(c.fd)
            self.to_close.append(c.sock)
            c.sock = None

    def _connect_event(self, c: _Connecting) -> None:
        sock = c.sock
        assert sock is not None
        if not c.handshaking:
            err = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                self._drop(c)
                self._next_address(c, OSError(err, os.strerror(err)))
                return
            if self.tls is not None:
                # The same file descriptor, now speaking TLS (the plain socket object is detached).
                c.sock = sock = self.tls.wrap_socket(sock, server_hostname=c.host, do_handshake_on_connect=False)
                c.handshaking = True
        if c.handshaking:
            try:
                sock.do_handshake()  # type: ignore[attr-defined]
            except ssl.SSLWantReadError:
                self.poller.modify(c.fd, _IN)
                return
            except ssl.SSLWantWriteError:
                self.poller.modify(c.fd, _OUT)
                return
            except OSError as exc:
                self._connect_failed(c, exc)
                return
        c.done = True
        self.poller.modify(c.fd, _IN)
        t = self.handlers[c.fd] = _Transport(self, sock, c.protocol, self.tls is not None)
        c.sock = None
        c.protocol.connection_made(t)

    # --- running ------------------------------------------------------------------------------
    def lose(self, t: _Transport, exc: Exception | None) -> None:
        """Close a transport; its protocol hears `connection_lost` soon after, as with asyncio."""
        if t.closed:
            return
        t.closed = True
        if self.handlers.get(t.fd) is t:
            del self.handlers[t.fd]
            self.poller.unregister(t.fd)
        self.to_close.append(t.sock)
        self.soon.append((t.protocol.connection_lost, (exc,)))

    def close(self) -> None:
        """The load is over: close every socket without telling the protocols."""
        for h in self.handlers.values():
            if isinstance(h, _Transport):
                h.closed = True
                self.to_close.append(h.sock)
            elif h.sock is not None:
                h.done = True
                self.to_close.append(h.sock)
        self.handlers.clear()
        for sock in self.to_close:
            sock.close()
        self.to_close.clear()
        self.poller.close()
        self.soon.clear()
        self.timers.clear()

    def run_until(self, flag: _Flag) -> None:
        """Read responses, finish connects and run timers until `flag` is set."""
        timers, handlers, poll = self.timers, self.handlers, self.poller.poll
        to_close, soon = self.to_close, self.soon  # emptied in place: local names on every turn
        size = _RECV_SIZE if self.tls is None else _TLS_RECV_SIZE  # every transport's `size`
        pump = _fastpath.pump if self.fast is not None and _c_step["on"] else None
        while not flag._done:
            if to_close:
                for sock in to_close:
                    sock.close()
                to_close.clear()
            if soon:
                batch = soon[:]
                soon.clear()
                for fn, args in batch:
                    fn(*args)
                continue
            if timers:
                due = timers[0][0]
                wait = (due - _now()) / 1e9
                if wait <= 0:
                    _, _, fn, args = heapq.heappop(timers)
                    fn(*args)
                    continue
            elif not handlers:
                return  # nothing left that could happen
            else:
                due, wait = _now() + 1_000_000_000, -1
            if pump is not None:
                # The C step books what it can until the next timer; the rest comes back here.
                for h, ev, got in pump(self.poller.fileno(), handlers, _Transport, self.fast, due,
                                       self.tls is not None, size, _WANT, HEAD):
                    current = handlers.get(h.fd)
                    if current is not None and current is h:  # not closed by an earlier event
                        self._event(current, ev, got)
                continue
            for fd, ev in poll(wait):
                t = handlers.get(fd)
                if t is None:
                    continue  # closed by an earlier event of this batch
                if t.__class__ is not _Transport:
                    self._connect_event(t)  # type: ignore[arg-type]
                    continue
                if ev != _IN:  # writable, or an error or a hang-up (read below)
                    if ev & _OUT and t.out:
                        t.flush()
                        if t.closed or not ev & ~_OUT:
                            continue
                # The usual event, inlined (one call less per response): a whole response to read.
                try:
                    data = t.recv(size)
                except _WANT:
                    continue
                except (ssl.SSLEOFError, ssl.SSLZeroReturnError):
                    data = b""  # the peer closed (without close_notify, or with it)
                except OSError as exc:
                    self.lose(t, exc)
                    continue
                if not data:
                    self.lose(t, None)  # EOF
                    continue
                t.feed(data)
                if len(data) == size and not t.closed:
                    self._read(t)  # a full buffer: there may be more

    def _event(self, t: _Transport | _Connecting, ev: int, got: bytes | Exception | None) -> None:
        """An event the C step handed back: `got` is what it read (bytes or the read's error),
        or None when it read nothing."""
        if t.__class__ is not _Transport:
            self._connect_event(t)  # type: ignore[arg-type]
            return
        assert isinstance(t, _Transport)
        if got is None:
            if ev != _IN:
                if ev & _OUT and t.out:
                    t.flush()
                    if t.closed or not ev & ~_OUT:
                        return
            self._read(t)
            return
        if isinstance(got, Exception):
            if isinstance(got, _WANT):
                return
            if not isinstance(got, (ssl.SSLEOFError, ssl.SSLZeroReturnError)):
                self.lose(t, got if isinstance(got, OSError) else OSError(str(got)))
                return
            got = b""
        if not got:
            self.lose(t, None)  # EOF
            return
        t.feed(got)
        if len(got) == t.size and not t.closed:
            self._read(t)

    def _read(self, t: _Transport) -> None:
        """One readable event: read what is there (TLS: every whole record) and hand it over."""
        size = t.size
        while True:
            try:
                data = t.recv(size)
            except _WANT:
                return
            except (ssl.SSLEOFError, ssl.SSLZeroReturnError):
                data = b""  # the peer closed (without close_notify, or with it)
            except OSError as exc:
                self.lose(t, exc)
                return
            if not data:
                self.lose(t, None)  # EOF
                return
            t.protocol.data_received(data)
            if len(data) < size or t.closed:
                return
