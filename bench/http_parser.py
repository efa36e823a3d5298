"""The engine's HTTP/1 response parsing, by hand and by httptools (llhttp in C, what uvicorn uses),
per response, without sockets: the engine's own Connection is fed the same canned nginx responses
with either parser doing the full parse (and the same booking: latency into the histogram, the
status counted, the next request written), so the figure is the client's own CPU per response,
which decides how hard one core can push a server.

Two streams of responses: the same framing every time (only Date changes: nginx serving one
file), and lengths that change every time (the hand parser's full path).

    PYTHONPATH=src python3 bench/http_parser.py [--responses 200000] [--reps 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from pairbench.runners.http.blocking_loop import _Flag  # noqa: E402
from pairbench.runners.http.http1 import Connection, use_response_parser  # noqa: E402
from pairbench.runners.http.scheduler import Load  # noqa: E402
from pairbench.runners.http.spec import LoadSpec, RequestSpec  # noqa: E402

_HEAD = (b"HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Tue, 01 Dec 2026 14:%02d:%02d GMT\r\n"
         b"Content-Type: text/html\r\nContent-Length: %d\r\nLast-Modified: Tue, 01 Dec 2026 13:00:00 GMT\r\n"
         b"Connection: keep-alive\r\nETag: \"6745a2b0-64\"\r\nAccept-Ranges: bytes\r\n\r\n")


def responses(n: int, varying: bool) -> list[bytes]:
    out = []
    for i in range(n):
        size = 100 + (i % 7) * 13 if varying else 100
        out.append(_HEAD % ((i // 60) % 60, i % 60, size) + b"x" * size)
    return out


class _Loop:
    def create_future(self) -> _Flag:
        return _Flag()

    def call_later(self, delay: float, fn: Any, *args: Any) -> None:
        pass

    def connect(self, *args: Any) -> None:
        pass


class _Transport:
    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass


def engine(data: list[bytes], parser: str) -> float:
    """CPU seconds for the engine's Connection to parse and book every response, the full parse
    done by `parser` (the fast path for a response framed like the last one is the same for both)."""
    use_response_parser(parser)
    load = Load(LoadSpec(requests=(RequestSpec("http://127.0.0.1:1/"),), count=1 << 60), _Loop(), None)  # type: ignore[arg-type]
    conn = Connection(load)
    load.open(conn, time.perf_counter_ns())
    conn.connection_made(_Transport())  # type: ignore[arg-type]
    feed = conn.data_received
    t0 = time.process_time()
    for d in data:
        feed(d)
    cpu = time.process_time() - t0
    assert load.completed == len(data) and not load.errors, (load.completed, load.errors)
    use_response_parser("httptools")
    return cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--responses", type=int, default=200_000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    parsers: dict[str, Callable[[list[bytes]], float]] = {"hand parser (engine)": lambda d: engine(d, "hand")}
    try:
        import httptools
        parsers[f"httptools {httptools.__version__} (engine)"] = lambda d: engine(d, "httptools")
    except ImportError:
        print("httptools is not installed: pip install httptools")
    print(f"{args.responses:,} responses per load; median of {args.reps} (CPU time per response)\n")
    print("| responses | parser | µs per response | vs hand parser |")
    print("|---|---|---:|---:|")
    for varying in (False, True):
        data = responses(args.responses, varying)
        times: dict[str, list[float]] = {name: [] for name in parsers}
        for rep in range(args.reps):
            items = list(parsers.items())
            for name, fn in items[rep % len(items):] + items[:rep % len(items)]:
                times[name].append(fn(data) / len(data))
        ref = statistics.median(times["hand parser (engine)"])
        for name, ts in times.items():
            med = statistics.median(ts)
            label = "lengths change" if varying else "same framing"
            print(f"| {label} | {name} | {med * 1e6:.2f} | {med / ref:.0%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
