"""One number format: a table and the sentence under it write the same change the same way."""

from __future__ import annotations

import re

import pytest

from pairbench.model import Benchmark, Comparison, Metric, Run, Sample, Variant
from pairbench.report.markdown import render_markdown


def _run(ratio: float, verdict: str, meaningful: bool) -> Run:
    samples = [Sample("b", v, "time", 0.1 * (ratio if v == "B" else 1.0), blk) for blk in range(8) for v in "AB"]
    c = Comparison("b", "time", "A", "B", ratio, (ratio * 0.9999, ratio * 1.0001), 0.001, 8, True, meaningful,
                   verdict, None)  # type: ignore[arg-type]
    return Run({}, [Variant("A", baseline=True), Variant("B")], [Benchmark("b", "command", (Metric("time"),))],
               samples, [c], status="complete")


@pytest.mark.parametrize(("ratio", "verdict", "meaningful"), [
    (2.5, "slower", True),       # +150%: the table wrote +150.0%, the sentence 150%
    (1.0004, "same", False),     # +0.04%: the table wrote +0.0%, the sentence +0.04%
    (0.926, "faster", True),
])
def test_the_table_and_the_sentence_round_a_change_alike(ratio: float, verdict: str, meaningful: bool) -> None:
    text = render_markdown(_run(ratio, verdict, meaningful))
    row = next(line for line in text.splitlines() if line.startswith("| b | time | B |"))
    change = row.split(" | ")[4]
    sentence = next(line for line in text.splitlines() if line.startswith("- **b · time**"))
    amount = change.lstrip("+−")
    assert re.search(rf"(?<![\d.]){re.escape(amount)}", sentence), (change, sentence)
