"""Metrics a command writes as a JSON file in a known format (`cmd --metric-json pyperf`).

Why: a pyperformance comparison through `cmd` needed a hand-written regex per benchmark (74 for
51 benchmarks), and the text pyperf prints changes its unit with the magnitude. pyperf already
writes every value in its JSON format; each run points the command at a fresh file through the
environment variable METRIC_JSON_ENV (`bm_chaos.py -o "$PAIRBENCH_METRIC_JSON"`) and reads it back.

pyperf's format (pyperf/_bench.py, version "1.0"): {"version", "metadata", "benchmarks": [{"metadata",
"runs": [{"metadata", "warmups": [[loops, value]...], "values": [...]}]}]}. Metadata is merged
suite -> benchmark -> run; "name" names the benchmark and "unit" (second, byte, integer) its values.
Runs without "values" are calibration runs. One metric per benchmark: the mean of its values, in
seconds or bytes, named after the benchmark (`pyperf_NAME` when that is a built-in metric's name).
"""

from __future__ import annotations

import gzip
import json
import math
import os
from typing import Any, Callable

from pairbench.errors import BenchmarkFailed
from pairbench.runners.command.metric_spec import BUILTIN_NAMES

__all__ = ["METRIC_JSON_ENV", "METRIC_JSON_FORMATS", "fresh_metric_json", "read_metric_json", "read_pyperf_json"]

METRIC_JSON_ENV = "PAIRBENCH_METRIC_JSON"
"""The variable that holds the path each run writes its JSON to."""
PYPERF_VERSIONS = ("1.0",)
"""pyperf JSON versions read (pyperf 1.x and 2.x write 1.0)."""


def read_pyperf_json(data: Any) -> dict[str, float]:
    """Metric name -> mean value of each benchmark of a pyperf JSON document; ValueError if malformed."""
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise ValueError("not a pyperf JSON document (no 'benchmarks' list)")
    if data.get("version") not in PYPERF_VERSIONS:
        raise ValueError(f"pyperf JSON version {data.get('version')!r}; readable: {', '.join(PYPERF_VERSIONS)}")
    suite_meta = data.get("metadata") or {}
    out: dict[str, float] = {}
    for i, bench in enumerate(data["benchmarks"]):
        runs = [r for r in bench.get("runs") or [] if isinstance(r, dict)]
        meta = {**suite_meta, **(bench.get("metadata") or {}), **next((r.get("metadata") or {} for r in runs), {})}
        name = str(meta.get("name") or f"benchmark{i + 1}")
        values = [float(v) for r in runs for v in r.get("values") or []]
        if not values or not all(math.isfinite(v) for v in values):
            raise ValueError(f"benchmark {name!r} has no finite values (only calibration runs?)")
        out[f"pyperf_{name}" if name in BUILTIN_NAMES else name] = sum(values) / len(values)
    return out


METRIC_JSON_FORMATS: dict[str, Callable[[Any], dict[str, float]]] = {"pyperf": read_pyperf_json}
"""Format name -> reader of its parsed JSON."""


def fresh_metric_json(directory: str) -> str:
    """The path a run writes its JSON to, removed first: pyperf's -o refuses an existing file."""
    path = os.path.join(directory, "metric.json")
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    return path


def read_metric_json(fmt: str, directory: str, command: str) -> dict[str, float]:
    """The metrics of the JSON file a run wrote in `directory`; BenchmarkFailed names what is wrong."""
    path = os.path.join(directory, "metric.json")
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        raise BenchmarkFailed(f"`{command}` wrote no {fmt} JSON to ${METRIC_JSON_ENV}; write it there, e.g. "
                              f"`python3 bm_x.py -o \"${METRIC_JSON_ENV}\"`") from None
    try:
        return METRIC_JSON_FORMATS[fmt](json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw))
    except (ValueError, TypeError, AttributeError) as exc:
        raise BenchmarkFailed(f"`{command}`: its {fmt} JSON in ${METRIC_JSON_ENV} cannot be read: {exc}") from None
