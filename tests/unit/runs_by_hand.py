"""Runs built by hand for reporter and store tests (no runner, no analysis involved)."""

from __future__ import annotations

import random

from pairbench.model import Benchmark, Comparison, Metric, Notice, Run, Sample, Variant

PERCENTILES = (50, 75, 90, 99, 100)


def make_run(seed: int = 1, bench_name: str = "startup", status: str = "complete", blocks: int = 8,
             speedup: float = 0.93) -> Run:
    rng = random.Random(seed)
    variants = [
        Variant("head", command="ruby-head", baseline=True, meta={"git_commit": "a" * 40}),
        Variant("patched", command="ruby-patched", env={"RUBY_GC_HEAP_INIT_SLOTS": "10000"},
                meta={"git_commit": "b" * 40}),
    ]
    time = Metric("time", "s", "lower", description="wall time")
    rss = Metric("rss", "B", "lower")
    rps = Metric("req_per_s", "req/s", "higher")
    lat = tuple(Metric(f"latency_p{p}", "s", "lower") for p in PERCENTILES)
    allocs = Metric("allocations", "count", "lower", exact=True)
    benchmarks = [
        Benchmark(bench_name, "command", (time, rss), {"command": "ruby bench.rb"}),
        Benchmark("issues page", "http", (rps, *lat), {"urls": ["/issues"]}),
        Benchmark("Object.new", "micro", (Metric("time_per_op", "s", "lower"), allocs)),
    ]
    samples: list[Sample] = []
    t = 1_700_000_000.0
    for block in range(blocks):
        order = ["head", "patched"] if block % 2 == 0 else ["patched", "head"]
        for v in order:
            f = speedup if v == "patched" else 1.0
            t += 1.0
            samples.append(Sample(bench_name, v, "time", round(0.030 * f * rng.uniform(0.98, 1.02), 6), block, time=t))
            samples.append(Sample(bench_name, v, "rss", float(50_000_000 + rng.randrange(1000)), block, time=t))
            samples.append(Sample("issues page", v, "req_per_s", round(450 / f * rng.uniform(0.97, 1.03), 3), block, time=t))
            for i, p in enumerate(PERCENTILES):
                samples.append(Sample("issues page", v, f"latency_p{p}", round(0.002 * f * (1 + i * 0.6) * rng.uniform(0.95, 1.05), 6), block, time=t))
            samples.append(Sample("Object.new", v, "time_per_op", round(2.0e-7 * rng.uniform(0.95, 1.05), 12), block, time=t))
            samples.append(Sample("Object.new", v, "allocations", 1.0 if v == "head" else 2.0, block, time=t))
    samples.insert(0, Sample(bench_name, "head", "time", 0.9, -1, warmup=True, time=t - 100))
    comparisons = [
        Comparison(bench_name, "time", "head", "patched", 0.926, (0.912, 0.941), 0.0001, blocks, True, True,
                   "faster", None, method="paired mean t", baseline_value=0.0300, candidate_value=0.0300 * 0.926,
                   sentence="patched is 7.4% faster than head (ratio 0.926, 95% CI [0.912, 0.941]); significant; "
                            f"exceeds the ±1% noise band; n = {blocks} paired blocks"),
        Comparison(bench_name, "rss", "head", "patched", 1.0001, (0.9995, 1.0007), 0.7, blocks, False, False,
                   "same", None, sentence="no meaningful difference: 95% CI [-0.1%, +0.1%] lies within ±1%",
                   baseline_value=50_000_500.0, candidate_value=50_000_500.0 * 1.0001),
        Comparison("issues page", "req_per_s", "head", "patched", 1.07, (0.99, 1.16), 0.09, blocks, False, False,
                   "inconclusive", 12, notes=("2 outliers (MAD z > 3.5)",), baseline_value=450.0,
                   candidate_value=450.0 * 1.07,
                   sentence="inconclusive: 95% CI [-1.0%, +16.0%] spans 0 and the +1% band edge; about 12 more blocks"),
        Comparison("Object.new", "allocations", "head", "patched", 2.0, None, None, blocks, True, True,
                   "slower", None, delta=1.0, sentence="patched allocates 1 more object per operation (exact)",
                   exact=True, baseline_value=1.0, candidate_value=2.0, method="exact delta"),
    ]
    notices = [Notice("load", "load average 1.9 on 2 cores during the run", "close other programs"),
               Notice("outliers", "2 outliers in patched", "", bench_name, "patched")]
    metadata = {"hostname": "bench-1", "started": "2026-11-30T12:00:00Z", "cpu": {"model": "Xeon", "count": 2},
                "kernel": "6.1.0", "git_commit": "c" * 40,
                "command_line": ["pairbench", "cmd", "--runs", str(blocks), "ruby bench.rb"]}
    return Run(metadata, variants, benchmarks, samples, comparisons, notices, status)


def make_sweep_run() -> Run:
    """A baseline and a sweep over RUBY_MAX_PACKED_HASH, with ratios that dip at 9."""
    values = [0, 3, 6, 9, 12]
    variants = [Variant("base", baseline=True)] + [
        Variant(f"packed={v}", env={"RUBY_MAX_PACKED_HASH": str(v)}, params={"RUBY_MAX_PACKED_HASH": str(v)})
        for v in values
    ]
    m = Metric("time", "s", "lower")
    samples = []
    ratios = {0: 1.0, 3: 0.97, 6: 0.95, 9: 0.93, 12: 0.96}
    for block in range(6):
        samples.append(Sample("hash", "base", "time", 0.1 + block * 1e-4, block, time=block * 10.0))
        for j, v in enumerate(values):
            samples.append(Sample("hash", f"packed={v}", "time", 0.1 * ratios[v] + block * 1e-4, block, time=block * 10.0 + j + 1))
    comps = [Comparison("hash", "time", "base", f"packed={v}", ratios[v], (ratios[v] - 0.01, ratios[v] + 0.01), 0.01, 6,
                        True, ratios[v] < 0.99, "faster" if ratios[v] < 0.99 else "same", None) for v in values]
    return Run({"hostname": "bench-1"}, variants, [Benchmark("hash", "command", (m,))], samples, comps, [], "complete")
