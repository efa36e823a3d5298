"""The epoll loop's C step (runners/http/_fastpath.c): it books the responses of a closed
keep-alive loop that are framed like their connection's last one, over plain http and over TLS,
and hands every other to the Python side; the load's counts stay exact either way."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from pairbench.runners.http import http1
from pairbench.runners.http.engine import loop_for, run_load
from pairbench.runners.http.selector_loop import has_c_step, use_c_step
from pairbench.runners.http.spec import LoadResult, LoadSpec, RequestSpec
from tests.e2e._http_servers import Nginx, free_port, wait_port

pytestmark = pytest.mark.slow

COUNT = 2000


def test_the_c_step_is_built_and_drives_tls_through_openssl_itself() -> None:
    """`pip install -e .` builds it here (gcc and Python's headers are on every CI machine); its
    TLS reads and writes go to the OpenSSL that `_ssl` links, not through Python callables."""
    from pairbench.runners.http import _fastpath

    assert has_c_step()
    assert _fastpath.direct_tls()


def test_every_closed_keep_alive_load_on_one_url_runs_on_the_c_step() -> None:
    def spec(url: str, **kw: object) -> LoadSpec:
        return LoadSpec(requests=(RequestSpec(url),), duration=1, **kw)  # type: ignore[arg-type]

    assert loop_for(spec("http://127.0.0.1:8000/", connections=1)) == "selector"
    assert loop_for(spec("http://127.0.0.1:8000/", connections=10)) == "selector"
    assert loop_for(spec("https://127.0.0.1:8443/", connections=50)) == "selector"
    # An open loop or no keep-alive has nothing for the C step: as before.
    assert loop_for(spec("http://127.0.0.1:8000/", connections=4, rate=100)) != "selector"
    use_c_step(False)
    try:
        assert loop_for(spec("http://127.0.0.1:8000/", connections=1)) == "blocking"
        assert loop_for(spec("http://127.0.0.1:8000/", connections=10)) != "selector"
    finally:
        use_c_step(True)


def _counted_load(monkeypatch: pytest.MonkeyPatch, url: str, count: int, connections: int,
                  reads: list[bytes] | None = None) -> tuple[LoadResult, int]:
    """A load of `count` requests on the epoll loop, and how many reads reached Python's parser
    (kept in `reads` when given)."""
    calls = [0]
    original = http1.Connection.data_received

    def counting(self: http1.Connection, data: bytes) -> None:
        calls[0] += 1
        if reads is not None:
            reads.append(data)
        original(self, data)

    with monkeypatch.context() as m:
        m.setattr(http1.Connection, "data_received", counting)
        spec = LoadSpec(requests=(RequestSpec(url),), connections=connections, count=count, insecure=True)
        return run_load(spec, loop="selector"), calls[0]


@pytest.mark.parametrize("tls", [False, True], ids=["http", "https"])
def test_the_c_step_books_what_python_booked_and_python_sees_only_the_first_responses(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tls: bool) -> None:
    nginx = Nginx(tmp_path, tls=tls)
    try:
        one, _ = _counted_load(monkeypatch, nginx.url, 1, 1)
        fast, fast_calls = _counted_load(monkeypatch, nginx.url, COUNT, 10)
        use_c_step(False)
        try:
            slow, slow_calls = _counted_load(monkeypatch, nginx.url, COUNT, 10)
        finally:
            use_c_step(True)
    finally:
        nginx.stop()
    for r in (fast, slow):
        assert r.completed == COUNT and r.histogram.count == COUNT
        assert r.status_counts == {200: COUNT} and r.errors == {}
        assert r.bytes_received == COUNT * one.bytes_received
    assert slow_calls >= COUNT
    # The first response of each connection teaches the framing; nginx's Date changes each second.
    assert fast_calls <= 10 * 4, fast_calls


# HTTP/1.1 kept alive. A header before Content-Length differs in every response (same length);
# every 7th body is longer; every 11th is a 503 of the same length; every 50th says
# `Connection: close` in place of that header (the same length again) and closes. The server
# counts the requests it answered and the bytes it sent in `stats`.
SHIFTING_APP = r"""
import os, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
lock = threading.Lock()
done = [0, 0]
stats = sys.argv[2]
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        with lock:
            done[0] += 1
            n = done[0]
        body = b"b" * (100 if n % 7 else 333)
        status = "503 NO" if n % 11 == 0 else "200 OK"
        line = "Connection: close" if n % 50 == 0 else f"X-Seq: {n:010d}"
        head = f"HTTP/1.1 {status}\r\n{line}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        with lock:  # booked before it is sent, whole (a rename), so the client reads it complete
            done[1] += len(head) + len(body)
            with open(stats + ".part", "w") as f:
                f.write(f"{done[0]} {done[1]}")
            os.replace(stats + ".part", stats)
        self.wfile.write(head + body)
        self.wfile.flush()
        if n % 50 == 0:
            self.close_connection = True
    def log_message(self, *a): pass
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""


@pytest.fixture
def shifting_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    app, stats = tmp_path / "shifting.py", tmp_path / "stats"
    app.write_text(SHIFTING_APP)
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(app), str(port), str(stats)], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        yield f"http://127.0.0.1:{port}/", stats
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


