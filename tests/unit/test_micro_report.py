"""Per-process reduction, its CI, and the benchmark-ips-like lines, from hand-built runs."""

from __future__ import annotations

import math

import pytest

from pairbench.model import Benchmark, Notice, Run, Sample, Variant
from pairbench.report.micro import format_rate, format_time, render_micro
from pairbench.runners.micro import micro_metrics
from pairbench.analysis.replicates import process_values
from pairbench.stats.per_process import summarize_processes


def _run() -> Run:
    bench = Benchmark("object_new", "micro", micro_metrics("ruby"), {"language": "ruby", "loops": 500000})
    variants = [Variant("trunk", "ruby", baseline=True), Variant("patch", "ruby-patch")]
    samples = []
    for block in range(4):
        for name, t in (("trunk", 200e-9), ("patch", 210e-9)):
            scale = 1 + 0.01 * (block - 1.5)
            samples.append(Sample("object_new", name, "time_per_op", t * 5, block, 0, 0, warmup=True))
            for it in (1, 2):
                samples.append(Sample("object_new", name, "time_per_op", t * scale, block, 0, it))
            samples.append(Sample("object_new", name, "allocs_per_op", 1.0 if name == "trunk" else 2.0, block))
    return Run(metadata={}, variants=variants, benchmarks=[bench], samples=samples)


def test_process_values_drop_warmup_and_average_within_a_process() -> None:
    means = process_values(_run(), "object_new", "time_per_op")
    assert set(means) == {"trunk", "patch"}
    assert means["trunk"][(0, 0)] == pytest.approx(200e-9 * (1 - 0.015))  # the 5x warm-up sample is ignored


def test_summarize_processes_is_a_t_interval_on_logs() -> None:
    # Known case: logs 0, ln 2 -> mean ln sqrt2, sd ln2/sqrt2, t(0.975, 1) = 12.706.
    s = summarize_processes([1.0, 2.0])
    assert s is not None and s.n == 2
    assert s.center == pytest.approx(math.sqrt(2))
    half = 12.7062047 * (math.log(2) / math.sqrt(2)) / math.sqrt(2)
    assert s.low == pytest.approx(math.sqrt(2) * math.exp(-half), rel=1e-6)
    assert s.high == pytest.approx(math.sqrt(2) * math.exp(half), rel=1e-6)
    assert summarize_processes([]) is None
    one = summarize_processes([3.0])
    assert one is not None and one.n == 1 and one.low == one.high == pytest.approx(3.0)


def test_formats() -> None:
    assert format_rate(4_886_000) == "4.886M"
    assert format_rate(12_345) == "12.345k"
    assert format_time(2.047e-7) == "204.7 ns"
    assert format_time(3.5e-6) == "3.5 µs"


def test_render_micro_shows_ips_with_ci_and_exact_allocations() -> None:
    text = render_micro(_run())
    lines = text.splitlines()
    assert lines[0].startswith("Calculating ---")
    trunk = next(line for line in lines if line.strip().startswith("trunk") and "i/s" in line)
    assert "5.000M" in trunk and "4 processes × 2 samples × 500000 ops" in trunk
    assert "± " in trunk and "200 ns/op" in trunk
    allocs = [line for line in lines if "allocs" in line]
    assert "trunk  allocs 1" in allocs[0] and "[" not in allocs[0]  # the baseline shows no delta
    assert "allocs 2 [+1]" in allocs[1]


def test_render_micro_says_unavailable_and_failed() -> None:
    run = _run()
    run.samples = [s for s in run.samples if s.variant == "trunk"]
    run.notices.append(Notice("benchmark-failed", "micro benchmark 'object_new' on variant 'patch': "
                              "RuntimeError: boom", benchmark="object_new", variant="patch"))
    run.notices.append(Notice("alloc-unavailable", "allocations on 'patch': unavailable (PyPy gives none)",
                              benchmark="object_new", variant="patch"))
    text = render_micro(run)
    assert "patch  failed: RuntimeError: boom" in text
    assert "patch  unavailable (PyPy gives none)" in text



def test_render_micro_gives_the_range_of_samples_per_process_when_a_plan_changed_it() -> None:
    run = _run()
    for block in (4, 5):  # two later blocks of 5 samples a process (the plan's), beside 4 of 2
        for name, t in (("trunk", 200e-9), ("patch", 210e-9)):
            run.samples += [Sample("object_new", name, "time_per_op", t, block, 0, it) for it in range(1, 6)]
    trunk = next(line for line in render_micro(run).splitlines() if line.strip().startswith("trunk") and "i/s" in line)
    assert "6 processes × 2–5 samples × 500000 ops" in trunk


def test_the_allocation_caption_explains_brackets_only_where_a_line_has_one() -> None:
    run = _run()
    run.samples = [s if s.metric != "allocs_per_op" else Sample(s.benchmark, s.variant, s.metric, 1.0, s.block)
                   for s in run.samples]
    text = render_micro(run)
    assert "[" not in text.split("Allocations per op", 1)[1].split("\n", 1)[1]
    assert "[±]" not in text
    assert "[±] = change from the baseline" in render_micro(_run())


def test_no_allocation_block_when_no_variant_has_data_or_a_reason() -> None:
    run = _run()
    run.samples = [s for s in run.samples if s.metric != "allocs_per_op"]  # --no-alloc, or a fake run
    text = render_micro(run)
    assert "Allocations per op" not in text and "no allocation data" not in text
    run.notices.append(Notice("alloc-unavailable", "allocations: unavailable on PyPy", "", "object_new", "patch"))
    text = render_micro(run)  # a reason is worth its line: the block stays, with both lines
    assert "Allocations per op" in text and "unavailable on PyPy" in text and "no allocation data" in text


def test_one_sample_a_process_is_said_in_the_singular() -> None:
    run = _run()
    run.samples = [s for s in run.samples if not (s.metric == "time_per_op" and s.iteration == 2)]
    trunk = next(line for line in render_micro(run).splitlines() if line.strip().startswith("trunk") and "i/s" in line)
    assert "4 processes × 1 sample × 500000 ops" in trunk
