"""The engine's own CPU per response on its loops, without sockets: the figure that decides how
close one client process comes to wrk when the client, not the server, is the bottleneck.

Each of the engine's own loops (the blocking one for one connection, epoll for several) runs a
closed keep-alive load whose sockets are stand-ins: a read returns a canned nginx response at once
(a C call, `dict.get`) and a write takes every byte (`len`); the epoll loop's poller reports every
connection readable. With `varied`, consecutive responses differ in their Date header (same
length), as when a second turns over or an application puts a changing value in a header: the
engine then checks the framing with its searches instead of comparing with the last response.
What is measured is everything the engine does in Python per response — the
loop's read step, the fast-path framing check, the booking, the timing calls, the next request —
and none of the kernel's or OpenSSL's work, which costs pairbench and wrk about the same
(docs/http.md). Best of `--reps` (the least disturbed run on a shared machine).

    PYTHONPATH=src python3 bench/http_client_cpu.py [--responses 300000] [--reps 5]
"""

from __future__ import annotations

import argparse
import functools
import itertools
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from pairbench.runners.http import blocking_loop, selector_loop  # noqa: E402
from pairbench.runners.http.scheduler import Load, finish_load, start_load  # noqa: E402
from pairbench.runners.http.spec import LoadSpec, RequestSpec  # noqa: E402

_RESPONSE = (b"HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Tue, 01 Dec 2026 14:00:00 GMT\r\n"
             b"Content-Type: text/html\r\nContent-Length: 100\r\nLast-Modified: Tue, 01 Dec 2026 13:00:00 GMT\r\n"
             b"Connection: keep-alive\r\nETag: \"6745a2b0-64\"\r\nAccept-Ranges: bytes\r\n\r\n" + b"x" * 100)
_READS = {blocking_loop._RECV_SIZE: _RESPONSE, blocking_loop._TLS_RECV_SIZE: _RESPONSE}
_OTHER = _RESPONSE.replace(b"14:00:00 GMT", b"14:00:01 GMT", 1)


class _Sock:
    """A socket that always has a response to read and takes every write."""

    def __init__(self, fd: int, varied: bool = False) -> None:
        self.fd = fd
        # Both in C: dict.get(size) gives the same response, next(cycle, size) the two in turn.
        self.recv = functools.partial(next, itertools.cycle([_RESPONSE, _OTHER])) if varied else _READS.get
        self.sendall = self.send = len

    def fileno(self) -> int:
        return self.fd

    def close(self) -> None:
        pass


class _Poller:
    """epoll with every registered connection readable at every call."""

    def __init__(self) -> None:
        self.events: list[tuple[int, int]] = []

    def register(self, fd: int, mask: int) -> None:
        self.events.append((fd, selector_loop._IN))

    def modify(self, fd: int, mask: int) -> None:
        pass

    def unregister(self, fd: int) -> None:
        self.events = [e for e in self.events if e[0] != fd]

    def close(self) -> None:
        pass

    def poll(self, wait: float) -> list[tuple[int, int]]:
        return self.events


def _blocking_connect(loop: Any, varied: bool) -> Any:
    def connect(host: str, port: int, protocol: Any, timeout: float, on_error: Any) -> None:
        loop.current = t = blocking_loop._SocketTransport(loop, _Sock(3, varied), protocol)  # type: ignore[arg-type]
        protocol.connection_made(t)
    return connect


def _selector_connect(loop: Any, varied: bool) -> Any:
    fds = iter(range(10, 1 << 20))

    def connect(host: str, port: int, protocol: Any, timeout: float, on_error: Any) -> None:
        sock = _Sock(next(fds), varied)
        t = loop.handlers[sock.fd] = selector_loop._Transport(loop, sock, protocol, False)  # type: ignore[arg-type]
        loop.poller.register(sock.fd, selector_loop._IN)
        protocol.connection_made(t)
    return connect


def cpu_per_response(kind: str, connections: int, n: int, varied: bool = False) -> float:
    """CPU seconds per response of a closed load of `n` responses on loop `kind`."""
    spec = LoadSpec(requests=(RequestSpec("http://127.0.0.1:1/"),), connections=connections, count=n)
    if kind == "blocking":
        loop: Any = blocking_loop.BlockingLoop()
        loop.connect = _blocking_connect(loop, varied)
    else:
        loop = selector_loop.SelectorLoop()
        loop.poller.close()
        loop.poller = _Poller()
        loop.connect = _selector_connect(loop, varied)
    load = Load(spec, loop, None)
    t0 = time.process_time()
    start_load(load)
    loop.run_until(load.done)
    finish_load(load)
    cpu = time.process_time() - t0
    loop.close()
    assert load.completed == n and not load.errors and load.hist.count == n, (load.completed, load.errors)
    return cpu / n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--responses", type=int, default=300_000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    print(f"{args.responses:,} responses per load; best of {args.reps} (CPU time per response)\n")
    print("| loop | connections | µs per response, the same response | every response's Date differs |")
    print("|---|---:|---:|---:|")
    for kind, conns in (("blocking", 1), ("epoll", 1), ("epoll", 10)):
        same = min(cpu_per_response(kind, conns, args.responses) for _ in range(args.reps))
        varied = min(cpu_per_response(kind, conns, args.responses, varied=True) for _ in range(args.reps))
        print(f"| {kind} | {conns} | {same * 1e6:.2f} | {varied * 1e6:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
