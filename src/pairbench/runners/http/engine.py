"""The built-in HTTP/1.1 load engine: its own epoll loop with a C step, or raw asyncio protocols.

Why: the client's CPU per request decides how hard one core can push a server. A client library
(httpx, aiohttp) spends tens of microseconds per request in Python; here a request is one
pre-encoded `bytes` and a response framed like the last one is recognised without a parse. In
a closed keep-alive loop on one URL (ab's and wrk's load) the epoll loop's C step
(_fastpath.c, selector_loop.py) reads each such response, books it and sends the next request
without entering Python, over plain http and TLS alike, at about wrk's CPU per request
(docs/http.md). Every other load, and every load when the C step was not built, runs on the
loops that serve it best without it: a blocking socket for one kept-alive connection
(blocking_loop.py: two system calls per request), the epoll loop over non-blocking `SSLSocket`s
for https, uvloop (asyncio's loop without it) for plain http.

Two modes:
- **closed loop** (ab, siege, wrk): `connections` clients each send a request, wait for the
  answer, send the next; for `count` requests in all or for `duration` seconds;
- **open loop** (wrk2): `rate` requests/s on a fixed schedule spread over the connections; a
  request's latency runs from its *intended* send time, so a stalled server is charged for the
  requests it delayed (coordinated omission corrected). It ends with its duration: requests not
  sent by then are counted (`unsent`), not sent late, and those in flight get a bounded grace
  (scheduler.py), so a server that cannot keep up does not stretch the load to many times it.

Every loop is bounded: by `count` or `duration`, by a per-request `timeout`, by `max_time` for
the whole load, and by giving up when the target refuses connections again and again.

The parts:
    spec.py        the load types (RequestSpec, LoadSpec, LoadResult), shared with wrk.py
    scheduler.py   one load's budget, schedule, counters and connections (any loop)
    http1.py       one connection: HTTP/1 framing and the per-request bookkeeping
    blocking_loop.py, selector_loop.py   the engine's own loops (one connection; epoll)
    _fastpath.c    the epoll loop's C step
    engine.py      this module: the event-loop glue, the choice of loop and `run_load`
"""

from __future__ import annotations

import asyncio
import resource
import signal
import ssl
from typing import Any, Callable
from urllib.parse import urlsplit

from pairbench import interrupts
from pairbench.runners.http.blocking_loop import BlockingLoop
from pairbench.runners.http.http1 import Connection
from pairbench.runners.http.scheduler import Load, finish_load, start_load
from pairbench.runners.http.selector_loop import SelectorLoop, has_c_step
from pairbench.runners.http.spec import LoadResult, LoadSpec, RequestSpec
from pairbench.runners.http.tls import client_context

__all__ = ["RequestSpec", "LoadSpec", "LoadResult", "run_load", "loop_for", "choose_loop", "loop_label",
           "new_event_loop", "engine_loop_name"]


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


class _AsyncioLoop:
    """The engine's loop interface on asyncio (uvloop when installed): several connections or an open loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, tls: ssl.SSLContext | None = None) -> None:
        self.aio = loop
        self.tls = tls
        """https: every connection's handshake runs inside its connect, so it counts in the latency
        of the connection's first request (as ab counts it), not in the requests kept alive after."""

    def create_future(self) -> asyncio.Future[None]:
        return self.aio.create_future()

    def call_later(self, delay: float, fn: Callable[..., None], *args: Any) -> None:
        self.aio.call_later(delay, fn, *args)

    def connect(self, host: str, port: int, protocol: Connection, timeout: float,
                on_error: Callable[[OSError], None]) -> None:
        self.aio.create_task(self._connect(host, port, protocol, timeout, on_error))

    async def _connect(self, host: str, port: int, protocol: Connection, timeout: float,
                       on_error: Callable[[OSError], None]) -> None:
        try:
            if self.tls is None:
                connecting = self.aio.create_connection(lambda: protocol, host, port)
            else:
                connecting = self.aio.create_connection(lambda: protocol, host, port, ssl=self.tls,
                                                        server_hostname=host)
            await asyncio.wait_for(connecting, timeout)
        except (OSError, asyncio.TimeoutError) as exc:
            on_error(exc if isinstance(exc, OSError) else TimeoutError("connect timed out"))

    async def run(self, load: Load) -> None:
        start_load(load)
        # Ctrl-C: a KeyboardInterrupt raised inside a protocol callback is swallowed by the loop
        # (uvloop reports it as a transport error), so SIGINT is turned into a stop here and
        # re-raised after.
        previous = {sig: signal.getsignal(sig) for sig in interrupts.SIGNALS}
        for sig in interrupts.SIGNALS:
            try:
                self.aio.add_signal_handler(sig, _on_signal, load, sig)
            except (ValueError, RuntimeError, NotImplementedError):
                pass
        try:
            await load.done
        finally:
            for sig in interrupts.SIGNALS:
                try:
                    self.aio.remove_signal_handler(sig)
                    # remove_signal_handler leaves SIG_DFL: the CLI's policy comes back instead.
                    if previous[sig] is not None:
                        signal.signal(sig, previous[sig])
                except (ValueError, RuntimeError, NotImplementedError):
                    pass
        finish_load(load)


