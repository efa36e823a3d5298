"""Go's `go test -bench` text, the input benchstat reads.

    goos: linux
    pkg: example.com/fib
    BenchmarkFib-8     2000     2814 ns/op     0 B/op     0 allocs/op

Each benchmark line is one measurement (`-count N` writes N lines): a block (more than a hundred are
grouped in order, importers/source.py `blocks`). Its name loses the
`Benchmark` prefix and the `-GOMAXPROCS` suffix, as benchstat shows it (a package's path goes in
front when the file holds several packages). `ns/op`, `B/op`, `allocs/op` and `MB/s` become
`time`, `alloc_bytes`, `allocs` and `bytes_per_s`; any other unit is a metric of its own name.
"""

from __future__ import annotations

import re

from pairbench.errors import RunFileError
from pairbench.importers.source import Importer, Naming, Source, blocks, not_interleaved_notice
from pairbench.model import Benchmark, Metric, Run, Sample, Variant

__all__ = ["IMPORTER"]

_LINE = re.compile(r"^Benchmark(?P<name>\S*?)(?:-(?P<procs>\d+))?\s+(?P<n>\d+)\s+(?P<rest>\d.*)$")
_CONFIG = re.compile(r"^(?P<key>[a-z][^\s:]*):\s*(?P<value>.*)$")
_UNITS: dict[str, tuple[Metric, float]] = {
    # unit -> metric, factor to its SI unit
    "ns/op": (Metric("time", "s", "lower", description="time per operation"), 1e-9),
    "B/op": (Metric("alloc_bytes", "B", "lower", description="bytes allocated per operation"), 1.0),
    "allocs/op": (Metric("allocs", "count", "lower", description="allocations per operation"), 1.0),
    "MB/s": (Metric("bytes_per_s", "B/s", "higher"), 1e6),
}


def _metric_of(unit: str) -> tuple[Metric, float]:
    known = _UNITS.get(unit)
    if known:
        return known
    name = re.sub(r"[^\w/.-]+", "_", unit)
    return Metric(name, "", "higher" if unit.endswith("/s") else "lower"), 1.0


def _detect(source: Source) -> bool:
    return source.doc is None and any(_LINE.match(line) for line in source.text.splitlines())


def _read(source: Source, naming: Naming) -> Run:
    variant = naming.variant or source.stem
    config: dict[str, str] = {}
    lines: list[tuple[str, str, list[tuple[float, str]]]] = []  # package, name, (value, unit)...
    for line in source.text.splitlines():
        m = _LINE.match(line.strip())
        if m:
            fields = m["rest"].split()
            pairs = [(float(fields[i]), fields[i + 1]) for i in range(0, len(fields) - 1, 2)]
            lines.append((config.get("pkg", ""), m["name"] or "Benchmark", pairs))
            if m["procs"]:
                config.setdefault("gomaxprocs", m["procs"])
            continue
        c = _CONFIG.match(line.strip())
        if c:
            config[c["key"]] = c["value"]
    if not lines:
        raise RunFileError(f"{source.label} holds no Go benchmark line")
    several = len({pkg for pkg, _, _ in lines}) > 1
    by_name: dict[str, list[list[tuple[float, str]]]] = {}
    for pkg, short, pairs in lines:
        by_name.setdefault(f"{pkg}.{short}" if several and pkg else short, []).append(pairs)
    metrics: dict[str, list[Metric]] = {}
    samples: list[Sample] = []
    for name, measured in by_name.items():
        known = metrics.setdefault(name, [])
        for block, i, pairs in blocks(measured):
            for value, unit in pairs:
                metric, factor = _metric_of(unit)
                if metric not in known:
                    known.append(metric)
                samples.append(Sample(name, variant, metric.name, value * factor, block, iteration=i))
    benchmarks = [Benchmark(name, "micro", tuple(ms)) for name, ms in metrics.items()]
    metadata = {"imported_from": "go", "source_file": source.label, "interleaved": False,
                "cpu": config.get("cpu", ""), "go": config}
    return Run(metadata, [Variant(variant, baseline=True)], benchmarks, samples, [],
               [not_interleaved_notice("go test -bench", source.label)], "complete")


IMPORTER = Importer("go", "Go's `go test -bench` text output (what benchstat reads)", _detect, _read)
