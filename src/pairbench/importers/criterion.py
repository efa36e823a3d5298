"""criterion.rs's saved measurements: a benchmark's directory, or all of `target/criterion`.

criterion writes, per benchmark, `<dir>/<baseline>/` with `benchmark.json` ({"full_id", "group_id",
"function_id", "value_str", ...}), `sample.json` ({"sampling_mode", "iters": [...], "times": [...]},
an older version `[[iters...], [times...]]`: each sample's total time in ns for its iteration
count) and `estimates.json` ({"mean": {"point_estimate", "standard_error", "confidence_interval"},
"median", "std_dev", "median_abs_dev", "slope"}, ns). The baseline directory is `new` for the last
run, `base` for the one before and any `--save-baseline NAME`: each is a variant (`base` the
baseline, `new` last), so that criterion's own question, new against base, is `pairbench compare`'s.
Each sample is a block, valued times[i] / iters[i]. A benchmark with estimates.json alone is
imported as its mean, summary-only. `change/` (criterion's comparison) and `report/` are skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pairbench.errors import RunFileError
from pairbench.importers.source import (
    TIME_UNITS_S, Importer, Naming, Source, blocks, finite, not_interleaved_notice, read_json, summary_notice)
from pairbench.model import Benchmark, Metric, Notice, Run, Sample, Variant

__all__ = ["IMPORTER"]

_SKIPPED = {"change", "report"}
_NS = TIME_UNITS_S["ns"]
_FILES = ("sample.json", "estimates.json")


def _pairs(doc: Any) -> tuple[list[Any], list[Any]] | None:
    """A sample.json's (iters, times), in either layout; None for another document."""
    if isinstance(doc, dict) and isinstance(doc.get("iters"), list) and isinstance(doc.get("times"), list):
        return doc["iters"], doc["times"]
    if isinstance(doc, list) and len(doc) == 2 and all(isinstance(x, list) for x in doc) and len(doc[0]) == len(doc[1]):
        return doc[0], doc[1]
    return None


def _estimate(doc: Any, key: str) -> dict[str, Any] | None:
    if not isinstance(doc, dict):
        return None
    # criterion 0.2 wrote "Mean", "Median"...; later versions "mean", "median"
    found = doc.get(key, doc.get(key.title().replace("_", "")))
    return found if isinstance(found, dict) and finite(found.get("point_estimate")) is not None else None


def _detect(source: Source) -> bool:
    if source.path is not None and source.is_dir:
        return bool(_measurement_dirs(source.path))
    if source.path is None or source.path.name not in _FILES:
        return False
    return _pairs(source.doc) is not None or _estimate(source.doc, "mean") is not None


def _measurement_dirs(root: Path) -> list[Path]:
    """The baseline directories under `root` (or `root` itself) holding sample.json or estimates.json."""
    found = {p.parent for name in _FILES for p in root.rglob(name) if p.parent.name not in _SKIPPED}
    return sorted(d for d in found if not set(d.relative_to(root).parts) & _SKIPPED)


def _benchmark_name(directory: Path, root: Path) -> str:
    info = directory / "benchmark.json"
    if info.is_file():
        doc = read_json(info)
        if isinstance(doc, dict) and doc.get("full_id"):
            return str(doc["full_id"])
    bench_dir = directory.parent
    try:
        rel = bench_dir.relative_to(root)
    except ValueError:
        rel = Path(bench_dir.name)
    return rel.as_posix() if rel.parts else bench_dir.name or "criterion"


def _variant_order(name: str) -> tuple[int, str]:
    return (0 if name == "base" else 2 if name == "new" else 1, name)


def _read(source: Source, naming: Naming) -> Run:
    assert source.path is not None
    if source.is_dir:
        root = source.path
        dirs = _measurement_dirs(root)
    else:
        dirs = [source.path.parent]
        root = source.path.parent.parent
    measured: dict[tuple[str, str], list[float]] = {}
    summaries: dict[str, dict[str, Any]] = {}
    for directory in dirs:
        bench = _benchmark_name(directory, root)
        baseline = directory.name
        values: list[float] = []
        sample = directory / "sample.json"
        if sample.is_file():
            pairs = _pairs(read_json(sample))
            if pairs is None:
                raise RunFileError(f"{sample} is not criterion's sample.json (expected \"iters\" and \"times\")")
            for iters, time_ns in zip(*pairs):
                n, t = finite(iters), finite(time_ns)
                if n and t is not None and n > 0:
                    values.append(t / n * _NS)
        if not values:
            estimates = read_json(directory / "estimates.json")
            mean = _estimate(estimates, "mean")
            if mean is None:
                raise RunFileError(f"{directory} has neither criterion's sample.json nor a mean in estimates.json")
            values = [float(mean["point_estimate"]) * _NS]
            summaries[f"{bench} ({baseline})"] = estimates
        measured[(bench, baseline)] = values
    if not measured:
        raise RunFileError(f"{source.label} holds no criterion measurement (sample.json or estimates.json)")
    names = sorted({b for _, b in measured}, key=_variant_order)
    if naming.variant and len(names) == 1:
        measured = {(bench, naming.variant): v for (bench, _), v in measured.items()}
        names = [naming.variant]
    variants = [Variant(name, baseline=(i == 0)) for i, name in enumerate(names)]
    metric = Metric("time", "s", "lower", description="time per iteration")
    benchmarks = [Benchmark(name, "micro", (metric,)) for name in dict.fromkeys(b for b, _ in measured)]
    samples = [Sample(bench, variant, "time", value, block, iteration=i)
               for (bench, variant), values in measured.items() for block, i, value in blocks(values)]
    notices: list[Notice] = [not_interleaved_notice("criterion", source.label)]
    metadata: dict[str, Any] = {"imported_from": "criterion", "source_file": source.label, "interleaved": False}
    if summaries:
        notices.append(summary_notice("criterion", source.label, "keep each benchmark's sample.json beside its "
                                                                 "estimates.json to import every sample"))
        metadata["summary_only"] = summaries
    return Run(metadata, variants, benchmarks, samples, [], notices, "complete")


IMPORTER = Importer("criterion", "criterion's directory (target/criterion, a benchmark's, or its "
                                 "sample.json/estimates.json)", _detect, _read)