def _on_signal(load: Load, sig: int) -> None:
    interrupts.record(sig)
    load.interrupt()


def _tls(spec: LoadSpec) -> ssl.SSLContext | None:
    """The client context of an https load (None for plain http)."""
    https = urlsplit(spec.requests[0].url).scheme == "https"
    return client_context(spec.insecure) if https else None


def _run_asyncio(spec: LoadSpec, progress: Callable[[float], None] | None) -> Load:
    aio = new_event_loop()
    loop = _AsyncioLoop(aio, _tls(spec))
    load = Load(spec, loop, progress)
    try:
        aio.run_until_complete(loop.run(load))
        # Let the closed transports finish before the loop goes away.
        aio.run_until_complete(asyncio.sleep(0))
    finally:
        for task in asyncio.all_tasks(aio):
            task.cancel()
        aio.close()
    return load


def _run_own(spec: LoadSpec, progress: Callable[[float], None] | None, kind: type[BlockingLoop | SelectorLoop]) -> Load:
    """A load on one of the engine's own loops (the blocking socket, or epoll)."""
    loop = kind(_tls(spec))
    load = Load(spec, loop, progress)
    if isinstance(loop, SelectorLoop) and load.again is not None:
        loop.fast = load
    try:
        with loop.stopping_on_signals(load.interrupt):
            start_load(load)
            loop.run_until(load.done)
        finish_load(load)
    finally:
        loop.close()
    return load


def loop_for(spec: LoadSpec) -> str:
    """The loop that serves a load best (docs/http.md has the figures); see `choose_loop`."""
    https = urlsplit(spec.requests[0].url).scheme == "https"
    return choose_loop(spec.connections, spec.rate, spec.keepalive, https, len(spec.requests))


def choose_loop(connections: int, rate: float | None, keepalive: bool, https: bool, urls: int) -> str:
    """epoll with its C step for a closed keep-alive loop on one URL (it books the responses
    itself); else the blocking socket for one kept-alive connection in a closed loop; epoll over
    `SSLSocket`s for any other https load, where an event loop's TLS transport costs far more CPU
    per request; uvloop (or asyncio) for the rest of plain http."""
    closed = rate is None and keepalive
    if closed and urls == 1 and has_c_step():
        return "selector"
    if connections == 1 and closed:
        return "blocking"
    return "selector" if https else "asyncio"


LOOP_LABELS = {"blocking": "blocking socket", "selector": "epoll"}
"""How the run file names the engine's own loops (`metadata.http_engine`)."""


def loop_label(loop: str, https: bool, closed: bool) -> str:
    """The run file's name of a loop: with the C step (a `closed` keep-alive loop) or over TLS
    sockets, or the event loop's own."""
    if loop == "selector":
        return "epoll, C step" if closed and has_c_step() else ("epoll over TLS sockets" if https else "epoll")
    return LOOP_LABELS.get(loop) or engine_loop_name()


def run_load(spec: LoadSpec, progress: Callable[[float], None] | None = None, loop: str = "auto") -> LoadResult:
    """Apply the load and return what it measured.

    Args:
        spec: the requests and the shape of the load.
        progress: called about twice a second with the current requests/s.
        loop: "asyncio" (uvloop when installed), "selector" (epoll over the sockets), "blocking"
            (one kept-alive connection in a closed loop only), or "auto": `loop_for(spec)`.
    """
    if loop not in ("auto", "blocking", "asyncio", "selector"):
        raise ValueError(f"unknown engine loop {loop!r}")
    if spec.http2:
        from pairbench.runners.http.http2 import run_h2_load

        https = urlsplit(spec.requests[0].url).scheme == "https"
        tls = client_context(spec.insecure, http2=True) if https else None
        # Ctrl-C raises KeyboardInterrupt out of the loop, which is closed on the way out.
        return run_h2_load(spec, spec.streams, tls, new_event_loop)
    if loop == "blocking" and not (spec.connections == 1 and spec.rate is None and spec.keepalive):
        raise ValueError("the blocking loop runs one kept-alive connection in a closed loop only")
    loop = loop_for(spec) if loop == "auto" else loop
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    if loop == "asyncio":
        load = _run_asyncio(spec, progress)
    else:
        load = _run_own(spec, progress, BlockingLoop if loop == "blocking" else SelectorLoop)
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
        unsent=load.unsent if spec.rate is not None else None,
    )
