"""The Markdown report of a known run, against a golden file, and its escaping."""

from __future__ import annotations

import os
from pathlib import Path

from tests.unit.runs_by_hand import make_run

from pairbench.model import Comparison
from pairbench.report.markdown import UNPAIRED_LABEL, md_escape, render_markdown

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "report_golden.md"


def test_markdown_matches_golden_file() -> None:
    text = render_markdown(make_run())
    if os.environ.get("PAIRBENCH_UPDATE_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_markdown_has_one_table_per_kind_sentences_warnings_and_details() -> None:
    text = render_markdown(make_run())
    assert text.count("| Benchmark | Metric | Variant |") == 3
    assert "## Command benchmarks" in text and "## HTTP benchmarks" in text and "## Micro benchmarks" in text
    assert "patched is 7.4% faster than head (ratio 0.926, 95% CI \\[0.912, 0.941\\])" in text
    assert "| startup | time | patched | 27.78 ms | −7.4% | 0.926 | [0.912, 0.941] | 8 | **faster** |" in text
    assert "load average 1.9 on 2 cores" in text
    assert "<details>" in text and "</details>" in text
    assert "pairbench cmd --runs 8 'ruby bench.rb'" in text


def test_user_strings_cannot_inject_html_or_break_tables() -> None:
    run = make_run(bench_name="<script>alert(1)</script>|x")
    text = render_markdown(run)
    assert "<script>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\|x" in text
    for line in text.splitlines():
        if line.startswith("| &lt;script"):
            assert line.count(" | ") == 8  # still 9 cells


def test_md_escape_keeps_words_readable() -> None:
    assert md_escape("req_per_s") == "req_per_s"
    assert md_escape("*bold* [link](x) `code`") == "\\*bold\\* \\[link\\](x) \\`code\\`"
    assert md_escape("two\nlines") == "two lines"


def test_unpaired_comparisons_are_labelled() -> None:
    run = make_run()
    comps = [Comparison("startup", "time", "head", "patched", 0.95, (0.9, 1.0), 0.04, 8, True, False,
                        "inconclusive", None, paired=False)]
    assert UNPAIRED_LABEL in render_markdown(run, comparisons=comps)
    assert UNPAIRED_LABEL not in render_markdown(run)


def test_interrupted_run_says_so() -> None:
    text = render_markdown(make_run(status="interrupted"))
    assert "this run is interrupted" in text


def test_command_line_fence_is_longer_than_backticks_inside() -> None:
    run = make_run()
    run.metadata["command_line"] = "pairbench cmd 'echo ```'"
    text = render_markdown(run)
    assert "````sh\npairbench cmd 'echo ```'\n````" in text


def test_a_run_that_failed_before_its_first_block_shows_no_empty_table() -> None:
    # a benchmark failed in its first block: only warm-ups were kept, and the report drew a table
    # header with no rows under a caption about values it did not have
    from dataclasses import replace as _replace

    from pairbench.report.markdown import render_markdown
    from tests.unit.runs_by_hand import make_run

    run = make_run()
    run = _replace(run, status="failed", comparisons=[], samples=[s for s in run.samples if s.warmup])
    text = render_markdown(run)
    assert "| Benchmark | Metric |" not in text and "values:" not in text and "## Command benchmarks" not in text
    assert "_No samples were measured (warm-ups only)._" in text
