"""`wrk` as an optional load engine, for loads beyond one Python core.

wrk prints a human summary; instead of parsing it, a Lua `done` hook prints one JSON line with
the summary, the error counts and the latency percentiles, which lands in the same LoadResult as
the built-in engine (without a full histogram: the percentiles wrk reports are kept as they are).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import tempfile
from typing import Sequence

from pairbench.runners.http.spec import LoadResult, LoadSpec
from pairbench.runners.http.histogram import Histogram

__all__ = ["wrk_available", "wrk_script", "parse_wrk_output", "run_wrk", "WrkFailed", "WRK_PERCENTILES"]

WRK_PERCENTILES: tuple[float, ...] = (50, 66, 75, 80, 90, 95, 98, 99, 99.9, 100)
_MARK = "PAIRBENCH-WRK "


class WrkFailed(Exception):
    """wrk is missing, refused the settings, or printed no result."""


def wrk_available() -> bool:
    return shutil.which("wrk") is not None


def _lua_string(s: str | bytes) -> str:
    if isinstance(s, bytes):
        s = s.decode("latin-1")
    return '"' + "".join(c if c.isalnum() or c in " /-_.:=,;" else f"\\{ord(c):03d}" for c in s) + '"'


def wrk_script(spec: LoadSpec) -> str:
    """The Lua script: method, headers and body of the request, and the JSON `done` hook."""
    req = spec.requests[0]
    lines = [f"wrk.method = {_lua_string(req.method)}"]
    if req.body:
        lines.append(f"wrk.body = {_lua_string(req.body)}")
    for k, v in req.headers:
        lines.append(f"wrk.headers[{_lua_string(k)}] = {_lua_string(v)}")
    qs = ", ".join(f"{q:g}" for q in WRK_PERCENTILES)
    lines.append(
        f"""
done = function(summary, latency, requests)
  local p = {{}}
  for _, q in ipairs({{{qs}}}) do
    p[#p + 1] = string.format('"%g": %d', q, latency:percentile(q))
  end
  local e = summary.errors
  io.write(string.format('{_MARK}{{"requests": %d, "duration_us": %d, "bytes": %d, "connect": %d, ' ..
    '"read": %d, "write": %d, "status": %d, "timeout": %d, "mean_us": %f, "min_us": %d, "max_us": %d, ' ..
    '"percentiles_us": {{%s}}}}\\n', summary.requests, summary.duration, summary.bytes, e.connect, e.read,
    e.write, e.status, e.timeout, latency.mean, latency.min, latency.max, table.concat(p, ", ")))
end
"""
    )
    return "\n".join(lines) + "\n"


def parse_wrk_output(stdout: str) -> LoadResult:
    """The LoadResult in the JSON line the `done` hook printed (WrkFailed when there is none)."""
    for line in stdout.splitlines():
        if line.startswith(_MARK):
            doc = json.loads(line[len(_MARK) :])
            break
    else:
        raise WrkFailed("wrk printed no result line; its output was:\n" + stdout[-2000:])
    hist = Histogram()
    hist.count = int(doc["requests"])
    hist.total_ns = int(round(doc["mean_us"] * 1000 * hist.count))
    hist.min_ns = int(doc["min_us"]) * 1000
    hist.max_ns = int(doc["max_us"]) * 1000
    percentiles = {float(q): v / 1e6 for q, v in doc["percentiles_us"].items()}
    # wrk 4.1's latency:percentile(100) gives 0 (Debian's build): the longest request is its max.
    percentiles[100.0] = hist.max_ns / 1e9
    errors = {k: int(doc[k]) for k in ("connect", "read", "write", "timeout") if int(doc[k])}
    if "read" in errors:
        errors["reset"] = errors.pop("read")
    if "write" in errors:
        errors["reset"] = errors.get("reset", 0) + errors.pop("write")
    return LoadResult(
        histogram=hist,
        elapsed_s=int(doc["duration_us"]) / 1e6,
        completed=int(doc["requests"]),
        # wrk counts the responses of status 400 and more as one number, whatever their status.
        status_errors=int(doc["status"]),
        errors=errors,
        bytes_received=int(doc["bytes"]),
        fixed_percentiles=percentiles,
    )


def wrk_command(spec: LoadSpec, script: str, threads: int | None = None) -> list[str]:
    if len(spec.requests) != 1:
        raise WrkFailed("the wrk engine loads one URL at a time; drop --mix or use --engine builtin")
    if spec.rate is not None:
        raise WrkFailed("wrk has no fixed-rate mode (that is wrk2); use --engine builtin for --rate")
    if spec.duration is None:
        raise WrkFailed("wrk runs for a duration, not a request count: give --duration instead of -n")
    if not spec.keepalive:
        raise WrkFailed("wrk always keeps connections alive; drop --no-keepalive or use --engine builtin")
    if threads is not None and threads > spec.connections:
        raise WrkFailed(f"{threads} threads for {spec.connections} connection(s): wrk needs a connection per thread")
    threads = threads or max(1, min(spec.connections, os.cpu_count() or 1))
    return [
        "wrk", f"-t{threads}", f"-c{spec.connections}", f"-d{max(1, round(spec.duration))}s",
        f"--timeout={max(1, round(spec.timeout))}s", "-s", script, spec.requests[0].url,
    ]


def run_wrk(spec: LoadSpec, threads: int | None = None, extra_args: Sequence[str] = ()) -> LoadResult:
    """Run wrk once with the load's URL, connections and duration."""
    if not wrk_available():
        raise WrkFailed("wrk is not installed (Debian: apt-get install wrk); use --engine builtin")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(wrk_script(spec))
        path = f.name
    try:
        argv = wrk_command(spec, path, threads)
        argv[1:1] = list(extra_args)
        timeout = (spec.duration or 0) + spec.timeout + 30
        # wrk is the load generator: its CPU time is the client's (children reaped during the run:
        # wrk alone, as the servers are stopped after the load).
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        os.unlink(path)
    if proc.returncode != 0:
        raise WrkFailed(f"wrk failed with exit code {proc.returncode}: {(proc.stderr or proc.stdout).strip()[-500:]}")
    result = parse_wrk_output(proc.stdout)
    result.client_cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return result
