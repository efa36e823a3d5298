"""Messages must say what is true (issue 10 §6): verdict words per metric kind, bimodality as observed."""

from __future__ import annotations

import io

import numpy as np
from rich.console import Console

from pairbench.analysis import analyze
from pairbench.model import Benchmark, Comparison, Metric, Run, Sample, Variant
from pairbench.report.markdown import render_markdown
from pairbench.report.terminal import render_terminal
from pairbench.report.wording import verdict_word
from pairbench.stats.compare import compare_paired

TIME, RATE = Metric("time"), Metric("rps", "req/s", "higher")
RSS, ALLOCS = Metric("rss", "B"), Metric("allocations", "count")
SCORE = Metric("score", "", "higher")


def test_verdict_words_per_metric_kind():
    assert (verdict_word("faster", TIME), verdict_word("slower", TIME)) == ("faster", "slower")
    assert (verdict_word("faster", RATE), verdict_word("slower", RATE)) == ("faster", "slower")
    assert (verdict_word("faster", RSS), verdict_word("slower", RSS)) == ("smaller", "larger")
    assert (verdict_word("faster", ALLOCS), verdict_word("slower", ALLOCS)) == ("lower", "higher")
    assert (verdict_word("faster", SCORE), verdict_word("slower", SCORE)) == ("higher", "lower")
    for v in ("same", "inconclusive", "exact", "insufficient"):
        assert verdict_word(v, RSS) == v


def _memory_run() -> Run:
    samples = []
    for blk in range(6):
        for v, t, rss in (("A", 0.1, 5e7), ("B", 0.1, 6e7)):
            samples.append(Sample("w", v, "time", t + blk * 1e-4, blk))
            samples.append(Sample("w", v, "rss", rss + blk, blk))
    comps = [Comparison("w", "time", "A", "B", 1.0, (0.99, 1.01), 0.9, 6, False, False, "same", None),
             Comparison("w", "rss", "A", "B", 1.2, (1.19, 1.21), 0.001, 6, True, True, "slower", None)]
    return Run({"blocks": 6}, [Variant("A", baseline=True), Variant("B")],
               [Benchmark("w", "command", (TIME, RSS))], samples, comps, [], "complete")


def test_memory_rows_say_larger_not_slower_in_the_terminal_and_markdown():
    buf = io.StringIO()
    render_terminal(_memory_run(), Console(file=buf, width=200, color_system=None, force_terminal=False))
    row = next(line for line in buf.getvalue().splitlines() if line.startswith("rss"))
    assert "larger" in row and "slower" not in row
    md = render_markdown(_memory_run())
    md_row = next(line for line in md.splitlines() if "| rss |" in line and "**" in line)
    assert "**larger**" in md_row and "slower" not in md_row


def _bimodal(n: int = 12) -> np.ndarray:
    return np.where(np.arange(n) % 3 == 0, 0.12, 0.10) * np.exp(np.random.default_rng(1).normal(0, 0.001, n))


def test_bimodal_notice_says_what_was_observed_not_a_cause():
    values = _bimodal()
    run = Run({}, [Variant("A", baseline=True), Variant("B")], [Benchmark("w", "command", (TIME,))],
              [Sample("w", v, "time", float(x), blk) for blk, x in enumerate(values) for v in ("A", "B")])
    _, notices = analyze(run)
    bimodal = [n for n in notices if n.kind == "bimodal"]
    assert bimodal
    for n in bimodal:
        text = n.message + " " + n.hint
        assert "cache" not in text and "JIT" not in text and "frequency" not in text
        assert "8 blocks at one level, 4 about 20% above it" in n.message


def test_bimodal_differences_note_gives_the_two_sizes():
    base = np.full(12, 0.1) * np.exp(np.random.default_rng(2).normal(0, 0.0005, 12))
    cand = base * np.where(np.arange(12) % 3 == 0, 1.10, 1.0)
    r = compare_paired(base, cand)
    [note] = [x for x in r.notes if x.startswith("bimodal")]
    assert "JIT" not in note and "cache" not in note
    assert "in 8 blocks the change is about +0.0%" in note and "in 4 about +10.0%" in note


def test_an_adjusted_ci_is_labelled_with_its_own_level():
    """Holm's first step judges at 99.4% (2 comparisons, 98.8% per look): the label says 99.4%, not 98.8%."""
    from pairbench.report.wording import verdict_sentence

    c = Comparison("json", "work", "A", "B", 0.988, (0.952, 1.025), 0.4, 29, False, False, "same", None,
                   threshold=0.05, confidence=0.9875, adjusted_ci=(0.950, 1.027), adjusted_p=0.41,
                   adjusted_confidence=0.99375)
    text = verdict_sentence(c, Metric("work", ""))
    assert "99.4% CI adjusted for multiple comparisons" in text and "98.8%" not in text


def test_a_few_far_blocks_among_hundreds_are_outliers_not_two_levels():
    """2 blocks of 586 far above the rest raised the bimodality coefficient, and the run said the
    values `look bimodal: 584 blocks at one level, 2 about 977% above it`: two levels need each a
    share of the blocks, as two equal groups, or 8 and 4 of 12, have."""
    rng = np.random.default_rng(3)
    values = 0.0234 * np.exp(rng.normal(0, 0.02, 586))
    values[[100, 400]] *= 10.8
    run = Run({}, [Variant("A", baseline=True), Variant("B")], [Benchmark("w", "command", (TIME,))],
              [Sample("w", v, "time", float(x), blk) for blk, x in enumerate(values) for v in ("A", "B")])
    _, notices = analyze(run)
    assert not [n for n in notices if n.kind == "bimodal"], [n.message for n in notices]
    assert any(n.kind == "outliers" and "2 of 586 blocks are outliers" in n.message for n in notices)
    two_levels = np.where(np.arange(586) % 3 == 0, 0.12, 0.10) * np.exp(rng.normal(0, 0.001, 586))
    run.samples = [Sample("w", v, "time", float(x), blk) for blk, x in enumerate(two_levels) for v in ("A", "B")]
    _, notices = analyze(run)
    assert any(n.kind == "bimodal" and "390 blocks at one level, 196" in n.message for n in notices)
    assert not [n for n in notices if n.kind == "outliers"]  # was '196 of 586 blocks are outliers' beside it
