"""The -v table's caption explains exactly the symbols its table shows: `±` (half the IQR) only
where a cell shows one, and the marks it uses (Δ, (+N), (< δ?), (adj.)) beside them."""

from __future__ import annotations

import io

from rich.console import Console

from pairbench.analysis.comparisons import analyze
from pairbench.model import Benchmark, Metric, Run, Sample, Variant
from pairbench.report.terminal import render_terminal


def _run(blocks: int, exact: bool = False) -> Run:
    metrics = (Metric("time"),) + ((Metric("instructions", "count", "lower", exact=True),) if exact else ())
    variants = [Variant("a", "a", baseline=True), Variant("b", "b")]
    samples = []
    for block in range(blocks):
        for v, t in (("a", 1.0), ("b", 1.02)):
            samples.append(Sample("bench", v, "time", t * (1 + 0.004 * ((block * 7) % 5)), block))
            if exact:
                samples.append(Sample("bench", v, "instructions", 1000.0 if v == "a" else 1100.0, block))
    run = Run(metadata={"blocks": blocks}, variants=variants,
              benchmarks=[Benchmark("bench", "command", metrics, {})], samples=samples)
    run.comparisons, _ = analyze(run)
    return run


def _verbose(run: Run) -> tuple[str, str]:
    """(the table's cells, its caption) of `-v`, without sentences."""
    buf = io.StringIO()
    render_terminal(run, Console(file=buf, width=250, color_system=None, force_terminal=False), sentences="none")
    text = buf.getvalue()
    cut = text.index("values:")
    return text[:cut], " ".join(text[cut:].split())  # the caption wraps at the table's width


def test_no_plus_minus_in_the_caption_of_a_table_without_one() -> None:
    table, caption = _verbose(_run(3))  # fewer than 4 blocks: no spread is shown
    assert "±" not in table
    assert "±" not in caption, caption


def test_the_caption_explains_the_plus_minus_its_table_shows() -> None:
    table, caption = _verbose(_run(8))
    assert "±" in table
    assert "± half the interquartile range" in caption, caption


def test_the_caption_explains_the_exact_delta_and_the_more_blocks_mark() -> None:
    table, caption = _verbose(_run(8, exact=True))
    assert "Δ" in table and "Δ: the exact difference of counts" in caption, caption
    run = _run(6)
    table, caption = _verbose(run)
    if any(c.verdict == "inconclusive" and c.more_runs for c in run.comparisons):
        assert "(+" in table and "(+N)" in caption, caption


def test_the_adjusted_mark_counts_the_comparisons_its_notes_count() -> None:
    """Each benchmark's time per op and its ops per second (the same comparison, inverted) count once:
    the caption's number is the family the verdicts' notes name ('Holm across 3 comparisons')."""
    from pairbench.report.captions import table_caption

    metrics = (Metric("time_per_op", "s", "lower"), Metric("ops_per_s", "op/s", "higher"))
    names = ["b1", "b2", "b3"]
    samples = [Sample(name, v, m, (t if m == "time_per_op" else 1 / t), block)
               for block in range(8) for name in names for v, t0 in (("a", 1.0), ("b", 1.3))
               for t in [t0 * (1 + 0.01 * ((block * 7) % 5))] for m in ("time_per_op", "ops_per_s")]
    run = Run(metadata={"blocks": 8}, variants=[Variant("a", "a", baseline=True), Variant("b", "b")],
              benchmarks=[Benchmark(n, "pytest", metrics, {}) for n in names], samples=samples)
    run.comparisons, _ = analyze(run)
    notes = {n for c in run.comparisons for n in c.notes if n.startswith("adjusted")}
    assert notes and all("across 3 comparisons" in n for n in notes), notes
    caption = table_caption(run, run.benchmarks[0], "values")
    assert "(adj.): widened for 3 comparisons" in caption, caption
