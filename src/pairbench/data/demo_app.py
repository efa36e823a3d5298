"""A small web app bundled with pairbench, for the demo and the tests (stdlib only).

Run it with the Python under test: `python demo_app.py --port 8000 [--work N]`. Every page
renders a little HTML after doing `work` units of CPU work (a loop of integer arithmetic), so
two variants that differ only in `--work` or `PAIRBENCH_DEMO_WORK` differ in a real, known way.

Pages: `/` (the default work), `/items/<n>` (a list of n rows), `/health` (no work),
`/fail` (HTTP 500). Keep-alive (HTTP/1.1) is on, as in a real app server.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from socketserver import ThreadingMixIn


def burn(units: int) -> int:
    """`units` thousand steps of integer arithmetic: the app's "business logic"."""
    acc = 0
    for i in range(units * 1000):
        acc = (acc * 31 + i) & 0xFFFFFFFF
    return acc


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; without TCP_NODELAY, Nagle plus delayed ACKs add 40 ms.
    disable_nagle_algorithm = True
    server_version = "pairbench-demo/1"
    work = 0

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        path = self.path.split("?", 1)[0]
        if path == "/health":
            self._send(200, b"ok\n", "text/plain")
            return
        if path == "/fail":
            self._send(500, b"failing on purpose\n", "text/plain")
            return
        rows = 10
        if path.startswith("/items/"):
            try:
                rows = max(0, min(10000, int(path[len("/items/"):])))
            except ValueError:
                self._send(404, b"not found\n", "text/plain")
                return
        elif path != "/":
            self._send(404, b"not found\n", "text/plain")
            return
        checksum = burn(self.work)
        body = "".join(f"<li>item {i}</li>" for i in range(rows))
        page = f"<html><body><h1>demo</h1><ul>{body}</ul><p>{checksum}</p></body></html>\n"
        self._send(200, page.encode(), "text/html")

    def do_HEAD(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if not self.close_connection:
            # HTTP/1.0 clients (ab -k) keep the connection only when told so.
            self.send_header("Connection", "keep-alive")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # quiet: a log line per request costs time
        pass


class Server(ThreadingMixIn, HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def handle_error(self, request: object, client_address: object) -> None:
        # A client that hangs up mid-response (the end of a load) is not an error worth a traceback.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--work", type=int, default=int(os.environ.get("PAIRBENCH_DEMO_WORK", "20")),
                        help="thousands of arithmetic steps per page (env PAIRBENCH_DEMO_WORK)")
    args = parser.parse_args(argv)
    Handler.work = args.work
    server = Server((args.host, args.port), Handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"demo app on http://{args.host}:{args.port}/ work={args.work}", flush=True)
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
