"""pyperf's JSON (file format version 1.0, pyperf/_bench.py), so that `python -m pyperf show` and
`compare_to` read a pairbench run.

A pyperf benchmark is one name with runs of values in seconds; a pyperf run is a worker process.
Here each benchmark's time per run (a command's `time`, a micro benchmark's `time_per_op`) becomes
a pyperf benchmark, one pyperf run per block (its warm-ups as pyperf's, one loop each). `compare_to`
compares two files, so the exporter table writes one file per variant (report/exporters.py); the
text of a run of several variants names each benchmark BENCHMARK/VARIANT instead.
"""

from __future__ import annotations

import json
from typing import Any

from pairbench.model import Run
from pairbench.report.command import TIME_METRICS

__all__ = ["render_pyperf", "left_out", "PYPERF_VERSION"]

PYPERF_VERSION = "1.0"
"""pyperf's `_JSON_VERSION` (pyperf 1.0 and later)."""


def _runs(run: Run, bench: str, variant: str, metric: str) -> list[dict[str, Any]]:
    blocks: dict[int, dict[str, list[Any]]] = {}
    for s in run.samples:
        if (s.benchmark, s.variant, s.metric) == (bench, variant, metric):
            entry = blocks.setdefault(s.block, {"warmups": [], "values": []})
            entry["warmups" if s.warmup else "values"].append([1, s.value] if s.warmup else s.value)
    out = []
    pending: list[Any] = []
    for block in sorted(blocks):
        pending += blocks[block]["warmups"]
        if blocks[block]["values"]:  # pyperf reads a run without values as a calibration run
            out.append({**({"warmups": pending} if pending else {}), "values": blocks[block]["values"]})
            pending = []
    return out


def _not_positive(runs: list[dict[str, Any]]) -> tuple[int, int]:
    """(runs holding a value <= 0, runs): pyperf refuses a file with one such value (`values must be
    a sequence of number > 0.0`), and a command shorter than its shell's start-up reads 0."""
    return sum(1 for r in runs if any(v <= 0 for v in r["values"])), len(runs)


def left_out(run: Run) -> list[str]:
    """What `render_pyperf` leaves out, and why, a line per benchmark and variant (for a warning)."""
    lines = []
    for bench in run.benchmarks:
        metric = next((m.name for m in bench.metrics if m.name in TIME_METRICS), None)
        for v in run.variants if metric is not None else ():
            bad, total = _not_positive(_runs(run, bench.name, v.name, metric or ""))
            if bad:
                lines.append(f"{bench.name} ({v.name}) left out of the pyperf export: {bad} of its {total} runs "
                             "read 0 or less, and pyperf reads only times above 0")
    return lines


def render_pyperf(run: Run) -> str:
    """The run as one pyperf BenchmarkSuite (several variants: one benchmark per benchmark and variant);
    a benchmark and variant with a time of 0 is left out (`left_out`), so pyperf can read the rest."""
    several = len(run.variants) > 1
    benchmarks = []
    for bench in run.benchmarks:
        metric = next((m.name for m in bench.metrics if m.name in TIME_METRICS), None)
        if metric is None:
            continue
        for v in run.variants:
            runs = _runs(run, bench.name, v.name, metric)
            if runs and not _not_positive(runs)[0]:
                name = f"{bench.name}/{v.name}" if several else bench.name
                benchmarks.append({"metadata": {"name": name, "unit": "second", "loops": 1}, "runs": runs})
    metadata: dict[str, Any] = {}
    host = run.metadata.get("hostname") or run.metadata.get("host")
    if isinstance(host, str) and host:
        metadata["hostname"] = host
    # compact, as pyperf writes its own files: a run of many values stays small
    return json.dumps({"version": PYPERF_VERSION, "metadata": metadata, "benchmarks": benchmarks},
                      separators=(",", ":")) + "\n"
