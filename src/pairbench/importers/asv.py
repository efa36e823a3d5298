"""asv's results file: `results/<machine>/<commit>-<environment>.json` (format version 2).

{"commit_hash", "env_name", "date", "params": {machine, cpu, python...}, "version": 2,
"result_columns": ["result", "params", "version", "started_at", "duration", "stats_ci_99_a",
"stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number", "stats_repeat", "samples", "profile"],
"results": {"module.time_x": [row, in the order of result_columns, trailing columns left out]}}.
A parametrized benchmark's `result` and `samples` run over the product of its `params`, each point
a benchmark `name(p1, p2)` as asv prints it. `samples` (with `asv run --record-samples`) become
blocks; without them the result (asv's median) is the one value, marked summary-only. The unit
and type come from `results/benchmarks.json` when it is beside the machine's directory, else from
the name (`time_` seconds, `peakmem_` peak RSS and `mem_` object size in bytes, `track_` a plain
number). The variant is the commit (its first 8 hex digits) unless `--name`.
"""

from __future__ import annotations

import itertools
from typing import Any

from pairbench.errors import RunFileError
from pairbench.importers.source import (
    Importer, Naming, Source, blocks, finite, not_interleaved_notice, read_json, summary_notice)
from pairbench.model import Benchmark, Metric, Notice, Run, Sample, Variant

__all__ = ["IMPORTER"]

_UNITS = {"seconds": "s", "bytes": "B"}
_PREFIXES = (("time_", "time", "s"), ("timeraw_", "time", "s"), ("peakmem_", "peakmemory", "B"),
             ("mem_", "memory", "B"), ("track_", "track", ""))
"""Name prefix -> asv's benchmark type and unit, for a results file without benchmarks.json beside it."""
_METRIC_NAMES = {"time": "time", "peakmemory": "peak_rss", "memory": "memory"}


def _detect(source: Source) -> bool:
    doc = source.doc
    return isinstance(doc, dict) and "commit_hash" in doc and isinstance(doc.get("results"), dict)


def _described(source: Source) -> dict[str, Any]:
    """results/benchmarks.json (asv's list of benchmarks, with their type, unit and param names), if found."""
    if source.path is None:
        return {}
    path = source.path.parent.parent / "benchmarks.json"
    doc = read_json(path) if path.is_file() else {}
    return doc if isinstance(doc, dict) else {}


def _metric(name: str, info: dict[str, Any]) -> Metric:
    kind, unit = next(((k, u) for p, k, u in _PREFIXES if name.rpartition(".")[2].startswith(p)), ("track", ""))
    kind = str(info.get("type") or kind)
    unit = _UNITS.get(str(info.get("unit")), unit) if "unit" in info else unit
    return Metric(_METRIC_NAMES.get(kind, "value"), unit, "lower", description=f"asv {kind}")


def _read(source: Source, naming: Naming) -> Run:
    doc: dict[str, Any] = source.doc
    if doc.get("version", 2) != 2 or not isinstance(doc.get("result_columns"), list):
        raise RunFileError(f"{source.label} is an asv results file of an older format; run `asv update` first")
    commit = str(doc.get("commit_hash") or "")
    variant = naming.variant or commit[:8] or source.stem
    columns: list[str] = doc["result_columns"]
    described = _described(source)
    benchmarks: list[Benchmark] = []
    samples: list[Sample] = []
    notices: list[Notice] = [not_interleaved_notice("asv", source.label)]
    summary: dict[str, float] = {}
    for bench_name, row in doc["results"].items():
        fields = dict(zip(columns, row if isinstance(row, list) else []))
        info = described.get(bench_name) if isinstance(described.get(bench_name), dict) else {}
        metric = _metric(bench_name, info)
        params = fields.get("params") or []
        points = list(itertools.product(*params)) if params else [()]
        results = fields.get("result")
        results = results if isinstance(results, list) else [results]
        recorded = fields.get("samples") if isinstance(fields.get("samples"), list) else []
        for i, point in enumerate(points):
            name = f"{bench_name}({', '.join(str(p) for p in point)})" if point else bench_name
            values = [v for v in (finite(x) for x in (recorded[i] if i < len(recorded) and
                                                       isinstance(recorded[i], list) else [])) if v is not None]
            if not values:
                result = finite(results[i]) if i < len(results) else None
                if result is None:
                    notices.append(Notice("failed", f"asv recorded no result for {name}", "", name, variant))
                    continue
                values = [result]
                summary[name] = result
            options = {"asv_params": dict(zip(info.get("param_names") or [], point))} if point else {}
            benchmarks.append(Benchmark(name, "micro", (metric,), options))
            samples.extend(Sample(name, variant, metric.name, value, block, iteration=i)
                           for block, i, value in blocks(values))
    if not benchmarks:
        raise RunFileError(f"{source.label} holds no asv result")
    if summary:
        notices.append(summary_notice("asv", source.label, "run asv with --record-samples to keep every sample"))
    machine = doc.get("params") or {}
    metadata: dict[str, Any] = {
        "imported_from": "asv", "source_file": source.label, "interleaved": False,
        "hostname": str(machine.get("machine") or ""), "cpu": str(machine.get("cpu") or ""),
        "git_commit": commit, "asv": {k: doc.get(k) for k in ("env_name", "date", "params", "python", "requirements")}}
    if summary:
        metadata["summary_only"] = summary
    meta = {"git_commit": commit, "env_name": str(doc.get("env_name") or "")}
    return Run(metadata, [Variant(variant, baseline=True, meta=meta)], benchmarks, samples, [], notices, "complete")


IMPORTER = Importer("asv", "asv results JSON (results/MACHINE/COMMIT-ENV.json)", _detect, _read)
