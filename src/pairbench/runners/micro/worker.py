"""A micro worker's protocol: the harness it runs, how it is started, and what its answer says.

A worker is the variant's interpreter running `harness/py_harness.py` or `harness/rb_harness.rb`:
one JSON request on stdin, one JSON answer on the last stdout line that starts with MARKER.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from pairbench.model import Benchmark

__all__ = ["BATCHES", "HARNESS_DIR", "MARKER", "MIN_BATCH_S", "PY_MIN_VERSION", "Spawn", "WorkerResult",
           "batch_count", "batch_times", "parse_answer", "default_spawn", "worker_spec"]

HARNESS_DIR = Path(__file__).resolve().parent / "harness"
MARKER = "@@pairbench@@ "
PY_MIN_VERSION = (3, 8)

BATCHES = 8
"""Batches each sample's loop is timed in (the loop split in equal parts, each timed alone): the 7
samples of a default process make 56 values, enough to find a JIT's warm-up in (a steady state must
span the last quarter: 14 values)."""
MIN_BATCH_S = 0.005
"""Shortest batch: a batch costs two clock reads and a loop entry (about 1 µs), under 2e-4 of it, so
a sample (their sum) keeps its value; shorter samples get fewer batches, one (none) under 10 ms."""

Spawn = Callable[[list[str], str, Mapping[str, str], "str | None", float], "tuple[int, str, str]"]
"""(argv, stdin text, env, cwd, timeout) -> (returncode, stdout, stderr); injectable for tests."""


@dataclass(frozen=True, slots=True)
class WorkerResult:
    """One worker's answer, or why there is none."""

    ok: bool
    data: dict[str, Any] = field(default_factory=dict)
    error: str = ""


def parse_answer(returncode: int, stdout: str, stderr: str) -> WorkerResult:
    """The worker's JSON answer from its last marker line; a crash or garbage becomes an error."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARKER):
            try:
                data = json.loads(line[len(MARKER):])
            except ValueError:
                break
            if not isinstance(data, dict):
                break
            if data.get("ok"):
                return WorkerResult(True, data)
            return WorkerResult(False, data, str(data.get("error", "unknown error")))
    tail = (stderr.strip().splitlines() or ["no output"])[-1][:300]
    return WorkerResult(False, {}, f"worker exited with code {returncode} without an answer: {tail}")


def batch_count(sample_s: float) -> int:
    """Batches a sample of about `sample_s` seconds is timed in (1: not split; 0 s: not known yet)."""
    return max(1, min(BATCHES, int(sample_s / MIN_BATCH_S)))


def batch_times(data: Mapping[str, Any], overhead: float, inner: int, floor: float) -> tuple[int, list[float]] | None:
    """The answer's per-batch times as time per op, warm-up samples first: (batches per sample,
    values), or None without batches (an older harness, or one loop a sample).

    Args:
        data: the worker's answer: `batches` (per sample, its batch times) and `batch_loops`.
        overhead: the empty loop's cost per op, subtracted as from the samples.
        inner: operations per loop iteration.
        floor: the smallest share of the raw time per op a value keeps after the subtraction.
    """
    sizes = [int(n) * inner for n in data.get("batch_loops") or []]
    per_sample = data.get("batches") or []
    if len(sizes) < 2 or not per_sample or any(len(b) != len(sizes) for b in per_sample):
        return None
    values = []
    for batches in per_sample:
        for t, n in zip(batches, sizes):
            raw = float(t) / n
            values.append(max(raw - overhead, raw * floor))
    return len(sizes), values


def default_spawn(argv: list[str], stdin: str, env: Mapping[str, str], cwd: str | None,
                   timeout: float) -> tuple[int, str, str]:
    # errors="replace": a benchmark may print bytes that are not text (so_mandelbrot.rb's PBM image);
    # the answer is the JSON marker line, and the rest is only shown in error messages.
    proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, errors="replace", env=dict(env),
                          cwd=cwd, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def worker_spec(benchmark: Benchmark) -> dict[str, Any]:
    """What the worker times: its file and function (or index), or the snippet, and its clock."""
    o = benchmark.options
    clock = {"clock": o["clock"]} if o.get("clock") else {}
    if clock.get("clock") == "auto" and o.get("language") == "ruby":
        clock["clock"] = "cpu"  # a Ruby snippet never waits: its CPU time is the op
    if o.get("file"):
        spec: dict[str, Any] = {"file": o["file"], **clock}
        if "func" in o:
            spec["func"] = o["func"]
            if o.get("param") is not None:
                spec["param"] = o["param"]
        if "index" in o:
            spec["index"] = o["index"]
        if o.get("script"):
            spec["script"] = True
        if o.get("argv"):
            spec["argv"] = list(o["argv"])
        return spec
    return {"setup": o.get("setup", ""), "stmt": o.get("stmt", ""), **clock}
