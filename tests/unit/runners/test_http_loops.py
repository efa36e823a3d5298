"""The engine's blocking loop on a stand-in socket: what it does per response."""

from __future__ import annotations

from typing import Any

import pytest

from pairbench.runners.http import blocking_loop
from pairbench.runners.http.scheduler import Load, finish_load, start_load
from pairbench.runners.http.spec import LoadSpec, RequestSpec

RESP = b"HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello"


class _Sock:
    """Always a whole response to read; every write taken."""

    def __init__(self) -> None:
        self.reads = 0
        self.sendall = len

    def recv(self, size: int) -> bytes:
        self.reads += 1
        return RESP

    def close(self) -> None:
        pass


def _load(count: int) -> tuple[blocking_loop.BlockingLoop, Load, _Sock]:
    loop = blocking_loop.BlockingLoop()
    sock = _Sock()

    def connect(host: str, port: int, protocol: Any, timeout: float, on_error: Any) -> None:
        loop.current = t = blocking_loop._SocketTransport(loop, sock, protocol)  # type: ignore[arg-type]
        protocol.connection_made(t)

    loop.connect = connect  # type: ignore[method-assign]
    load = Load(LoadSpec(requests=(RequestSpec("http://127.0.0.1:1/"),), count=count), loop, None)
    return loop, load, sock


def test_the_blocking_loop_reads_the_clock_for_its_timers_once_in_many_responses(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real = blocking_loop._now
    reads = [0]

    def counted() -> int:
        reads[0] += 1
        return real()

    monkeypatch.setattr(blocking_loop, "_now", counted)
    loop, load, sock = _load(3200)
    start_load(load)
    loop.run_until(load.done)
    finish_load(load)
    assert load.completed == 3200 and load.hist.count == 3200 and not load.errors
    assert reads[0] <= 3200 // blocking_loop._TIMER_EVERY + 50, reads[0]


def test_a_timer_set_while_responses_stream_in_runs_within_a_few_of_them() -> None:
    loop, load, sock = _load(1 << 30)
    ran_at: list[int] = []

    def due() -> None:
        ran_at.append(sock.reads)
        load.interrupt()

    read = sock.recv

    def recv(size: int) -> bytes:
        if sock.reads == 500:
            loop.call_later(0, due)
        return read(size)

    sock.recv = recv  # type: ignore[method-assign]
    start_load(load)
    loop.run_until(load.done)
    assert ran_at and 500 < ran_at[0] <= 501 + blocking_loop._TIMER_EVERY, ran_at


def test_responses_streamed_on_one_connection_are_each_booked_once_with_their_status_and_bytes() -> None:
    """The blocking loop books responses framed like the last one itself (Connection.stream): a
    response that differs — another status, another Date of the same length, another length —
    goes through the full path, and the counters agree with a response-by-response count."""
    other_date = RESP.replace(b"nginx", b"nginy")
    not_found = RESP.replace(b"200 OK", b"404 OK")
    longer = b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nhello!!"
    script = [RESP] * 5 + [not_found] + [RESP] * 3 + [other_date] * 4 + [longer, RESP] + [RESP] * 6
    loop, load, sock = _load(len(script))
    reads = iter(script)

    def recv(size: int) -> bytes:
        sock.reads += 1
        return next(reads)

    sock.recv = recv  # type: ignore[method-assign]
    start_load(load)
    loop.run_until(load.done)
    finish_load(load)
    assert load.completed == len(script) == load.hist.count and not load.errors
    assert load.status_counts == {200: len(script) - 1, 404: 1}
    assert load.bytes == sum(len(r) for r in script)
    assert load.started == len(script) and sock.reads == len(script)