def test_responses_that_change_their_framing_or_close_are_counted_exactly(
        shifting_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    url, stats = shifting_server
    count = 600  # the 503s: 54, every 11th answer of the server's
    reads: list[bytes] = []
    r, calls = _counted_load(monkeypatch, url, count, 4, reads)
    answered, sent = map(int, stats.read_text().split())
    assert r.completed == count and r.histogram.count == count and r.errors == {}
    assert answered == count  # the budget holds: not one request more than asked
    assert r.bytes_received == sent
    # Answered in order on 4 connections, the 503s are not exactly every 11th of the client's: a
    # 503 taken for a 200 would leave fewer of them than the server sent.
    assert r.status_counts.get(503, 0) == count // 11 and sum(r.status_counts.values()) == count
    # A close is never taken for a response framed like the last (it has the same length): every
    # one of them reached Python's parser, and each was counted as the server's close.
    assert sum(b"Connection: close" in data for data in reads) == count // 50 == r.server_closes
    # The C step booked the responses framed like the last (the X-Seq ones); Python the others:
    # each longer body and the one after it on its connection, the 503s, the closes and the first
    # response of each connection, about 250 (215-231 in three runs); all 600 without the C step.
    assert count / 7 <= calls < 0.6 * count, calls


def _clean_sources(dest: Path) -> Path:
    """What the build reads, without what an earlier build left in the clone: `pip install .`
    keeps the compiled extension in the (ignored) `build/`, and a later build copies it from there
    instead of compiling, so a build from the clone itself would find the C step without a compiler."""
    root = Path(__file__).resolve().parents[2]
    dest.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(root / name, dest / name)
    shutil.copytree(root / "src", dest / "src",
                    ignore=shutil.ignore_patterns("*.so", "*.egg-info", "__pycache__"))
    return dest


def test_without_a_c_compiler_pairbench_installs_and_loads_on_its_python_step(tmp_path: Path) -> None:
    """The C step is an optional extension: a machine with no compiler (here `CC=false`) still
    installs pairbench, and the same load runs, exactly counted, on the loops it had before."""
    sources = _clean_sources(tmp_path / "sources")
    target = tmp_path / "site"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-compile",
         "--target", str(target), str(sources)],
        env={**os.environ, "CC": "false", "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert build.returncode == 0, build.stderr
    assert not list(target.glob("pairbench/runners/http/_fastpath*.so")), "the extension was built anyway"
    (tmp_path / "www").mkdir()
    nginx = Nginx(tmp_path / "www")
    try:
        probe = (
            "import sys; sys.path.insert(0, sys.argv[1])\n"
            "import pairbench; assert pairbench.__file__.startswith(sys.argv[1]), pairbench.__file__\n"
            "from pairbench.runners.http.engine import loop_for, run_load\n"
            "from pairbench.runners.http.selector_loop import has_c_step\n"
            "from pairbench.runners.http.spec import LoadSpec, RequestSpec\n"
            "spec = LoadSpec(requests=(RequestSpec(sys.argv[2]),), connections=4, count=500)\n"
            "r = run_load(spec)\n"
            "print(has_c_step(), loop_for(spec), r.completed, r.errors, sep=';')\n"
        )
        done = subprocess.run([sys.executable, "-I", "-c", probe, str(target), nginx.url],
                              capture_output=True, text=True, timeout=120, cwd=tmp_path)
    finally:
        nginx.stop()
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False;asyncio;500;{}"]
