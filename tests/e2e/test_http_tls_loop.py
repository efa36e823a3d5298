"""The epoll loop over TLS sockets (https with several connections, an open loop or no keep-alive)
against real servers on 127.0.0.1 over TLS: nginx with a certificate made in the test, and small
Python servers wrapped in TLS for the faults nginx does not make (a silent close, no answer)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from tests.e2e._http_servers import Nginx, free_port, processes_with, wait_port

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("nginx") is None or shutil.which("openssl") is None,
                                 reason="needs nginx and openssl (installed by .ci/run)")]


def _load(url: str, loop: str = "selector", **kw: object):  # type: ignore[no-untyped-def]
    from pairbench.runners.http.engine import LoadSpec, RequestSpec, run_load

    return run_load(LoadSpec(requests=(RequestSpec(url),), insecure=True, **kw), loop=loop)  # type: ignore[arg-type]


@pytest.fixture
def nginx(tmp_path: Path) -> Iterator[Nginx]:
    server = Nginx(tmp_path, tls=True)
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("conns", [2, 10])
def test_a_closed_loop_over_tls_completes_every_request(nginx: Nginx, conns: int) -> None:
    r = _load(nginx.url, connections=conns, count=2000)
    assert r.errors == {} and r.failed == 0 and r.server_closes == 0
    assert r.completed == 2000 and r.status_counts == {200: 2000}
    assert r.bytes_received > 2000 * 100  # the 100-byte file and its headers, through TLS


def test_a_large_body_spread_over_many_tls_records_is_read_whole(tmp_path: Path) -> None:
    # 200 kB: more than a dozen 16 kB records per response, so reads end on a full buffer.
    server = Nginx(tmp_path, tls=True, body=b"b" * 200_000)
    try:
        r = _load(server.url, connections=3, count=60)
    finally:
        server.stop()
    assert r.errors == {} and r.completed == 60 and r.bytes_received > 60 * 200_000


def test_without_keepalive_every_request_makes_its_own_handshake(nginx: Nginx) -> None:
    r = _load(nginx.url, connections=3, count=150, keepalive=False)
    assert r.errors == {} and r.completed == 150
    with_handshake = r.percentiles_s([50])[0]
    kept = _load(nginx.url, connections=3, count=150).percentiles_s([50])[0]
    # An RSA-2048 handshake costs the server far more than a 100-byte file: several times over.
    assert with_handshake > 2 * kept


def test_nginx_closing_after_every_response_over_tls_loses_no_request(tmp_path: Path) -> None:
    server = Nginx(tmp_path, tls=True, keepalive_requests=1)
    try:
        r = _load(server.url, connections=4, count=300)
    finally:
        server.stop()
    assert r.errors == {} and r.completed == 300 and r.server_closes == 300


def test_an_open_loop_over_tls_keeps_to_its_schedule(nginx: Nginx) -> None:
    t0 = time.monotonic()
    r = _load(nginx.url, connections=4, count=200, rate=200)
    took = time.monotonic() - t0
    assert r.errors == {} and r.completed == 200
    assert took > 0.8  # 200 requests at 200/s take a second, not a burst


# HTTP/1.1 over TLS, a Content-Length, no Connection header, the connection closed after each
# response (the request sent on it meanwhile gets no byte); with NOANSWER, requests are read and
# never answered.
TLS_APP = r"""
import os, ssl, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        if os.environ.get("NOANSWER"):
            self.rfile.read(1)
            return
        self.send_response(200); self.send_header("Content-Length", "100"); self.end_headers()
        self.wfile.write(b"s" * 100)
        self.close_connection = True
    def log_message(self, *a): pass
