"""Google Benchmark JSON: `--benchmark_out=FILE --benchmark_out_format=json` (or `--benchmark_format=json`).

{"context": {"date", "host_name", "executable", "num_cpus", "library_build_type", ...},
"benchmarks": [{"name", "run_name", "run_type": "iteration"|"aggregate", "repetition_index",
"iterations", "real_time", "cpu_time", "time_unit": "ns"|"us"|"ms"|"s", "bytes_per_second",
"items_per_second", "error_occurred", ...}]}. Each repetition (`--benchmark_repetitions`) of a
benchmark is a block; the aggregates the library adds (mean, median, stddev, cv) are left out, as
pairbench makes its own from the repetitions. User counters (`state.counters["x"]`) are recorded
under their names but never judged (direction none): the JSON does not say which way is better.
"""

from __future__ import annotations

import re
from typing import Any

from pairbench.errors import RunFileError
from pairbench.importers.source import (
    TIME_UNITS_S, Importer, Naming, Source, blocks, finite, not_interleaved_notice)
from pairbench.model import Benchmark, Metric, Notice, Run, Sample, Variant

__all__ = ["IMPORTER"]

_METRICS: tuple[tuple[str, Metric], ...] = (
    # field -> metric; the times are scaled by time_unit, the rates are per second already
    ("real_time", Metric("time", "s", "lower", description="wall time per iteration")),
    ("cpu_time", Metric("cpu_time", "s", "lower", description="CPU time per iteration")),
    ("bytes_per_second", Metric("bytes_per_s", "B/s", "higher")),
    ("items_per_second", Metric("items_per_s", "op/s", "higher")),
)
_NOT_COUNTERS = {"name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
                 "repetition_index", "threads", "iterations", "time_unit", "aggregate_name", "aggregate_unit",
                 "error_occurred", "error_message", "label", "big_o", "rms", "complexity_n"}
"""Numeric fields of a benchmark entry that are not user counters (the _METRICS fields aside)."""


def _counters(reps: list[dict[str, Any]]) -> list[tuple[str, Metric]]:
    known = _NOT_COUNTERS | {field for field, _ in _METRICS}
    names = dict.fromkeys(k for r in reps for k, v in r.items() if k not in known and finite(v) is not None)
    return [(k, Metric(re.sub(r"\s+", "_", k), "", "none", description="user counter")) for k in names]


def _detect(source: Source) -> bool:
    doc = source.doc
    return (isinstance(doc, dict) and isinstance(doc.get("context"), dict) and isinstance(doc.get("benchmarks"), list)
            and all(isinstance(b, dict) and "real_time" in b for b in doc["benchmarks"]))


def _is_aggregate(bench: dict[str, Any]) -> bool:
    return bench.get("run_type") == "aggregate" or "aggregate_name" in bench


def _read(source: Source, naming: Naming) -> Run:
    doc: dict[str, Any] = source.doc
    variant = naming.variant or source.stem
    rows: dict[str, list[dict[str, Any]]] = {}
    notices: list[Notice] = [not_interleaved_notice("Google Benchmark", source.label)]
    for bench in doc["benchmarks"]:
        if _is_aggregate(bench):
            continue
        name = str(bench.get("run_name") or bench.get("name") or "benchmark")
        if bench.get("error_occurred"):
            notices.append(Notice("error", f"a repetition failed: {bench.get('error_message', '')}", "", name, variant))
            continue
        rows.setdefault(name, []).append(bench)
    benchmarks: list[Benchmark] = []
    samples: list[Sample] = []
    for name, reps in rows.items():
        fields = [(field, metric) for field, metric in _METRICS if any(finite(r.get(field)) is not None for r in reps)]
        fields += _counters(reps)
        benchmarks.append(Benchmark(name, "micro", tuple(m for _, m in fields),
                                    {"iterations": [r.get("iterations") for r in reps]}))
        for block, i, rep in blocks(sorted(reps, key=lambda r: int(r.get("repetition_index") or 0))):
            scale = TIME_UNITS_S.get(str(rep.get("time_unit", "ns")))
            if scale is None:
                raise RunFileError(f"{source.label}: benchmark {name!r} has an unknown time_unit "
                                   f"{rep.get('time_unit')!r} (ns, us, ms or s)")
            for field, metric in fields:
                value = finite(rep.get(field))
                if value is not None:
                    factor = scale if metric.unit == "s" else 1.0
                    samples.append(Sample(name, variant, metric.name, value * factor, block, iteration=i))
    if not benchmarks:
        raise RunFileError(f"{source.label} holds no Google Benchmark repetition")
    context = doc.get("context") or {}
    metadata = {"imported_from": "google-benchmark", "source_file": source.label, "interleaved": False,
                "started": str(context.get("date") or ""), "hostname": str(context.get("host_name") or ""),
                "google_benchmark": context}
    if context.get("library_build_type") == "debug":
        notices.append(Notice("debug-library", "Google Benchmark's library was built in debug mode", ""))
    return Run(metadata, [Variant(variant, baseline=True, meta={"executable": str(context.get("executable") or "")})],
               benchmarks, samples, [], notices, "complete")


IMPORTER = Importer("google-benchmark", "Google Benchmark JSON (--benchmark_out_format=json)", _detect, _read)
