"""Results people already have, as pairbench runs: pyperf JSON and hyperfine `--export-json`.

An imported run keeps every value (warm-ups marked), so `compare` and `history` work on it. Both
tools measure all of one command before the next, so an imported run is marked not interleaved
(metadata `interleaved: false`) and carries a notice saying so; no verdict is stored with it.

pyperf: {"version": "1.0", "metadata": {...}, "benchmarks": [{"metadata": {"name": ...},
    "runs": [{"metadata": {...}, "warmups": [[loops, value], ...], "values": [...]}]}]}.
    One run = one process = one block; its values are iterations. Units: metadata "unit"
    (second, byte, integer).
hyperfine: {"results": [{"command": ..., "times": [...], "memory_usage_byte": [...],
    "parameters": {...}, "mean": ..., "user": ..., "system": ...}]}. Each command is a variant
    (the first is the baseline), each timing a block.
"""

from __future__ import annotations

import gzip
import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pairbench.errors import RunFileError, UserError
from pairbench.model import Benchmark, Direction, Kind, Metric, Notice, Run, Sample, Variant

__all__ = ["detect_format", "read_json", "import_file", "import_pyperf", "import_hyperfine", "FORMATS"]

FORMATS = ("pyperf", "hyperfine")
_PYPERF_UNITS: dict[str, tuple[str, Direction]] = {
    "second": ("s", "lower"), "byte": ("B", "lower"), "integer": ("count", "lower")}


def read_json(path: str | os.PathLike[str]) -> Any:
    """A JSON file, gzip-compressed or not (pyperf writes .json.gz); every problem is one UserError."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None
    if raw[:2] == b"\x1f\x8b":  # pyperf writes .json.gz
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise UserError(f"{path} is a damaged gzip file: {exc}") from None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{path} is not valid JSON ({exc}); import reads pyperf or hyperfine --export-json files") from None


def detect_format(doc: Any) -> str | None:
    """'pyperf', 'hyperfine', 'pairbench' or None."""
    if not isinstance(doc, dict):
        return None
    if doc.get("schema") == "pairbench.run":
        return "pairbench"
    results = doc.get("results")
    if isinstance(results, list) and results and all(isinstance(r, dict) and "times" in r for r in results):
        return "hyperfine"
    benches = doc.get("benchmarks")
    if isinstance(benches, list) and all(isinstance(b, dict) and "runs" in b for b in benches) and (
            "version" in doc or benches):
        return "pyperf"
    return None


def import_file(path: str | os.PathLike[str], *, fmt: str = "auto", name: str | None = None,
                benchmark: str | None = None) -> Run:
    """Read a pyperf or hyperfine JSON file as a Run.

    Args:
        fmt: "auto", "pyperf" or "hyperfine".
        name: variant name for pyperf (default: the file name without extension).
        benchmark: benchmark name for hyperfine (default "hyperfine", so that two exports match in `compare`).
    """
    doc = read_json(path)
    found = detect_format(doc)
    if fmt == "auto":
        fmt = found or ""
    if fmt == "pairbench" or (found == "pairbench"):
        raise UserError(f"{path} is already a pairbench run file; use it directly with report, compare or history")
    if fmt not in FORMATS or found != fmt:
        raise UserError(f"{path} is not a pyperf or hyperfine JSON file (expected pyperf's \"benchmarks\"/\"runs\" "
                        "or hyperfine's --export-json \"results\"/\"times\")")
    stem = Path(path).name.split(".")[0] or "imported"
    if fmt == "pyperf":
        return import_pyperf(doc, variant=name or stem, source=str(path))
    return import_hyperfine(doc, benchmark=benchmark or "hyperfine", source=str(path))


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
