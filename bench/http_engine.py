"""Built-in engine vs wrk vs ab, in the same run, on loopback.

1. nginx serving a small file: maximum requests/s with the same connections (keep-alive), and
   the client's CPU time per request (user + system, and the user part alone, from getrusage);
   beside it the engine without its C step, on the loop it takes then (the blocking socket for
   one connection, uvloop for several over plain http, epoll over TLS sockets for https).
2. the same nginx over https (a self-signed certificate made for the run; wrk -t1 beside the
   engine, the engine with --insecure): requests/s and client CPU per request;
3. with --http2 instead: the HTTP/2 client (on ngh2 and on h2) beside h2load -t1, h2c and over TLS;
4. the bundled demo app: throughput and median latency as each tool reports them.

Each (tool, setting) is run `--reps` times, interleaved with the order of the tools rotated every
repetition (the machine drifts), and the median is shown. "vs wrk" is the median of the ratios of
each repetition (the tools' loads next to each other in time, so that a slow phase of the machine
hits both), with its distribution-free 95% CI when there are enough repetitions (6 or more).
`--placement`: `split` (the default with two CPUs or more) runs the server on the last CPU and the
clients on the first, so that the scheduler does not sometimes put them on one CPU and measure
that instead; `shared` runs both on the last CPU, where every microsecond of client CPU per
request is taken from the server and the requests/s rank the clients by their CPU cost (the
least noisy comparison on a shared VM); `free` lets the scheduler place them. The server's CPU
time per request (read from /proc) shows when the server, not the client, limits every tool.

    PYTHONPATH=src python3 bench/http_engine.py [--duration 3] [--reps 3] [--connections 1,10,50]
        [--no-https | --only-https | --http2 [--streams 1,10]]
        [--placement split|shared|free]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from _http_servers import Nginx, free_port, wait_port  # noqa: E402

from pairbench.runners.http.engine import LoadSpec, RequestSpec, run_load  # noqa: E402
from pairbench.runners.http.selector_loop import has_c_step, use_c_step  # noqa: E402
from pairbench.runners.http.server import group_processes  # noqa: E402
from pairbench.runners.http.wrk import run_wrk  # noqa: E402
from pairbench.stats.changepoint import median_interval  # noqa: E402

DEMO_APP = ROOT / "src" / "pairbench" / "data" / "demo_app.py"


def _cpu(who: int) -> tuple[float, float]:
    r = resource.getrusage(who)
    return r.ru_utime, r.ru_stime


def _server_seconds(pids: list[int]) -> float:
    """User + system CPU seconds the server's processes have used so far."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


class Placement:
    """Where the server and the clients run (see the module's docstring): this process, with the
    wrk and ab it starts, on `client_cpu`; the server's processes on `server_cpu`."""

    def __init__(self, how: str) -> None:
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        if how == "split" and len(cpus) < 2:
            how = "free"
        self.pin = how != "free" and bool(cpus)
        self.how = how if self.pin else "free"
        self.server_cpu = cpus[-1] if cpus else 0
        self.client_cpu = cpus[0] if self.how == "split" else self.server_cpu

    def describe(self) -> str:
        if not self.pin:
            return "server and clients placed by the scheduler"
        if self.how == "shared":
            return f"server and clients on CPU {self.server_cpu}"
        return f"server on CPU {self.server_cpu}, clients on CPU {self.client_cpu}"

    def server(self, pid: int) -> list[int]:
        """The server's processes, pinned when placing (called once it is ready)."""
        # nginx and the demo app start in a session of their own: their group is their PID.
        pids = group_processes(pid) if os.path.isdir("/proc") else []
        if self.pin:
            for p in pids:
                os.sched_setaffinity(p, {self.server_cpu})
            os.sched_setaffinity(0, {self.client_cpu})
        return pids


def _per_request(before: tuple[float, float], after: tuple[float, float], n: int) -> dict[str, float]:
    user, sys_ = after[0] - before[0], after[1] - before[1]
    done, n = n, max(n, 1)
    return {"cpu_per_req": (user + sys_) / n, "user_per_req": user / n, "done": done}


