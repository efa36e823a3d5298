"""The Ruby side of the micro runner: the run's directory, and one file's benchmarks
calibrated together in one worker.

Ruby workers run each benchmark from a script in one directory per run (`RunDirectory`), so what
a prelude makes next to `$0` (require.yml's 10,000 files) is made once per run, not per worker.

A benchmark_driver file holds many benchmarks under one prelude (realpath.yml has 15,
array_max_float.yml 12). Calibrating each in a worker of its own costs a Ruby start-up and a
prelude per benchmark before anything is measured; one worker on the baseline calibrates them all,
each in a fresh binding with its own teardown. Only the loop count comes from it: every measured
sample still runs in a worker of its own.
"""

from __future__ import annotations

import shutil
import tempfile
import weakref
from typing import Any, Callable, Iterator, Sequence

from pairbench.model import Benchmark

__all__ = ["batch_requests", "RunDirectory"]


class RunDirectory:
    """A temporary directory made on first use and removed by `remove` (or when collected)."""

    def __init__(self) -> None:
        self._path: str | None = None

    def path(self) -> str:
        if self._path is None:
            self._path = tempfile.mkdtemp(prefix="pairbench-rb-")
            weakref.finalize(self, shutil.rmtree, self._path, True)
        return self._path

    def remove(self) -> None:
        if self._path is not None:
            shutil.rmtree(self._path, ignore_errors=True)
            self._path = None


def _key(benchmark: Benchmark) -> tuple[str, float, str] | None:
    o = benchmark.options
    if o.get("language") != "ruby" or not o.get("file") or "index" not in o or o.get("loops") or o.get("script"):
        return None
    return str(o["file"]), float(o.get("target_time") or 0.0), str(o.get("clock") or "")


def batch_requests(benchmarks: Sequence[Benchmark], spec: Callable[[Benchmark], dict[str, Any]],
                   target: float) -> Iterator[tuple[dict[int, Benchmark], dict[str, Any]]]:
    """Per Ruby file with two or more benchmarks to calibrate: (index -> benchmark, the request).

    Args:
        benchmarks: the run's benchmarks not yet calibrated (other kinds and files are skipped).
        spec: the worker spec of one benchmark (file, index, clock).
        target: seconds per sample for benchmarks that do not set `target_time`.
    """
    groups: dict[tuple[str, float, str], list[Benchmark]] = {}
    for b in benchmarks:
        key = _key(b)
        if key is not None:
            groups.setdefault(key, []).append(b)
    for (_, seconds, _), group in groups.items():
        if len(group) < 2:
            continue
        by_index = {int(b.options["index"]): b for b in group}
        request = {k: v for k, v in spec(group[0]).items() if k != "index"}
        request.update({"mode": "calibrate", "target": seconds or target, "indexes": sorted(by_index)})
        yield by_index, request
