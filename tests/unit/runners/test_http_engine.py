"""The engine's parser and bookkeeping, driven by hand through a fake transport (no sockets)."""

from __future__ import annotations

import time
from typing import Any, Iterator

import pytest

from pairbench.runners.http import http1
from pairbench.runners.http.blocking_loop import _Flag
from pairbench.runners.http.http1 import Connection
from pairbench.runners.http.scheduler import Load, weighted_sequence
from pairbench.runners.http.spec import LoadSpec, RequestSpec


@pytest.fixture(autouse=True, params=["httptools", "hand"])
def parser(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every test of the framing runs on both parsers of a full response."""
    http1.use_response_parser(request.param)
    assert http1.response_parser() == request.param
    yield request.param
    http1.use_response_parser("httptools")


class _FakeLoop:
    def __init__(self) -> None:
        self.later: list[tuple[float, Any]] = []

    def create_future(self) -> _Flag:
        return _Flag()

    def call_later(self, delay: float, fn: Any, *args: Any) -> None:
        self.later.append((delay, fn))

    def connect(self, host: str, port: int, protocol: Any, timeout: float, on_error: Any) -> None:
        pass  # the tests make the connection by hand


class _Transport:
    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.closed = False
        self.aborted = False

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True


def _setup(count: int = 3, keepalive: bool = True, method: str = "GET") -> tuple[Load, Connection, _Transport]:
    spec = LoadSpec(requests=(RequestSpec("http://127.0.0.1:8000/x", method=method),), count=count,
                    keepalive=keepalive)
    load = Load(spec, _FakeLoop(), None)  # type: ignore[arg-type]
    conn = Connection(load)
    load.open(conn, time.perf_counter_ns())
    t = _Transport()
    conn.connection_made(t)  # type: ignore[arg-type]
    return load, conn, t


RESP = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello"


def test_content_length_response_in_one_piece_and_keepalive_reuse() -> None:
    load, conn, t = _setup()
    assert t.written[0].startswith(b"GET /x HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n")
    conn.data_received(RESP)
    load.finish_histogram()
    assert load.completed == 1 and load.status_counts == {200: 1}
    assert len(t.written) == 2  # the next request went out on the same connection
    conn.data_received(RESP[:10])
    conn.data_received(RESP[10:-2])
    assert load.completed == 1
    conn.data_received(RESP[-2:])
    conn.data_received(RESP)
    load.finish_histogram()
    assert load.completed == 3 and load.bytes == 3 * len(RESP)
    assert load.done.done() and load.hist.count == 3 and load.status_counts == {200: 3}
    assert 0 < load.hist.min_ns <= load.hist.max_ns and load.hist.total_ns >= load.hist.max_ns


def test_chunked_response_split_anywhere() -> None:
    body = b"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nwiki\r\n5;x=1\r\npedia\r\n0\r\n\r\n"
    for cut in range(1, len(body)):
        load, conn, _ = _setup(count=1)
        conn.data_received(body[:cut])
        conn.data_received(body[cut:])
        assert load.completed == 1, cut
        assert load.status_counts == {404: 1}


def test_close_per_request_opens_a_new_connection() -> None:
    load, conn, t = _setup(count=2, keepalive=False)
    assert b"Connection: close\r\n" in t.written[0]
    conn.data_received(RESP)
    assert t.closed and load.completed == 1
    assert load.started == 2  # a second connection was begun
    assert conn not in load.conns and len(load.conns) == 1


def test_response_without_length_ends_at_close() -> None:
    load, conn, _ = _setup(count=1)
    conn.data_received(b"HTTP/1.0 200 OK\r\n\r\nsome")
    conn.data_received(b" more")
    assert load.completed == 0
    conn.connection_lost(None)
    assert load.completed == 1 and load.errors == {}


def test_reset_mid_response_and_timeout_are_counted_by_kind() -> None:
    load, conn, _ = _setup(count=2)
    conn.data_received(RESP[:20])
    conn.connection_lost(ConnectionResetError())
    assert load.errors == {"reset": 1}
    load2, conn2, t2 = _setup(count=1)
    conn2.timed_out = True
    conn2.connection_lost(None)
    assert load2.errors == {"timeout": 1} and load2.done.done()


def test_garbage_status_line_is_a_protocol_error() -> None:
    load, conn, t = _setup(count=1)
    conn.data_received(b"SSH-2.0-OpenSSH\r\n\r\n")
    assert load.errors == {"protocol": 1} and t.aborted


def test_head_request_has_no_body() -> None:
    load, conn, _ = _setup(count=1, method="HEAD")
    conn.data_received(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")
    assert load.completed == 1


def test_weighted_mix_meets_the_shares() -> None:
    reqs = (RequestSpec("http://h:1/a", weight=3), RequestSpec("http://h:1/b", weight=1))
    seq = weighted_sequence(reqs, True)
    a = sum(1 for s in seq if s.startswith(b"GET /a "))
    assert a / len(seq) == pytest.approx(0.75, abs=0.01)
    # Spread out, not all the a's first.
    assert seq[:4].count(seq[0]) < 4


def test_request_encoding_with_body_and_headers() -> None:
    r = RequestSpec("http://example.test/p?q=1", method="POST", headers=(("X-A", "1"),), body=b"abc")
    wire = r.encode(keepalive=True)
    assert wire.startswith(b"POST /p?q=1 HTTP/1.1\r\nHost: example.test\r\n")
    assert b"X-A: 1\r\n" in wire and wire.endswith(b"Content-Length: 3\r\n\r\nabc")


@pytest.mark.parametrize("kwargs, message", [
    ({"connections": 0, "count": 1}, "connections"),
    ({}, "count or a duration"),
    ({"count": 1, "timeout": 0}, "timeout"),
])
def test_load_spec_rejects_bad_settings(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LoadSpec(requests=(RequestSpec("http://h:1/"),), **kwargs)


def test_all_requests_must_share_host_and_port() -> None:
    with pytest.raises(ValueError, match="same host"):
        LoadSpec(requests=(RequestSpec("http://h:1/"), RequestSpec("http://h:2/")), count=1)


NGINX_LIKE = (b"HTTP/1.1 200 OK\r\nServer: nginx\r\nDate: Mon, 30 Nov 2026 19:44:07 GMT\r\n"
              b"Content-Length: 5\r\nConnection: keep-alive\r\n\r\nhello")


def _variant(resp: bytes, old: bytes, new: bytes) -> bytes:
    out = resp.replace(old, new)
    assert len(out) == len(resp)
    return out


def test_repeated_framing_takes_the_fast_path_but_never_misreads_a_different_response() -> None:
    load, conn, t = _setup(count=10)
    conn.data_received(NGINX_LIKE)
    assert conn.shape_len == len(NGINX_LIKE)  # learnt from a plain, complete response
    # Same framing, another Date: complete at once.
    conn.data_received(_variant(NGINX_LIKE, b"19:44:07", b"19:44:08"))
    assert load.completed == 2 and len(t.written) == 3
    # Same length, but a 500: counted as a 500, not as a 200.
    conn.data_received(_variant(NGINX_LIKE, b"200 OK", b"500 OK"))
    load.finish_histogram()
    assert load.status_counts == {200: 2, 500: 1}
    # Same length and tail, but "Connection: close" before the Content-Length header: the
    # connection is closed after it, as the server asked.
    old = b"Server: nginx\r\nDate: Mon, 30 Nov 2026 19:44:07 GMT"
    new = b"Connection: close\r\nX: "
    closing = _variant(NGINX_LIKE, old, new + b"x" * (len(old) - len(new)))
    conn.data_received(closing)
    assert load.completed == 4 and t.closed


def test_same_length_with_a_longer_body_is_not_taken_for_complete() -> None:
    load, conn, _ = _setup(count=10)
    conn.data_received(NGINX_LIKE)
    # Same total length, but the head is shorter and announces more body: not complete yet.
    other = b"HTTP/1.1 200 OK\r\nDate: x\r\nContent-Length: 99\r\n\r\n"
    body_here = len(NGINX_LIKE) - len(other)
    other += b"y" * body_here
    assert len(other) == len(NGINX_LIKE) and body_here < 99
    conn.data_received(other)
    assert load.completed == 1
    conn.data_received(b"y" * (99 - body_here))
    assert load.completed == 2


def test_head_response_with_content_length_has_no_body() -> None:
    load, conn, _ = _setup(count=1, method="HEAD")
    conn.data_received(b"HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n")
    assert load.completed == 1 and load.done.done()


def test_next_request_is_sent_before_the_last_one_is_booked() -> None:
    load, conn, t = _setup(count=3)
    booked_when_sent: list[int] = []
    write = t.write

    def spy(data: bytes) -> None:
        booked_when_sent.append(load.completed)
        write(data)

    t.write = spy  # type: ignore[method-assign]
    conn.data_received(RESP)
    assert booked_when_sent == [0] and load.completed == 1


HTTP10 = b"HTTP/1.0 200 OK\r\nServer: SimpleHTTP/0.6\r\nContent-type: text/html\r\nContent-Length: 5\r\n\r\nhello"


def test_http10_response_is_complete_and_the_next_request_goes_on_a_new_connection() -> None:
    """python3 -m http.server answers HTTP/1.0 with a Content-Length and closes: nothing failed."""
    load, conn, t = _setup(count=3)
    conn.data_received(HTTP10)
    assert load.completed == 1 and load.errors == {} and load.server_closes == 1
    assert t.written == [t.written[0]] and t.closed  # nothing more sent on the closing connection
    assert conn not in load.conns and len(load.conns) == 1 and load.started == 2
    conn.connection_lost(None)  # the server's FIN arrives after: not a reset
    assert load.errors == {}


@pytest.mark.parametrize("header", [b"Connection: close", b"connection: Close", b"Connection: keep-alive, Close"])
def test_connection_close_in_any_spelling_ends_the_connection_after_the_response(header: bytes) -> None:
    load, conn, t = _setup(count=2)
    conn.data_received(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n" + header + b"\r\n\r\nok")
    assert load.completed == 1 and load.server_closes == 1 and t.closed and len(t.written) == 1
    conn.connection_lost(ConnectionResetError())  # whatever the socket says after a complete response
    assert load.errors == {}


def test_http10_with_keep_alive_and_plain_http11_keep_the_connection() -> None:
    for resp in (b"HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok",
                 b"HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", RESP):
        load, conn, t = _setup(count=2)
        conn.data_received(resp)
        assert load.completed == 1 and load.server_closes == 0 and not t.closed and len(t.written) == 2, resp


def test_http_runner_modules_are_rooms_of_the_right_size() -> None:
    """Issue 12 §4: modules under 500 lines, functions under 80; wrk.py borrows only the load types."""
    import ast
    from pathlib import Path

    import pairbench.runners.http as pkg

    too_long = []
    for path in sorted(Path(pkg.__file__).parent.glob("*.py")):
        text = path.read_text()
        if len(text.splitlines()) > 500:
            too_long.append(f"{path.name}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None:
                if node.end_lineno - node.lineno + 1 > 80:
                    too_long.append(f"{path.name}: {node.name}")
        if path.name == "wrk.py":
            imported = {n.module for n in ast.walk(ast.parse(text)) if isinstance(n, ast.ImportFrom)}
            assert "pairbench.runners.http.engine" not in imported
    assert too_long == []


class _ConnectingLoop(_FakeLoop):
    """Hands every new connection a fake transport at once, as the blocking loop does."""

    def __init__(self) -> None:
        super().__init__()
        self.transports: list[_Transport] = []

    def connect(self, host: str, port: int, protocol: Any, timeout: float, on_error: Any) -> None:
        self.transports.append(_Transport())
        protocol.connection_made(self.transports[-1])


def test_a_reused_connection_closed_before_any_byte_replays_the_request_on_a_new_one() -> None:
    """A server that closes after a response without saying so: the request that went out on the
    closing connection got no byte back; it is sent again on a new connection, not failed."""
    loop = _ConnectingLoop()
    load = Load(LoadSpec(requests=(RequestSpec("http://127.0.0.1:8000/x"),), count=3), loop, None)  # type: ignore[arg-type]
    load.open(Connection(load), time.perf_counter_ns())
    first = next(iter(load.conns))
    first.data_received(RESP)
    assert len(loop.transports[0].written) == 2  # the next request went out on the same connection
    first.connection_lost(ConnectionResetError())
    assert load.errors == {} and load.server_closes == 1 and len(loop.transports) == 2
    assert loop.transports[1].written == [loop.transports[0].written[1]]
    (second,) = load.conns
    second.data_received(RESP)  # the third request goes out on the second connection
    second.connection_lost(None)  # ... which closes too: the request goes again, on a third
    assert load.errors == {} and load.server_closes == 2 and len(loop.transports) == 3
    (third,) = load.conns
    third.connection_lost(None)  # a new connection closed before any byte: the server's failure
    load.finish_histogram()
    assert load.completed == 2 and load.errors == {"reset": 1} and len(loop.transports) == 3
    assert load.started == 3 and load.done.done()


def test_a_post_is_never_sent_twice() -> None:
    loop = _ConnectingLoop()
    load = Load(LoadSpec(requests=(RequestSpec("http://127.0.0.1:8000/x", method="POST", body=b"a"),), count=2),
                loop, None)  # type: ignore[arg-type]
    load.open(Connection(load), time.perf_counter_ns())
    conn = next(iter(load.conns))
    conn.data_received(RESP)
    conn.connection_lost(None)
    assert load.errors == {"reset": 1} and load.server_closes == 0


def test_https_with_several_connections_runs_on_the_epoll_loop_over_tls_sockets() -> None:
    """An event loop's TLS transport copies every record through a MemoryBIO; the epoll loop calls
    SSL_read/SSL_write on the socket (docs/http.md has the figures), so https picks it."""
    from pairbench.runners.http.engine import loop_for
    from pairbench.runners.http.selector_loop import use_c_step

    def spec(url: str, **kw: Any) -> LoadSpec:
        return LoadSpec(requests=(RequestSpec(url),), duration=1, **kw)

    assert loop_for(spec("https://127.0.0.1:8443/", connections=1, rate=100)) == "selector"
    assert loop_for(spec("https://127.0.0.1:8443/", connections=1, keepalive=False)) == "selector"
    use_c_step(False)  # without the C step (no compiler at install): as before it
    try:
        assert loop_for(spec("https://127.0.0.1:8443/", connections=4)) == "selector"
        assert loop_for(spec("https://127.0.0.1:8443/", connections=1)) == "blocking"
        assert loop_for(spec("http://127.0.0.1:8000/", connections=1)) == "blocking"
    finally:
        use_c_step(True)


def test_a_head_answer_is_framed_by_hand_and_the_next_response_still_parses(parser: str) -> None:
    """llhttp cannot be told that a response answers a HEAD: it would wait for the 1234 bytes."""
    spec = LoadSpec(requests=(RequestSpec("http://127.0.0.1:8000/x", method="HEAD"), RequestSpec("http://127.0.0.1:8000/y")),
                    count=3)
    load = Load(spec, _FakeLoop(), None)  # type: ignore[arg-type]
    conn = Connection(load)
    load.open(conn, time.perf_counter_ns())
    t = _Transport()
    conn.connection_made(t)  # type: ignore[arg-type]
    heads = [w for w in t.written]
    conn.data_received(b"HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n")
    assert load.completed == 1 and heads[0].startswith(b"HEAD ")
    assert t.written[-1].startswith(b"GET /y")
    conn.data_received(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nX: 1\r\n\r\nabc")
    assert load.completed == 2 and t.written[-1].startswith(b"HEAD ")
    conn.data_received(b"HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n")
    assert load.completed == 3 and load.errors == {}
    assert (conn.parser is not None) == (parser == "httptools")


def test_with_httptools_a_body_ended_by_close_is_complete_and_a_cut_body_is_not(parser: str) -> None:
    load, conn, t = _setup(count=2)
    conn.data_received(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n")
    conn.data_received(b"\r\nsome")
    conn.data_received(b" more")
    assert load.completed == 0
    conn.connection_lost(None)
    assert load.completed == 1 and load.errors == {} and load.server_closes == 1
    assert (conn.parser is not None) == (parser == "httptools")
    # Closed before the announced length arrived: failed, although the server said close.
    load, conn, t = _setup(count=1)
    conn.data_received(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 10\r\n\r\nshort")
    conn.connection_lost(None)
    assert load.completed == 0 and load.errors == {"reset": 1}


def test_with_httptools_a_request_on_a_silently_closed_connection_is_replayed(parser: str) -> None:
    loop = _ConnectingLoop()
    load = Load(LoadSpec(requests=(RequestSpec("http://127.0.0.1:8000/x"),), count=2), loop, None)  # type: ignore[arg-type]
    load.open(Connection(load), time.perf_counter_ns())
    first = next(iter(load.conns))
    first.data_received(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Varies: 1\r\n\r\nok")
    assert (first.parser is not None) == (parser == "httptools")
    first.connection_lost(None)  # closed without a word after the response
    (second,) = load.conns
    assert load.errors == {} and load.server_closes == 1 and len(loop.transports) == 2
    second.data_received(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nX-Varies: 22\r\n\r\nok!")
    assert load.completed == 2 and load.errors == {} and load.done.done()


def test_lengths_that_change_are_parsed_by_httptools_and_repeats_take_the_fast_path(parser: str) -> None:
    load, conn, t = _setup(count=10)
    fed: list[bytes] = []
    conn.data_received(NGINX_LIKE)
    if parser == "httptools":
        real = conn.parser
        spy = type("Spy", (), {"feed_data": lambda self, d: (fed.append(d), real.feed_data(d))[1],
                               "get_status_code": lambda self: real.get_status_code(),
                               "should_keep_alive": lambda self: real.should_keep_alive()})()
        conn.parser = spy
    conn.data_received(_variant(NGINX_LIKE, b"19:44:07", b"19:44:08"))  # the fast path: no parse
    assert fed == [] and load.completed == 2
    longer = NGINX_LIKE.replace(b"Content-Length: 5", b"Content-Length: 6") + b"!"
    conn.data_received(longer)
    assert load.completed == 3 and load.errors == {}
    assert fed == ([longer] if parser == "httptools" else [])


def test_a_ctrl_c_inside_a_parser_callback_is_not_taken_for_a_protocol_error(parser: str) -> None:
    load, conn, t = _setup(count=5)

    def interrupted(data: bytes) -> None:
        raise KeyboardInterrupt

    t.write = interrupted  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        conn.data_received(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX: 1\r\n\r\nok")
    assert load.errors == {}


def test_without_httptools_the_hand_parser_does_it_all(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_httptools(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "httptools":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_httptools)
    http1.use_response_parser("httptools")
    assert http1.response_parser() == "hand"
    load, conn, _ = _setup(count=2)
    conn.data_received(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX: 1\r\n\r\nok")
    assert load.completed == 1 and conn.parser is None


def test_booked_latencies_give_the_histogram_recorded_one_by_one_and_are_folded_when_many(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from pairbench.runners.http import scheduler
    from pairbench.runners.http.histogram import Histogram

    load, conn, t = _setup(count=1 << 30)
    monkeypatch.setattr(scheduler, "_FOLD_AT", 1000)
    clock = iter(range(10**9, 10**12, 777_777))
    monkeypatch.setattr(http1, "_now", lambda: next(clock))
    monkeypatch.setattr(scheduler, "_now", lambda: next(clock))  # no request is late
    conn.start = 10**9 - 123
    expected = Histogram()
    for _ in range(2500):
        start = conn.start
        conn.data_received(RESP)
        expected.record(conn.start - start)  # the next request starts when this one is booked
    assert len(load.latencies) == 2500
    load.watchdog()  # many booked: folded into the histogram, memory freed
    assert len(load.latencies) == 0 and load.hist.count == 2500
    for _ in range(10):
        start = conn.start
        conn.data_received(RESP)
        expected.record(conn.start - start)
    load.watchdog()  # few: left for the end
    assert len(load.latencies) == 10
    load.finish_histogram()
    assert load.hist.to_dict() == expected.to_dict() and load.completed == 2510
    assert load.status_counts == {200: 2510}


def test_the_run_file_names_the_c_step_only_for_the_loads_it_drives() -> None:
    """An open loop or no keep-alive over https runs on epoll without the C step: said so."""
    from pairbench.runners.http.engine import choose_loop, loop_label

    def label(rate: float | None, keepalive: bool) -> str:
        return loop_label(choose_loop(4, rate, keepalive, True, 1), True, rate is None and keepalive)

    assert label(None, True) == "epoll, C step"
    assert label(100.0, True) == "epoll over TLS sockets"
    assert label(None, False) == "epoll over TLS sockets"
