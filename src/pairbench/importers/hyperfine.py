"""hyperfine `--export-json`.

{"results": [{"command": ..., "times": [...], "memory_usage_byte": [...], "parameters": {...},
"mean": ..., "user": ..., "system": ...}]}. Each command is a variant (the first is the baseline),
each timing a block. hyperfine runs all of one command before the next: a notice says so.
"""

from __future__ import annotations

from typing import Any

from pairbench.errors import RunFileError
from pairbench.importers.source import Importer, Naming, Source
from pairbench.model import Benchmark, Metric, Notice, Run, Sample, Variant

__all__ = ["IMPORTER", "import_hyperfine"]


def _detect(source: Source) -> bool:
    doc = source.doc
    results = doc.get("results") if isinstance(doc, dict) else None
    return isinstance(results, list) and bool(results) and all(isinstance(r, dict) and "times" in r for r in results)


def _read(source: Source, naming: Naming) -> Run:
    # One benchmark name for every export, so that two exports match in `compare`
    return import_hyperfine(source.doc, benchmark=naming.benchmark or "hyperfine", source=source.label)


def import_hyperfine(doc: dict[str, Any], *, benchmark: str, source: str = "hyperfine file") -> Run:
    results = doc.get("results") or []
    commands = [str(r.get("command", f"command {i + 1}")) for i, r in enumerate(results)]
    variants: list[Variant] = []
    samples: list[Sample] = []
    has_memory = any(isinstance(r.get("memory_usage_byte"), list) for r in results)
    for i, r in enumerate(results):
        params = {str(k): str(v) for k, v in (r.get("parameters") or {}).items()}
        name = commands[i]
        if commands.count(name) > 1:
            name += " (" + ", ".join(f"{k}={v}" for k, v in params.items()) + ")" if params else f" #{i + 1}"
        variants.append(Variant(name, command=commands[i], baseline=(i == 0), params=params,
                                meta={"mean_user_s": r.get("user"), "mean_system_s": r.get("system")}))
        for block, value in enumerate(r.get("times") or []):
            samples.append(Sample(benchmark, name, "time", float(value), block))
        if has_memory:
            for block, value in enumerate(r.get("memory_usage_byte") or []):
                samples.append(Sample(benchmark, name, "peak_rss", float(value), block))
    if len({v.name for v in variants}) != len(variants):
        raise RunFileError(f"{source}: two hyperfine results have the same command and parameters")
    if not variants:
        raise RunFileError(f"{source} holds no hyperfine result")
    metrics = [Metric("time", "s", "lower", description="wall time")]
    if has_memory:
        metrics.append(Metric("peak_rss", "B", "lower"))
    notices = [Notice("not-interleaved",
                      "imported from hyperfine, which runs all of one command before the next: "
                      "differences between its commands include any drift of the machine",
                      "measure them again with `pairbench cmd` to interleave them")]
    for r, v in zip(results, variants):
        codes = [c for c in (r.get("exit_codes") or []) if c not in (0, None)]
        if codes:
            notices.append(Notice("exit-code", f"{len(codes)} runs exited with a non-zero code", "", benchmark, v.name))
    metadata = {"imported_from": "hyperfine", "source_file": source, "interleaved": False}
    return Run(metadata, variants, [Benchmark(benchmark, "command", tuple(metrics))], samples, [], notices, "complete")


IMPORTER = Importer("hyperfine", "hyperfine --export-json", _detect, _read)
