"""The HTTP/1 client side of one connection: writes pre-encoded requests, frames the responses
(Content-Length, chunked, until close; bodiless statuses; `Connection: close` and HTTP/1.0), and
books each complete response into its load.

Parsing is a hybrid: a response framed exactly like the previous one is recognised by hand, with
no parse at all; any other is parsed by httptools (llhttp in C, as uvicorn does) when it is
installed — twice as fast as the hand parser when lengths change (docs/http.md) — except the
answer to a HEAD request (llhttp's response parser cannot be told that it has no body); without
httptools the hand parser does it all.

Why parsing and booking share a class: this is the per-request path, and every call and attribute
hop on it costs client CPU that is added to each round trip (docs/http.md has the figures), so a
latency is booked by one C append in `_complete` (bucketed at the end of the load) and a response
framed like the previous one is recognised without parsing.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Callable

from pairbench.runners.http.framing import (
    framed_alike,
    httptools_module,
    response_closes,
    response_parser,
    use_response_parser,
)

if TYPE_CHECKING:
    from pairbench.runners.http.scheduler import Load

__all__ = ["Connection", "response_closes", "response_parser", "use_response_parser", "IDLE", "HEAD", "BODY",
           "CHUNKED", "UNTIL_CLOSE", "DEAD"]

_now = time.perf_counter_ns


# Parser states of a connection; PARSED_HEAD and PARSED_BODY: a response fed to httptools.
IDLE, HEAD, BODY, CHUNKED, UNTIL_CLOSE, DEAD, PARSED_HEAD, PARSED_BODY = range(8)


class Connection(asyncio.Protocol):
    """One client connection: writes a request, parses the response, hands over to the load."""

    # Slots: attribute access on the per-request path is measurably cheaper than a __dict__.
    __slots__ = ("load", "transport", "state", "pending", "waiting", "request", "start", "sent_at",
                 "next_slot", "buf", "left", "status", "close_after", "timed_out", "shape_len",
                 "shape_at", "shape_tail", "shape_last", "opened_at", "parser")

    def __init__(self, load: Load) -> None:
        self.load = load
        self.transport: asyncio.Transport | None = None
        self.state = IDLE
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
        self.shape_last = b""  # the last response taken as framed so: the same bytes again are one `==`
        self.opened_at = 0
        """`sent_at` of the connection's first request: a later `sent_at` means it was reused."""
        self.parser: Any = None
        """httptools' response parser, made at the first response it parses."""
        load.conns.add(self)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.load.connect_failures = 0
        self.pending = False
        self.state = HEAD
        self.buf = b""
        self.sent_at = self.opened_at = _now()
        transport.write(self.request)  # type: ignore[attr-defined]

    def send(self, start_ns: int) -> None:
        load = self.load
        self.request = load.next_request()
        load.started += 1
        load.busy += 1
        self.start = start_ns
        self.state = HEAD
        self.buf = b""
        self.sent_at = _now()
        self.transport.write(self.request)  # type: ignore[union-attr]

    def data_received(self, data: bytes) -> None:
        load = self.load
        n = len(data)
        load.bytes += n
        state = self.state
        if state == HEAD:
            # Fast path: a whole response framed exactly as the previous one — same length, same
            # bytes from its Content-Length header to the end (the body included) — whose part
            # before that header holds no end of head and no "close" (of `Connection: close`). Only
            # the status line and headers such as Date differ, so the framing is known without
            # parsing; the first response of a connection takes the full path (`_head`). The same
            # bytes as the last response taken so (a static file within a second) are one `==`.
            if n == self.shape_len and not self.buf:
                if data != self.shape_last:
                    if not framed_alike(data, self.shape_at, self.shape_tail):
                        self._head(data, n)
                        return
                    self.shape_last = data
                now = _now()
                req = load.again
                # end_ns is 0 once the load is stopping.
                if (now < load.end_ns and load.started < load.count_limit and req is not None
                        and not self.close_after):
                    # `_complete`'s closed-loop case, inlined (one call less per response).
                    value = now - self.start
                    load.started += 1
                    self.start = self.sent_at = now
                    self.transport.write(req)  # type: ignore[union-attr]
                    load.book(value)
                    load.n200 += 1
                    load.completed += 1
                    return
                self.status = 200
                self._complete()
                return
            self._head(data, n)
            return
        if state == BODY:
            self.left -= len(data)
            if self.left <= 0:
                self._complete()
            return
        if state == CHUNKED:
            self.buf += data
            self._chunks()
            return
        if state == PARSED_HEAD or state == PARSED_BODY:
            self._feed(data)
        # UNTIL_CLOSE: count the bytes, finish at EOF.

    def stream(self, recv: Callable[[int], bytes], send: Callable[[bytes], object], size: int,
               timers: list[tuple[int, Any, Any, Any]]) -> bytes:
        """Read responses while each is framed like the last one and the closed loop goes on, and
        return the first read this does not book itself (EOF included), for `data_received`.

        Why: with one kept-alive connection on a blocking socket every microsecond between a
        response and the next request is added to each round trip; this books a response framed
        as the previous one and sends the next request with the counters in local variables (the
        load's are brought up to date on the way out), where `data_received`, `_complete` and the
        transport's write are three Python calls and a few dozen attribute look-ups per response.
        It stops before booking a response when the load's end, its request budget or the first
        of the loop's `timers` (a heap) is due, and leaves that response to the general path.
        """
        data = recv(size)
        load = self.load
        shape_len = self.shape_len
        if (len(data) != shape_len or self.state != HEAD or self.buf or self.close_after
                or load.again is None or load.stopping):
            return data
        at, tail, last, req, book = self.shape_at, self.shape_tail, self.shape_last, load.again, load.book
        end, budget, start, done = load.end_ns, load.count_limit - load.started, self.start, 0
        try:
            while data == last or framed_alike(data, at, tail):
                last = data
                now = _now()
                if now >= end or done >= budget or (timers and timers[0][0] <= now):
                    break
                value, start = now - start, now
                done += 1
                try:
                    send(req)  # first, so that the server works on it while this one is booked
                finally:
                    book(value)
                data = recv(size)
                if len(data) != shape_len:
                    break
        finally:
            if done:
                load.bytes += done * shape_len
                load.started += done
                load.completed += done
                load.n200 += done
                self.start = self.sent_at = start
                self.request = req
                self.status = 200
            self.shape_last = last
        return data

    def _head(self, data: bytes, n: int) -> None:
        """A response head, whole or in part: its status, its framing (Content-Length, chunked, or
        until close), whether the connection closes after it, and the shape of a plain response
        for the fast path of the next one."""
        if not self.buf and not self.request.startswith(b"HEAD "):
            if self.parser is None and httptools_module() is not None:
                self.parser = httptools_module().HttpResponseParser(self)
            if self.parser is not None:
                self._parse(data, n)
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
        self.close_after = response_closes(buf, end)
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
                    self.shape_last = data
                self._complete()
                return
            if self._bodiless(status):
                self._complete()  # no body, whatever Content-Length says
                return
            self.left = length - have
            self.state = BODY
            return
        head = buf[:end].lower()
        rest = buf[end + 4 :]
        if self._bodiless(status):
            self._complete()
            return
        if b"\r\ntransfer-encoding:" in head and b"chunked" in head:
            self.state = CHUNKED
            self.buf = rest
            self._chunks()
            return
        self.state = UNTIL_CLOSE
        self.close_after = True
        return

    def _parse(self, data: bytes, n: int) -> None:
        """The first bytes of a response, fed to httptools; a response that came whole, 200 and
        kept alive, gives the shape of the fast path, as in `_head`."""
        load = self.load
        before = load.completed
        self.state = PARSED_HEAD
        self.buf = data
        self._feed(data)
        if load.completed != before and self.status == 200 and not self.close_after:
            i = data.find(b"\r\nContent-Length:")
            if i >= 0:
                self.shape_len, self.shape_at, self.shape_tail = n, i, data[i:]
                self.shape_last = data

    def _feed(self, data: bytes) -> None:
        if self.state == PARSED_HEAD and self.buf is not data:
            self.buf += data  # the head so far (read once, if the connection closes after it)
        httptools = httptools_module()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError as exc:
            # An exception in a callback of this class (Ctrl-C included) is not the server's fault.
            raise (exc.__context__ or exc) from None
        except httptools.HttpParserError:
            self._broken("protocol")

    def on_headers_complete(self) -> None:
        """httptools: the head is read; whether the connection closes after this response, and
        whether the body runs until it does (no Content-Length, not chunked)."""
        parser = self.parser
        self.status = parser.get_status_code()
        self.close_after = not parser.should_keep_alive()
        if self.close_after:
            buf = self.buf
            head = buf[: buf.find(b"\r\n\r\n")].lower()
            if (b"\r\ncontent-length:" not in head and b"\r\ntransfer-encoding:" not in head
                    and not self._bodiless(self.status)):
                self.state = UNTIL_CLOSE  # not fed any more: complete at EOF
                self.buf = b""
                return
        self.state = PARSED_BODY
        self.buf = b""

    def on_message_complete(self) -> None:
        if self.state == PARSED_BODY:
            self._complete()

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
            self.state = HEAD
            self.request = req = load.single or load.next_request()
            self.transport.write(req)  # type: ignore[union-attr]
        load.book(value)  # into the histogram at the end (Load.fold_latencies)
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
            self.state = DEAD
            transport = self.transport
            self.transport = None
            if transport is not None:
                transport.close()
            load.after(self, now)
            return
        if load.fast:
            # The closed loop's budget is spent: this connection rests.
            load.busy -= 1
            self.state = IDLE
            load.check_done()
            return
        load.busy -= 1
        if not load.spec.keepalive:
            self.state = DEAD
            transport = self.transport
            self.transport = None
            if transport is not None:
                transport.close()
        else:
            self.state = IDLE
        load.after(self, now)

    def _broken(self, kind: str) -> None:
        load = self.load
        if self.state not in (IDLE, DEAD):
            load.fail(kind)
            load.busy -= 1
        self.state = DEAD
        transport = self.transport
        self.transport = None
        if transport is not None:
            transport.abort()
        load.after(self, _now())

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is None and self.state == DEAD:
            return
        load = self.load
        if self.state == UNTIL_CLOSE and exc is None and not self.timed_out:
            self.close_after = True
            self._complete()
            return
        if self.state in (IDLE, DEAD):
            # An idle keep-alive connection closed by the server: reopen only if more is to come.
            self.state = DEAD
            self.transport = None
            if not self.waiting:
                load.after(self, _now())
            return
        if (self.state == HEAD and not self.buf and not self.timed_out and self.sent_at != self.opened_at
                and not load.stopping and not self.request.startswith((b"POST ", b"PATCH "))):
            self._replay()
            return
        self.transport = None
        self._broken("timeout" if self.timed_out else "reset")

    def _replay(self) -> None:
        """The server closed this kept-alive connection after the last response without saying so,
        and the request sent since got no byte back: send it again on a new connection, as HTTP
        clients do for a request that is not a POST or PATCH (RFC 9112 §9.3.1). It keeps its start
        time, so the wait and the reconnect count in its latency; a new connection is never
        replayed, so a server that fails requests still shows as failing."""
        load = self.load
        self.transport = None
        self.state = DEAD
        load.server_closes += 1
        load.busy -= 1
        load.started -= 1  # begun again by `open`
        load.conns.discard(self)
        fresh = Connection(load)
        fresh.next_slot = self.next_slot
        load.open(fresh, self.start, self.request)