server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[2], sys.argv[3])
server.socket = context.wrap_socket(server.socket, server_side=True)
server.serve_forever()
"""


def _tls_app(tmp_path: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", str(tmp_path / "k.pem"), "-out", str(tmp_path / "c.pem")],
                   check=True, capture_output=True, timeout=60)
    app = tmp_path / "tls_app.py"
    app.write_text(TLS_APP)
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(app), str(port), str(tmp_path / "c.pem"), str(tmp_path / "k.pem")],
                            env={**os.environ, **env}, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port)
    return proc, f"https://127.0.0.1:{port}/"


def _stop(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=10)


@pytest.mark.parametrize(("loop", "conns"), [("selector", 3), ("blocking", 1)])
def test_a_tls_server_closing_without_saying_so_loses_no_request(tmp_path: Path, loop: str, conns: int) -> None:
    proc, url = _tls_app(tmp_path, {})
    try:
        r = _load(url, loop, connections=conns, count=150)
    finally:
        _stop(proc)
    assert r.errors == {} and r.completed == 150
    # A silent close is seen when a request follows: not after each connection's last response.
    assert 150 - conns <= r.server_closes <= 150


def test_a_tls_server_that_never_answers_times_out_per_request(tmp_path: Path) -> None:
    proc, url = _tls_app(tmp_path, {"NOANSWER": "1"})
    try:
        t0 = time.monotonic()
        r = _load(url, connections=2, count=4, timeout=0.3)
        took = time.monotonic() - t0
    finally:
        _stop(proc)
    assert r.completed == 0 and r.errors == {"timeout": 4}
    assert 0.5 < took < 10  # two rounds of 0.3 s timeouts, not a hang


def test_a_connect_that_is_refused_is_a_connect_error_not_a_hang() -> None:
    port = free_port()  # nothing listens there
    assert _load(f"https://127.0.0.1:{port}/", connections=2, count=10).errors == {"connect": 10}
    t0 = time.monotonic()
    r = _load(f"https://127.0.0.1:{port}/", connections=2, duration=20)
    assert r.completed == 0 and r.errors["connect"] >= 50 and "connection refused" in r.aborted
    assert time.monotonic() - t0 < 10  # given up after 50 refusals, not at the end of the duration


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_stops_an_https_load_on_the_epoll_loop(nginx: Nginx, tmp_path: Path, sig: int) -> None:
    from tests.conftest import cli_env

    marker = str(tmp_path / "ctrl-c-marker.json")
    proc = subprocess.Popen([sys.executable, "-m", "pairbench", "http", "--url", nginx.url, "--insecure", "-c", "4",
                             "--duration", "30", "--runs", "3", "--export-json", marker],
                            env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        time.sleep(3.0)  # start-up, the certificate check, into the load
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + sig, err
    assert "Traceback" not in err
    assert [p for p in processes_with(marker) if p != proc.pid] == []


def test_a_connect_that_never_completes_fails_at_the_timeout() -> None:
    """A listener whose accept queue is full drops further SYNs: the connect hangs, and is given
    up at the request timeout (the handshake inside it never starts)."""
    import socket

    with socket.socket() as full:
        full.bind(("127.0.0.1", 0))
        full.listen(0)
        port = full.getsockname()[1]
        fillers = []
        try:
            for _ in range(4):  # more than the queue holds
                s = socket.socket()
                s.setblocking(False)
                s.connect_ex(("127.0.0.1", port))
                fillers.append(s)
            time.sleep(0.2)
            t0 = time.monotonic()
            r = _load(f"https://127.0.0.1:{port}/", connections=2, count=2, timeout=0.5)
            took = time.monotonic() - t0
        finally:
            for s in fillers:
                s.close()
    assert r.completed == 0 and r.errors == {"connect": 2}, r.errors
    assert 0.4 < took < 10


def test_an_address_of_a_family_the_host_cannot_open_is_skipped_for_the_next(nginx: Nginx) -> None:
    """A host name may resolve to an IPv6 address on a machine without IPv6: the next address is
    tried, as socket.create_connection does (an AF_PACKET stream socket stands in: it never opens)."""
    import socket

    from pairbench.runners.http.scheduler import Load, finish_load, start_load
    from pairbench.runners.http.selector_loop import SelectorLoop
    from pairbench.runners.http.spec import LoadSpec, RequestSpec
    from pairbench.runners.http.tls import client_context

    loop = SelectorLoop(client_context(insecure=True))
    loop._addresses[("127.0.0.1", nginx.port)] = [(socket.AF_PACKET, ("lo", 0)),
                                                  (socket.AF_INET, ("127.0.0.1", nginx.port))]
    load = Load(LoadSpec(requests=(RequestSpec(nginx.url),), connections=2, count=20, insecure=True), loop, None)
    try:
        start_load(load)
        loop.run_until(load.done)
        finish_load(load)
    finally:
        loop.close()
    assert load.errors == {} and load.completed == 20
