"""The scheduler of one load: its budget (count, duration, time limit), its schedule (closed loop,
or the open loop's fixed slots per connection), its counters, and the connections it opens.

It runs on any loop that offers `EngineLoop` (asyncio through engine.py's adapter, or the
blocking socket loop); the HTTP/1 work of each connection is http1.py's `Connection`.
"""

from __future__ import annotations

import asyncio
import ssl
from array import array
import time
from typing import Any, Callable, Protocol, Sequence

from pairbench.runners.http.histogram import Histogram
from pairbench.runners.http.http1 import DEAD, IDLE, Connection
from pairbench.runners.http.spec import LoadSpec, RequestSpec

__all__ = ["EngineLoop", "Load", "weighted_sequence", "start_load", "finish_load", "report_progress"]

_now = time.perf_counter_ns

# Consecutive failed connects (no response in between) after which the target is declared down.
_MAX_CONNECT_FAILURES = 50
_CONNECT_BACKOFF_S = 0.01
_DRAIN_GRACE_S = 1.0
_DRAIN_GRACE_SHARE = 0.1
"""Open loop: requests in flight when the duration ends may finish within max(1 s, 10% of the
duration) (never beyond the per-request timeout); then they count as timed out."""
_FOLD_AT = 1 << 20
"""Booked latencies (8 bytes each) the watchdog folds into the histogram: memory stays bounded."""


def weighted_sequence(requests: Sequence[RequestSpec], keepalive: bool) -> list[bytes]:
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


class EngineLoop(Protocol):
    """What the engine needs of an event loop (asyncio through _AsyncioLoop, or BlockingLoop)."""

    def create_future(self) -> Any: ...
    def call_later(self, delay: float, fn: Callable[..., None], *args: Any) -> None: ...
    def connect(self, host: str, port: int, protocol: Connection, timeout: float,
                on_error: Callable[[OSError], None]) -> None: ...