def builtin(url: str, c: int, duration: float, loop: str = "auto") -> dict[str, float]:
    cpu0 = _cpu(resource.RUSAGE_SELF)
    spec = LoadSpec(requests=(RequestSpec(url),), connections=c, duration=duration, insecure=True)
    r = run_load(spec, loop=loop)
    return {"rps": r.req_per_s, "median": r.percentiles_s([50])[0], "errors": r.failed + r.non_2xx,
            **_per_request(cpu0, _cpu(resource.RUSAGE_SELF), r.completed)}


def builtin_python_step(url: str, c: int, duration: float) -> dict[str, float]:
    """The engine with its C step off: the Python step on the loop `auto` picks without it."""
    use_c_step(False)
    try:
        return builtin(url, c, duration)
    finally:
        use_c_step(True)


def wrk(url: str, c: int, duration: float, threads: int = 1) -> dict[str, float]:
    cpu0 = _cpu(resource.RUSAGE_CHILDREN)
    r = run_wrk(LoadSpec(requests=(RequestSpec(url),), connections=c, duration=duration), threads=threads)
    return {"rps": r.req_per_s, "median": r.percentiles_s([50])[0], "errors": r.failed + r.non_2xx,
            **_per_request(cpu0, _cpu(resource.RUSAGE_CHILDREN), r.completed)}


def builtin_h2(url: str, c: int, duration: float, streams: int = 1, library: str = "") -> dict[str, float]:
    from pairbench.runners.http.engine import new_event_loop
    from pairbench.runners.http.http2 import run_h2_load
    from pairbench.runners.http.tls import client_context

    cpu0 = _cpu(resource.RUSAGE_SELF)
    tls = client_context(True, http2=True) if url.startswith("https") else None
    r = run_h2_load(LoadSpec(requests=(RequestSpec(url),), connections=c, duration=duration, http2=True),
                    streams, tls, new_event_loop, library)
    return {"rps": r.req_per_s, "median": r.percentiles_s([50])[0], "errors": r.failed + r.non_2xx,
            **_per_request(cpu0, _cpu(resource.RUSAGE_SELF), r.completed)}


def h2load(url: str, c: int, duration: float, streams: int = 1) -> dict[str, float]:
    cpu0 = _cpu(resource.RUSAGE_CHILDREN)
    out = subprocess.run(["h2load", f"-c{c}", f"-m{streams}", "-t1", f"-D{max(1, round(duration))}", url],
                         capture_output=True, text=True, timeout=duration + 60).stdout
    cpu1 = _cpu(resource.RUSAGE_CHILDREN)
    rps = float(re.search(r"finished in [\d.]+\w*, ([\d.]+) req/s", out).group(1))  # type: ignore[union-attr]
    done = int(re.search(r"(\d+) succeeded", out).group(1))  # type: ignore[union-attr]
    failed = int(re.search(r"(\d+) failed", out).group(1))  # type: ignore[union-attr]
    return {"rps": rps, "median": float("nan"), "errors": failed, **_per_request(cpu0, cpu1, done)}


def _h2_table(url: str, conns: list[int], streams: list[int], reps: int, duration: float) -> None:
    """The HTTP/2 client beside h2load (nghttp2's, in C, one thread) in the same run."""
    from pairbench.runners.http.h2session import library_name

    tools: dict[str, Callable[..., dict[str, float]]] = {}
    if library_name() == "ngh2":
        tools["pairbench (ngh2)"] = lambda u, c, d, m: builtin_h2(u, c, d, m, "ngh2")
    tools["pairbench (h2)"] = lambda u, c, d, m: builtin_h2(u, c, d, m, "h2")
    tools["h2load -t1"] = h2load
    print("| connections | streams | tool | req/s | vs h2load | client CPU per request | of which user |")
    print("|---:|---:|---|---:|---:|---:|---:|")
    for c in conns:
        for m in streams:
            results: dict[str, list[dict[str, float]]] = {t: [] for t in tools}
            for rep in range(reps):
                for name, fn in _rotated(tools, rep):
                    results[name].append(fn(url, c, duration, m))
            ref = _median(results["h2load -t1"], "rps")
            for name, rows in results.items():
                rps = _median(rows, "rps")
                errors = sum(r["errors"] for r in rows)
                print(f"| {c} | {m} | {name} | {rps:,.0f} | {rps / ref:.0%} | {_median(rows, 'cpu_per_req') * 1e6:.1f} µs "
                      f"| {_median(rows, 'user_per_req') * 1e6:.1f} µs |" + (f" {errors:g} errors" if errors else ""))


