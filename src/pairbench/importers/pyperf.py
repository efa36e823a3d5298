"""pyperf JSON (`-o FILE` of timeit, command, bench_func...; .json.gz too).

{"version": "1.0", "metadata": {...}, "benchmarks": [{"metadata": {"name": ...},
"runs": [{"metadata": {...}, "warmups": [[loops, value], ...], "values": [...]}]}]}.
One run = one process = one block; its values are iterations. Units: metadata "unit"
(second, byte, integer). pyperf measures all of one benchmark before the next, so an imported
run is marked not interleaved (metadata `interleaved: false`) and carries a notice saying so.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pairbench.errors import RunFileError
from pairbench.importers.source import Importer, Naming, Source
from pairbench.model import Benchmark, Direction, Kind, Metric, Notice, Run, Sample, Variant

__all__ = ["IMPORTER", "import_pyperf"]

_PYPERF_UNITS: dict[str, tuple[str, Direction]] = {
    "second": ("s", "lower"), "byte": ("B", "lower"), "integer": ("count", "lower")}


def _detect(source: Source) -> bool:
    doc = source.doc
    if not isinstance(doc, dict) or doc.get("schema") == "pairbench.run":
        return False
    benches = doc.get("benchmarks")
    # pytest-benchmark and Google Benchmark also write "benchmarks"; theirs have no "runs"
    return isinstance(benches, list) and all(isinstance(b, dict) and "runs" in b for b in benches) and (
        bool(benches) or ("version" in doc and "machine_info" not in doc and "context" not in doc))


def _read(source: Source, naming: Naming) -> Run:
    return import_pyperf(source.doc, variant=naming.variant or source.stem, source=source.label)


def _unix_time(text: Any) -> float:
    if not isinstance(text, str):
        return 0.0
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        return 0.0
    return (dt if dt.tzinfo else dt.astimezone()).timestamp()


def import_pyperf(doc: dict[str, Any], *, variant: str, source: str = "pyperf file") -> Run:
    common = doc.get("metadata") or {}
    benchmarks: list[Benchmark] = []
    samples: list[Sample] = []
    started = ""
    for index, bench in enumerate(doc.get("benchmarks", [])):
        meta = {**common, **(bench.get("metadata") or {})}
        name = str(meta.get("name") or f"benchmark{index + 1}")
        if any(b.name == name for b in benchmarks):
            raise RunFileError(f"{source}: benchmark {name!r} appears twice")
        unit, direction = _PYPERF_UNITS.get(str(meta.get("unit", "second")), ("", "lower"))
        # pyperf measures in-process loops (timeit, bench_func) or whole commands (`pyperf command`)
        kind: Kind = "command" if "command" in meta else "micro"
        benchmarks.append(Benchmark(name, kind, (Metric("time" if unit == "s" else "value", unit, direction),)))
        metric = benchmarks[-1].metrics[0].name
        block = 0
        for run in bench.get("runs", []):
            values = run.get("values") or []
            run_meta = {**meta, **(run.get("metadata") or {})}
            t = _unix_time(run_meta.get("date"))
            started = started or str(run_meta.get("date") or "")
            if not values:
                continue  # a calibration run: loops were chosen there, nothing measured
            for j, (_loops, value) in enumerate(run.get("warmups") or []):
                samples.append(Sample(name, variant, metric, float(value), block, iteration=j, warmup=True, time=t))
            for j, value in enumerate(values):
                samples.append(Sample(name, variant, metric, float(value), block, iteration=j, time=t))
            block += 1
    if not benchmarks:
        raise RunFileError(f"{source} holds no pyperf benchmark")
    metadata = {
        "imported_from": "pyperf",
        "source_file": source,
        "interleaved": False,
        "hostname": common.get("hostname", ""),
        "started": started,
        "cpu": common.get("cpu_model_name", ""),
        "pyperf": {k: v for k, v in common.items() if k != "name"},
    }
    notices = [Notice("imported", f"imported from pyperf ({source}); one block is one pyperf process",
                      "compare two imports with `pairbench compare` (unpaired: drift between them is not controlled)")]
    return Run(metadata, [Variant(variant, baseline=True, meta={"python": common.get("python_version", "")})],
               benchmarks, samples, [], notices, "complete")




IMPORTER = Importer("pyperf", "pyperf JSON (-o FILE; .json.gz too)", _detect, _read)
