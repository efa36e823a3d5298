"""Servers that close the connection after every response: `python3 -m http.server` (HTTP/1.0),
nginx with `keepalive_requests 1` (`Connection: close`), and an HTTP/1.1 server that closes
without saying so. Every response is complete, none
failed, on the blocking single-connection loop and on the event loop with several connections;
the request and failure counts are checked against ab's on the same server."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from tests.e2e._http_servers import Nginx, free_port, wait_port

pytestmark = pytest.mark.slow

LOOPS = [("blocking", 1), ("asyncio", 4), ("selector", 4)]


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    """`python3 -m http.server` on 127.0.0.1 serving a file of a temporary directory."""
    root = tmp_path / "www"
    root.mkdir()
    (root / "index.html").write_bytes(b"y" * 100)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                             "--directory", str(root)], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        yield f"http://127.0.0.1:{port}/index.html"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


# HTTP/1.1, a Content-Length, no Connection header, and the connection closed after each response.
SILENT_APP = r"""
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "100"); self.end_headers()
        self.wfile.write(b"s" * 100)
        self.close_connection = True
    def log_message(self, *a): pass
HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""


@pytest.fixture
def silent_server(tmp_path: Path) -> Iterator[str]:
    app = tmp_path / "silent.py"
    app.write_text(SILENT_APP)
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(app), str(port)], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        yield f"http://127.0.0.1:{port}/"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


@pytest.fixture
def nginx_closing(tmp_path: Path) -> Iterator[str]:
    nginx = Nginx(tmp_path, keepalive_requests=1)
    try:
        yield nginx.url
    finally:
        nginx.stop()


def _ab(url: str, n: int, c: int, keepalive: bool) -> dict[str, int]:
    argv = ["ab", "-q", "-n", str(n), "-c", str(c)] + (["-k"] if keepalive else []) + [url]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120).stdout
    found = {k: int(m.group(1)) for k, pat in (("complete", r"Complete requests:\s+(\d+)"),
                                               ("failed", r"Failed requests:\s+(\d+)"))
             if (m := re.search(pat, out))}
    assert set(found) == {"complete", "failed"}, out
    return found


def _check_against_ab(url: str, loop: str, conns: int, announced: bool = True) -> None:
    from pairbench.runners.http.engine import LoadSpec, RequestSpec, run_load

    n = 300
    r = run_load(LoadSpec(requests=(RequestSpec(url),), connections=conns, count=n), loop=loop)
    assert r.errors == {} and r.failed == 0
    assert r.completed == n and r.histogram.count == n and r.status_counts == {200: n}
    # A close announced in the response is seen every time; a silent one only when a request
    # follows, so not after the last response of each connection.
    assert r.server_closes == n if announced else n - conns <= r.server_closes <= n
    assert r.bytes_received > n * 100
    if shutil.which("ab"):
        ab = _ab(url, n, conns, keepalive=True)
        assert (r.completed, r.failed) == (ab["complete"], ab["failed"])


@pytest.mark.parametrize(("loop", "conns"), LOOPS)
def test_http10_server_closing_after_every_response_loses_no_request(http_server: str, loop: str,
                                                                     conns: int) -> None:
    _check_against_ab(http_server, loop, conns)


@pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx (installed by .ci/run)")
@pytest.mark.parametrize(("loop", "conns"), LOOPS)
def test_nginx_with_keepalive_requests_1_loses_no_request(nginx_closing: str, loop: str, conns: int) -> None:
    _check_against_ab(nginx_closing, loop, conns)


@pytest.mark.parametrize(("loop", "conns"), LOOPS)
def test_server_closing_without_saying_so_loses_no_request(silent_server: str, loop: str, conns: int) -> None:
    _check_against_ab(silent_server, loop, conns, announced=False)


def test_cli_says_once_that_the_server_does_not_keep_connections_alive(run_cli, tmp_path: Path) -> None:
    root = tmp_path / "www"
    root.mkdir()
    (root / "index.html").write_bytes(b"z" * 50)
    server = f"{sys.executable} -m http.server {{port}} --bind 127.0.0.1 --directory {root}"
    out = tmp_path / "run.json"
    r = run_cli("http", "--server", server, "--url", "/index.html", "-n", "100", "--runs", "2",
                "--warmup-time", "0", "--export-json", str(out))
    assert r.returncode == 0, r.stderr
    text = r.stdout + r.stderr
    assert text.count("--no-keepalive") == 1, text
    samples = json.loads(out.read_text())["samples"]
    by_metric: dict[str, list[float]] = {}
    for s in samples:
        by_metric.setdefault(s["metric"], []).append(s["value"])
    assert by_metric["requests"] == [100.0, 100.0] and by_metric["failed"] == [0.0, 0.0]
    # Asked for, a connection per request is what the server does anyway: nothing to say.
    r = run_cli("http", "--server", server, "--url", "/index.html", "-n", "50", "--runs", "1",
                "--warmup-time", "0", "--no-keepalive")
    assert r.returncode == 0, r.stderr
    assert "--no-keepalive" not in r.stdout + r.stderr