def ab(url: str, c: int, duration: float) -> dict[str, float]:
    cpu0 = _cpu(resource.RUSAGE_CHILDREN)
    # ab's -t is whole seconds (0 would mean no time limit).
    out = subprocess.run(["ab", "-q", "-k", "-c", str(c), "-t", str(max(1, round(duration))), "-n", "100000000", url],
                         capture_output=True, text=True, timeout=duration + 60).stdout
    cpu1 = _cpu(resource.RUSAGE_CHILDREN)
    rps = float(re.search(r"Requests per second:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    done = int(re.search(r"Complete requests:\s+(\d+)", out).group(1))  # type: ignore[union-attr]
    failed = int(re.search(r"Failed requests:\s+(\d+)", out).group(1))  # type: ignore[union-attr]
    # ab's percentile table is in whole milliseconds; its mean time per request is finer.
    m = re.search(r"^\s+50%\s+(\d+)", out, re.M)
    median = float(m.group(1)) / 1000 if m else float("nan")
    return {"rps": rps, "median": median, "errors": failed, **_per_request(cpu0, cpu1, done)}


def _rotated(tools: dict[str, Callable[..., dict[str, float]]], rep: int) -> list[tuple[str, Callable[..., dict[str, float]]]]:
    items = list(tools.items())
    k = rep % len(items)
    return items[k:] + items[:k]


def _median(rows: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def _vs(results: dict[str, list[dict[str, float]]], name: str, ref: str) -> str:
    """The median of `name`'s ratios to `ref` repetition by repetition, with its 95% CI."""
    if ref not in results:
        return "-"
    ratios = [a["rps"] / b["rps"] for a, b in zip(results[name], results[ref]) if b["rps"] > 0]
    if not ratios:
        return "-"
    text = f"{statistics.median(ratios):.0%}"
    ci = median_interval(ratios) if name != ref else None
    return text + (f" [{ci[0]:.0%}, {ci[1]:.0%}]" if ci else "")


def _measured(fn: Callable[..., dict[str, float]], server: list[int], *args: object) -> dict[str, float]:
    """One load, with the server's CPU time per request beside the client's."""
    s0 = _server_seconds(server)
    row = fn(*args)
    done = row["done"]
    row["server_per_req"] = (_server_seconds(server) - s0) / done if server and done else float("nan")
    return row


def _nginx_table(url: str, tools: dict[str, Callable[..., dict[str, float]]], conns: list[int], reps: int,
                 duration: float, server: list[int]) -> None:
    print("| connections | tool | req/s | vs wrk (95% CI) | client CPU per request | of which user | server CPU per request |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for c in conns:
        here = dict(tools)
        if has_c_step():
            here["pairbench (Python step)"] = builtin_python_step
        results: dict[str, list[dict[str, float]]] = {t: [] for t in here}
        for rep in range(reps):
            for name, fn in _rotated(here, rep):
                results[name].append(_measured(fn, server, url, c, duration))
        for name, rows in results.items():
            rps = _median(rows, "rps")
            errors = sum(r["errors"] for r in rows)
            print(f"| {c} | {name} | {rps:,.0f} | {_vs(results, name, 'wrk -t1')} | {_median(rows, 'cpu_per_req') * 1e6:.1f} µs "
                  f"| {_median(rows, 'user_per_req') * 1e6:.1f} µs | {_median(rows, 'server_per_req') * 1e6:.1f} µs |"
                  + (f" {errors:g} errors" if errors else ""))


def _plain_nginx(tools: dict[str, Callable[..., dict[str, float]]], conns: list[int], reps: int,
                 duration: float, place: Placement) -> None:
    with tempfile.TemporaryDirectory() as d:
        nginx = Nginx(Path(d))
        try:
            server = place.server(nginx.proc.pid)
            print(f"\n## nginx (1 worker), {len((Path(d) / 'index.html').read_bytes())}-byte file, keep-alive\n")
            _nginx_table(nginx.url, tools, conns, reps, duration, server)
        finally:
            nginx.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=3.0)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--connections", default="1,10,50")
    ap.add_argument("--app-connections", type=int, default=2)
    ap.add_argument("--no-https", action="store_true", help="skip the https table")
    ap.add_argument("--only-https", action="store_true", help="only the https table")
    ap.add_argument("--http2", action="store_true", help="only the HTTP/2 tables (h2c and h2 over TLS) beside h2load")
    ap.add_argument("--streams", default="1,10", help="HTTP/2 streams per connection to measure")
    ap.add_argument("--placement", choices=("split", "shared", "free"), default="split",
                    help="server and clients on two CPUs (default), on one, or where the scheduler puts them")
    args = ap.parse_args()
    place = Placement(args.placement)
    conns = [int(c) for c in args.connections.split(",")]
    tools: dict[str, Callable[..., dict[str, float]]] = {"pairbench": builtin}
    if shutil.which("wrk"):
        tools["wrk -t1"] = wrk
    if shutil.which("ab"):
        tools["ab -k"] = ab
    print(f"engine: {'C step on epoll' if has_c_step() else 'Python step (C step not built)'}; {os.cpu_count()} CPUs; {args.duration:g} s per load, "
          f"median of {args.reps}; {place.describe()}")

    if args.http2:
        for tls in (False, True):
            with tempfile.TemporaryDirectory() as d:
                nginx = Nginx(Path(d), tls=tls, http2=True)
                try:
                    place.server(nginx.proc.pid)
                    print(f"\n## nginx (1 worker), HTTP/2 {'over TLS (ALPN h2)' if tls else '(h2c, prior knowledge)'}\n")
                    _h2_table(nginx.url, conns, [int(m) for m in args.streams.split(",")], args.reps, args.duration)
                finally:
                    nginx.stop()
        return 0
    if not args.only_https:
        _plain_nginx(tools, conns, args.reps, args.duration, place)
    if not args.no_https:
        https_tools = {k: v for k, v in tools.items() if k != "ab -k"}  # ab's TLS is not what is compared
        with tempfile.TemporaryDirectory() as d:
            nginx = Nginx(Path(d), tls=True)
            try:
                server = place.server(nginx.proc.pid)
                print("\n## nginx (1 worker) over https (TLS 1.3, RSA-2048 self-signed), keep-alive\n")
                _nginx_table(nginx.url, https_tools, conns, args.reps, args.duration, server)
            finally:
                nginx.stop()

    if args.only_https:
        return 0
    port = free_port()
    app = subprocess.Popen([sys.executable, str(DEMO_APP), "--port", str(port)], stdout=subprocess.DEVNULL,
                           start_new_session=True)
    try:
        wait_port(port)
        place.server(app.pid)
        url = f"http://127.0.0.1:{port}/"
        c = args.app_connections
        print(f"\n## bundled demo app (work 20 per page), {c} connections, keep-alive\n")
        print("| tool | req/s | vs wrk (95% CI) | median latency | vs wrk |")
        print("|---|---:|---:|---:|---:|")
        results: dict[str, list[dict[str, float]]] = {t: [] for t in tools}
        for rep in range(args.reps):
            for name, fn in _rotated(tools, rep):
                results[name].append(fn(url, c, args.duration))
        ref_rps = _median(results["wrk -t1"], "rps") if "wrk -t1" in results else None
        ref_med = _median(results["wrk -t1"], "median") if "wrk -t1" in results else None
        for name, rows in results.items():
            rps, med = _median(rows, "rps"), _median(rows, "median")
            print(f"| {name} | {rps:,.1f} | {_vs(results, name, 'wrk -t1')} | {med * 1000:.2f} ms | {med / ref_med:.0%} |"
                  if ref_rps and ref_med else f"| {name} | {rps:,.1f} | - | {med * 1000:.2f} ms | - |")
    finally:
        os.killpg(app.pid, 15)
        app.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
