"""pytest-benchmark JSON: `pytest --benchmark-json FILE`, and the files `--benchmark-save` keeps in `.benchmarks/`.

{"machine_info": {...}, "commit_info": {"id": ...}, "datetime": ..., "version": ...,
"benchmarks": [{"fullname": "test_x.py::test_y[1]", "name", "group", "params", "extra_info",
"stats": {"min", "max", "mean", "stddev", "median", "rounds", "iterations", ..., "data": [...]}}]}.
`data` (always with `--benchmark-json`; in a saved file with `--benchmark-save-data`) holds every
round's time per iteration, in seconds: each round becomes a block (more than MOST_BLOCKS are
grouped in order, importers/source.py `blocks`). Without it the file holds statistics only, and the mean is imported as the
benchmark's one value (the statistics kept in the run's metadata), marked summary-only.
"""

from __future__ import annotations

from typing import Any

from pairbench.errors import RunFileError
from pairbench.importers.source import (
    Importer, Naming, Source, blocks, finite, not_interleaved_notice, summary_notice)
from pairbench.model import Benchmark, Metric, Notice, Run, Sample, Variant

__all__ = ["IMPORTER"]


def _detect(source: Source) -> bool:
    doc = source.doc
    return (isinstance(doc, dict) and isinstance(doc.get("machine_info"), dict)
            and isinstance(doc.get("benchmarks"), list)
            and all(isinstance(b, dict) and isinstance(b.get("stats"), dict) for b in doc["benchmarks"]))


def _read(source: Source, naming: Naming) -> Run:
    doc: dict[str, Any] = source.doc
    variant = naming.variant or source.stem
    benchmarks: list[Benchmark] = []
    samples: list[Sample] = []
    summaries: dict[str, dict[str, Any]] = {}
    for index, bench in enumerate(doc["benchmarks"]):
        name = str(bench.get("fullname") or bench.get("name") or f"benchmark{index + 1}")
        if any(b.name == name for b in benchmarks):
            raise RunFileError(f"{source.label}: benchmark {name!r} appears twice")
        stats = bench["stats"]
        data = [v for v in (finite(x) for x in stats.get("data") or []) if v is not None]
        if not data:
            mean = finite(stats.get("mean"))
            if mean is None:
                raise RunFileError(f"{source.label}: benchmark {name!r} has neither data nor a mean")
            data = [mean]
            summaries[name] = {k: v for k, v in stats.items() if k != "data"}
        options = {k: bench[k] for k in ("group", "params", "extra_info") if bench.get(k)}
        benchmarks.append(Benchmark(name, "micro", (Metric("time", "s", "lower", description="time per call"),),
                                    options))
        samples.extend(Sample(name, variant, "time", value, block, iteration=i) for block, i, value in blocks(data))
    if not benchmarks:
        raise RunFileError(f"{source.label} holds no pytest-benchmark benchmark")
    machine = doc.get("machine_info") or {}
    commit = doc.get("commit_info") or {}
    cpu = machine.get("cpu")
    notices: list[Notice] = [not_interleaved_notice("pytest-benchmark", source.label)]
    if summaries:
        notices.append(summary_notice("pytest-benchmark", source.label,
                                      "run pytest with --benchmark-save-data to keep every round's timing"))
    metadata: dict[str, Any] = {
        "imported_from": "pytest-benchmark", "source_file": source.label, "interleaved": False,
        "started": str(doc.get("datetime") or ""), "hostname": str(machine.get("node") or ""),
        "cpu": str(cpu.get("brand_raw") or "") if isinstance(cpu, dict) else "",
        "pytest_benchmark": {"version": doc.get("version"), "machine_info": machine, "commit_info": commit}}
    if summaries:
        metadata["summary_only"] = summaries
    meta = {"python": str(machine.get("python_version") or "")}
    if commit.get("id"):
        meta["git_commit"] = str(commit["id"])
    return Run(metadata, [Variant(variant, baseline=True, meta=meta)], benchmarks, samples, [], notices, "complete")


IMPORTER = Importer("pytest-benchmark", "pytest-benchmark JSON (--benchmark-json, .benchmarks/ files)", _detect, _read)
