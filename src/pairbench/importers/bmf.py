"""Bencher Metric Format (BMF) JSON: what `bencher run` reads and its adapters write.

{"benchmark name": {"measure": {"value": 88.0, "lower_value": 87.4, "upper_value": 88.6}, ...}, ...}.
BMF holds one value per benchmark and measure, so every import of it is summary-only (the lower and
upper values are kept in the run's metadata). Bencher's built-in measures map to pairbench's
metrics: `latency` (ns) to `time`, `throughput` (operations per second), `build-time` (s),
`file-size` (bytes); any other measure keeps its name, with no unit, lower being better unless its
name says per second. pairbench's own `--export-bmf` reads back to the same metrics.
"""

from __future__ import annotations

import re
from typing import Any

from pairbench.errors import RunFileError
from pairbench.importers.source import Importer, Naming, Source, finite, summary_notice
from pairbench.model import Benchmark, Metric, Run, Sample, Variant

__all__ = ["IMPORTER"]

_MEASURES: dict[str, tuple[Metric, float]] = {
    # measure -> metric, factor to its SI unit
    "latency": (Metric("time", "s", "lower"), 1e-9),
    "throughput": (Metric("throughput", "op/s", "higher"), 1.0),
    "build-time": (Metric("build_time", "s", "lower"), 1.0),
    "file-size": (Metric("file_size", "B", "lower"), 1.0),
}


def _metric_of(measure: str) -> tuple[Metric, float]:
    known = _MEASURES.get(measure)
    if known:
        return known
    name = re.sub(r"\s+", "_", measure.strip()) or "value"
    return Metric(name, "", "higher" if re.search(r"per_s|/s$|throughput", name) else "lower"), 1.0


def _detect(source: Source) -> bool:
    doc = source.doc
    return (isinstance(doc, dict) and bool(doc) and all(
        isinstance(measures, dict) and bool(measures) and all(
            isinstance(m, dict) and finite(m.get("value")) is not None for m in measures.values())
        for measures in doc.values()))


def _read(source: Source, naming: Naming) -> Run:
    doc: dict[str, dict[str, dict[str, Any]]] = source.doc
    variant = naming.variant or source.stem
    benchmarks: list[Benchmark] = []
    samples: list[Sample] = []
    bounds: dict[str, dict[str, Any]] = {}
    for given, measures in doc.items():
        name = given or "benchmark"
        metrics: list[Metric] = []
        for measure, figure in measures.items():
            metric, factor = _metric_of(measure)
            if metric in metrics:
                raise RunFileError(f"{source.label}: benchmark {name!r} has two measures read as {metric.name}")
            metrics.append(metric)
            samples.append(Sample(name, variant, metric.name, float(figure["value"]) * factor, 0))
            bounds.setdefault(name, {})[measure] = figure
        benchmarks.append(Benchmark(name, "micro", tuple(metrics)))
    metadata = {"imported_from": "bmf", "source_file": source.label, "interleaved": False, "summary_only": bounds}
    notices = [summary_notice("Bencher Metric Format", source.label, "BMF has one value per measure: import the "
                                                                     "tool's own output for every sample")]
    return Run(metadata, [Variant(variant, baseline=True)], benchmarks, samples, [], notices, "complete")


IMPORTER = Importer("bmf", "Bencher Metric Format JSON", _detect, _read)