class Load:
    """Shared state of one load: the schedule, the counters and the connections."""

    __slots__ = ("spec", "loop", "host", "port", "sequence", "seq_i", "hist", "latencies", "book", "n200", "fast", "count_limit", "single", "again", "status_counts", "errors", "bytes",
                 "completed", "server_closes", "started", "busy", "connect_failures", "conns", "done", "aborted", "stopping",
                 "interrupted", "t0", "t_end", "deadline_ns", "end_ns", "interval_ns", "progress", "unsent", "grace_ns")

    def __init__(self, spec: LoadSpec, loop: EngineLoop, progress: Callable[[float], None] | None):
        self.spec = spec
        self.loop = loop
        self.host, self.port = spec.requests[0].host_port()
        self.sequence = weighted_sequence(spec.requests, spec.keepalive)
        self.seq_i = 0
        self.hist = Histogram()
        # Latencies are booked here while the load runs (one C append per response, where the
        # histogram's bucketing is a dozen Python steps); `fold_latencies` moves them over.
        self.latencies = array("q")
        self.book = self.latencies.append
        self.n200 = 0
        self.fast = spec.rate is None and spec.keepalive
        self.count_limit = spec.count if spec.count is not None else 1 << 62
        self.single = self.sequence[0] if len(self.sequence) == 1 else None
        self.again = self.single if self.fast else None
        """The request a closed keep-alive loop on one URL sends again as soon as a response is
        in (None: a mix or an open loop): one test on the fast path instead of two."""
        self.status_counts: dict[int, int] = {}
        self.errors: dict[str, int] = {}
        self.bytes = 0
        self.completed = 0
        self.server_closes = 0
        self.started = 0  # requests begun (count mode budget)
        self.busy = 0
        self.connect_failures = 0
        self.conns: set[Connection] = set()
        self.done = loop.create_future()
        self.aborted = ""
        self.stopping = False
        self.interrupted = False
        self.t0 = 0
        self.t_end = 0
        self.deadline_ns = 0
        self.end_ns = 1 << 62
        """`deadline_ns`, or far away when there is none, or 0 once the load is stopping: one
        comparison on the hot path says whether a next request may go at once."""
        self.interval_ns = 0
        self.progress = progress
        self.unsent = 0
        """Open loop: requests the schedule had before the deadline that were not sent by then
        (the server, or the client, could not keep up); they are not sent after it."""
        self.grace_ns = 0
        """Open loop: how long after the deadline requests in flight may still finish."""

    def fold_latencies(self) -> None:
        """Move the booked latencies into the histogram (same counts, sum, min and max)."""
        self.hist.record_values(self.latencies)
        del self.latencies[:]  # in place: `book` stays bound to it

    def finish_histogram(self) -> None:
        self.fold_latencies()
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
    def open(self, conn: Connection, start_ns: int, request: bytes | None = None) -> None:
        """Begin a request (the next one, or `request` again) on a new connection; the connect
        time counts in its latency, as in ab."""
        conn.pending = True
        conn.start = start_ns
        conn.request = self.next_request() if request is None else request
        self.started += 1
        self.busy += 1
        self.loop.connect(self.host, self.port, conn, self.spec.timeout, lambda exc: self.connect_failed(conn, exc))

    def connect_failed(self, conn: Connection, exc: OSError) -> None:
        conn.pending = False
        conn.state = DEAD
        self.busy -= 1
        self.fail("connect")
        self.connect_failures += 1
        # A certificate that does not verify fails every connect alike: stop at the first one.
        if isinstance(exc, ssl.SSLCertVerificationError) or (
                self.connect_failures >= _MAX_CONNECT_FAILURES and self.completed == 0):
            self.aborted = f"cannot connect to {self.host}:{self.port}: {_reason(exc)}"
            self.stopping = True
            self.end_ns = 0
            self.t_end = _now()
            self.check_done()
            return
        self.loop.call_later(_CONNECT_BACKOFF_S, self._retry, conn)

    def _retry(self, conn: Connection) -> None:
        self.after(conn, _now())

    def after(self, conn: Connection, now: int) -> None:
        """A connection finished a request (or failed): start its next one if the budget allows."""
        spec = self.spec
        if spec.rate is None:
            if self.may_start(now):
                if conn.state == DEAD:
                    self.conns.discard(conn)
                    self.open(Connection(self), now)
                else:
                    conn.send(now)
                    return  # busy again: not done
            self.check_done()
            return
        # Open loop: the connection's next slot on the fixed schedule.
        intended = conn.next_slot
        if self.deadline_ns and now >= self.deadline_ns > intended and not self.interrupted:
            self._give_up_slots(conn, intended)
            self.check_done()
            return
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

    def _give_up_slots(self, conn: Connection, intended: int) -> None:
        """The duration is over with this connection's slots from `intended` on still due: they are
        counted as not sent, and not sent late (which would stretch the load far past its duration)."""
        slots = -(-(self.deadline_ns - intended) // self.interval_ns)
        if self.spec.count is not None:
            slots = max(0, min(slots, self.spec.count - self.started - self.unsent))
        self.unsent += slots
        conn.next_slot = self.deadline_ns

    def _send_scheduled(self, conn: Connection, intended: int) -> None:
        conn.waiting = False
        if self.stopping or self.done.done():
            return
        if conn.state == DEAD:
            self.conns.discard(conn)
            fresh = Connection(self)
            fresh.next_slot = conn.next_slot
            self.open(fresh, intended)
        else:
            conn.send(intended)

    def interrupt(self) -> None:
        """SIGINT during the load: stop at once, drop what is in flight."""
        self.interrupted = True
        self.stopping = True
        self.end_ns = 0
        for conn in list(self.conns):
            if conn.transport is not None:
                conn.transport.abort()
        if not self.done.done():
            self.t_end = _now()
            self.done.set_result(None)

    def _abort_in_flight(self) -> None:
        """End the load now: what is still in flight counts as timed out."""
        self.stopping = True
        self.end_ns = 0
        for conn in list(self.conns):
            if conn.transport is not None and conn.state not in (IDLE, DEAD):
                conn.timed_out = True
                conn.transport.abort()

    def watchdog(self) -> None:
        """Abort requests older than the timeout; stop at the hard time limit."""
        if self.done.done():
            return
        now = _now()
        limit = int(self.spec.timeout * 1e9)
        for conn in list(self.conns):
            if conn.state not in (IDLE, DEAD) and now - conn.sent_at > limit and conn.transport is not None:
                conn.timed_out = True
                conn.transport.abort()
        if self.grace_ns and now > self.deadline_ns + self.grace_ns and not self.stopping:
            # Open loop: the drain after the duration is over; what is still in flight timed out.
            self._abort_in_flight()
        if (now - self.t0) / 1e9 > self.spec.max_time and not self.stopping:
            self.aborted = f"stopped at the time limit of {self.spec.max_time:g} s"
            self._abort_in_flight()
        if len(self.latencies) >= _FOLD_AT:
            self.fold_latencies()
        self.check_done()
        if not self.done.done():
            self.loop.call_later(min(0.1, self.spec.timeout / 4), self.watchdog)


def start_load(load: Load) -> None:
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
        load.interval_ns = max(1, int(spec.connections / spec.rate * 1e9))
        if load.deadline_ns:
            span = (load.deadline_ns - load.t0) / 1e9
            load.grace_ns = int(min(spec.timeout, max(_DRAIN_GRACE_S, _DRAIN_GRACE_SHARE * span)) * 1e9)
    n_conns = spec.connections if spec.count is None else min(spec.connections, spec.count)
    for i in range(n_conns):
        conn = Connection(load)
        if spec.rate is None:
            load.open(conn, _now())
        else:
            # Stagger the connections' schedules evenly over one interval.
            conn.next_slot = load.t0 + int(i * 1e9 / spec.rate)
            conn.state = DEAD
            load.after(conn, _now())
    load.loop.call_later(min(0.1, spec.timeout / 4), load.watchdog)
    if load.progress is not None:
        report_progress(load, load.t0, 0)


def finish_load(load: Load) -> None:
    if not load.t_end:
        load.t_end = _now()
    load.finish_histogram()
    for conn in load.conns:
        if conn.transport is not None:
            conn.transport.close()


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"certificate not verified ({exc.verify_message}); give --insecure to accept it"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
        return "connect timed out"
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def report_progress(load: Load, last_t: int, last_n: int) -> None:
    if load.done.done() or load.progress is None:
        return
    now = _now()
    if now > last_t and last_n >= 0 and now - load.t0 > 0:
        if last_t != load.t0 or last_n:
            load.progress((load.completed - last_n) * 1e9 / (now - last_t))
    load.loop.call_later(0.5, report_progress, load, now, load.completed)
