"""Real servers for the http e2e tests, on 127.0.0.1 only, stopped by PID."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

RUBY_APP = r"""
require 'socket'
port = Integer(ARGV[0])
work = Integer(ENV.fetch('EXTRA_WORK', '0'))
server = TCPServer.new('127.0.0.1', port)
loop do
  client = server.accept
  client.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1)
  begin
    while (line = client.gets)
      while (h = client.gets) && h != "\r\n"; end
      acc = 0
      (work * 1000).times { |i| acc = (acc * 31 + i) & 0xffffffff }
      body = "hello #{acc}\n"
      client.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: #{body.bytesize}\r\n\r\n#{body}")
    end
  rescue Errno::ECONNRESET, Errno::EPIPE
  ensure
    client.close
  end
end
"""

# A server that ignores SIGTERM (only SIGKILL stops it), serving 200s.
STUBBORN_APP = r"""
import signal, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
signal.signal(signal.SIGTERM, signal.SIG_IGN)
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "3"); self.end_headers(); self.wfile.write(b"ok\n")
    def log_message(self, *a): pass
HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""

# Serves normally, except on its second start, where it dies 0.3 s into serving.
FLAKY_APP = r"""
import os, sys, threading
from http.server import BaseHTTPRequestHandler, HTTPServer
counter = sys.argv[2]
n = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
open(counter, "w").write(str(n))
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    def do_GET(self):
        if n == 2 and self.path != "/":
            threading.Timer(0.3, lambda: os._exit(3)).start()
        self.send_response(200); self.send_header("Content-Length", "3"); self.end_headers(); self.wfile.write(b"ok\n")
    def log_message(self, *a): pass
print("flaky start", n, flush=True)
HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""

# Serves one request at a time, 40 ms each (about 25 requests/s at most), on any number of connections.
SLOW_APP = r"""
import sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
one_at_a_time = threading.Lock()
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    def do_GET(self):
        with one_at_a_time:
            time.sleep(0.04)
        self.send_response(200); self.send_header("Content-Length", "3"); self.end_headers(); self.wfile.write(b"ok\n")
    def log_message(self, *a): pass
ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""

_LISTENER = r"""
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(64)
"""
"""The start of a raw server script: a socket listening on 127.0.0.1 at the port given as its argument."""

# Answers its readiness path, and closes every other connection without a byte of answer.
CLOSER_APP = _LISTENER + r"""
while True:
    c, _ = s.accept()
    with c:
        if c.recv(4096).startswith(b"GET /ready "):
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
"""

# Serves one load: exits once the connections that carried requests are all closed (a load's end),
# so that the next load finds nothing listening. Connections without a request (a probe) do not count.
ONE_LOAD_APP = r"""
import os, socket, sys, threading
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(64)
lock = threading.Lock()
state = {"open": 0, "served": 0}
def serve(c):
    served = False
    buf = b""
    try:
        with c:
            while True:
                data = c.recv(65536)
                if not data:
                    break
                buf += data
                while b"\r\n\r\n" in buf:
                    _, buf = buf.split(b"\r\n\r\n", 1)
                    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
                    served = True
    except OSError:
        pass  # wrk ends its connections with a reset
    with lock:
        state["open"] -= 1
        state["served"] += served
        if state["served"] and state["open"] == 0:
            os._exit(0)
while True:
    c, _ = s.accept()
    with lock:
        state["open"] += 1
    threading.Thread(target=serve, args=(c,), daemon=True).start()
"""

# Listens and greets every connection with a line that is not HTTP (an SSH server's banner).
BANNER_APP = _LISTENER + r"""
while True:
    c, _ = s.accept()
    with c:
        try:
            c.sendall(b"SSH-2.0-OpenSSH_9.2\r\n")
            c.recv(100)
        except OSError:
            pass
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def processes_with(marker: str) -> list[int]:
    """PIDs whose command line contains `marker` (scans /proc; zombies excluded)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(int(name))
    return found


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port} after {timeout} s")


class Nginx:
    """nginx with its own config, pid file and logs in `root`, serving a small file on a free port;
    with `tls`, over https with a self-signed certificate made in `root`; with `http2`, HTTP/2
    (h2c with prior knowledge, or h2 over TLS), each request's protocol in `root`/access.log."""

    def __init__(self, root: Path, body: bytes = b"x" * 100, workers: int = 1,
                 keepalive_requests: int = 10_000_000, tls: bool = False, http2: bool = False) -> None:
        self.root = root
        self.port = free_port()
        self.tls = tls
        (root / "index.html").write_bytes(body)
        listen = f"127.0.0.1:{self.port}"
        if tls:
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(root / "key.pem"), "-out", str(root / "cert.pem")],
                           check=True, capture_output=True, timeout=60)
            listen += " ssl" + (" http2" if http2 else "")
            listen += f"; ssl_certificate {root}/cert.pem; ssl_certificate_key {root}/key.pem"
        elif http2:
            listen += " http2"  # h2c with prior knowledge (nginx 1.22's spelling)
        # As root, nginx's workers would run as nobody and could not read a pytest tmp dir (mode 700).
        user = "user root root;" if os.geteuid() == 0 else ""
        # With http2, each request's protocol is logged, so that a test can tell what was spoken.
        access = (f"log_format proto '$server_protocol'; access_log {root}/access.log proto;" if http2
                  else "access_log off;")
        conf = f"""
{user}
worker_processes {workers}; pid {root}/nginx.pid; error_log {root}/error.log; daemon off;
events {{ worker_connections 1024; }}
http {{
  {access} client_body_temp_path {root}; proxy_temp_path {root}; fastcgi_temp_path {root};
  uwsgi_temp_path {root}; scgi_temp_path {root}; keepalive_requests {keepalive_requests};
  server {{ listen {listen}; root {root}; location /missing {{ return 404; }} }}
}}
"""
        (root / "nginx.conf").write_text(conf)
        self.proc = subprocess.Popen(["nginx", "-c", str(root / "nginx.conf"), "-p", str(root)],
                                     start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_port(self.port)
        except BaseException:
            self.stop()
            raise

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}/index.html"

    def stop(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
