"""`report --markdown` gives each note once, after the sentences, as the terminal's default output
does: a note that holds for several metrics (time per op and ops/s) is not repeated per metric."""

from __future__ import annotations

from pairbench.analysis.comparisons import analyze
from pairbench.report.markdown import md_escape, render_markdown
from tests.unit.test_inverse_metrics import _run


def test_each_note_is_written_once_after_the_sentences() -> None:
    run = _run(1, 6, benches=2)
    run.comparisons, _ = analyze(run)
    notes = {n for c in run.comparisons for n in c.notes}
    shared = [n for n in notes if sum(n in c.notes for c in run.comparisons) > 1]
    assert shared  # the case: the same note on several comparisons
    text = render_markdown(run)
    last_sentence = max(text.rfind(f"**{c.benchmark} · {md_escape(c.metric)}**") for c in run.comparisons)
    for note in notes:
        assert text.count(md_escape(note)) == 1, note
        assert text.find(md_escape(note)) > last_sentence, note


def test_the_html_report_gives_each_note_once_too() -> None:
    import html

    from pairbench.report.html import render_html

    run = _run(1, 6, benches=2)
    run.comparisons, _ = analyze(run)
    text = render_html(run)
    for note in {n for c in run.comparisons for n in c.notes}:
        assert text.count(html.escape(note, quote=False)) == 1 or text.count(html.escape(note)) == 1, note


def test_not_interleaved_is_said_once_in_a_comparison_of_saved_runs() -> None:
    # `compare A B --markdown` said it under the title ("drift between the runs") and again in the notes
    # ("drift between sessions")
    from dataclasses import replace

    from pairbench.analysis import compare_runs
    from pairbench.model import Run, Variant
    from pairbench.report.html import render_html

    run = _run(1, 6, benches=2)
    base, new = (Run({}, [Variant("A", baseline=True)], run.benchmarks,
                     [replace(s, variant="A") for s in run.samples if s.variant == name]) for name in ("base", "cand"))
    comps, _ = compare_runs(base, new)
    assert comps and not comps[0].paired
    merged = Run({}, [Variant("A [base]", baseline=True), Variant("A [new]")], run.benchmarks,
                 [replace(s, variant="A [base]") for s in base.samples]
                 + [replace(s, variant="A [new]") for s in new.samples], comps)
    assert render_markdown(merged).count("not interleaved: drift between") == 1
    assert render_html(merged).count("not interleaved: drift between") == 1


def test_a_sentence_that_does_not_name_its_candidate_is_labelled_with_it() -> None:
    # three variants: "- **fib · time**: no meaningful difference: ..." said nothing of which candidate
    import re

    from pairbench.report.html import render_html
    from tests.unit.test_analysis import analyze as analyze_checked, make_run

    run = make_run({"A": 1.0, "B": 1.0, "C": 1.2}, noise=0.001)
    run.comparisons, _ = analyze_checked(run)
    md = [line for line in render_markdown(run).splitlines() if line.startswith("- **fib · time")]
    assert md[0].startswith("- **fib · time · B**: no meaningful difference")
    assert md[1].startswith("- **fib · time**: C is 20.0% slower than A")  # named already
    page = render_html(run)
    assert re.search(r"<b>fib · time · B</b>: no meaningful difference", page)


def test_a_one_letter_candidate_is_named_though_its_letter_is_in_the_sentence() -> None:
    # candidates `b` and `c`: "no verdict: ratio 0.264 ...; 4 blocks are too few" holds a `b`, not the name
    from pairbench.report.exporters import render_export
    from pairbench.report.summary import sentence_label
    from tests.unit.test_analysis import analyze as analyze_checked, make_run

    run = make_run({"a": 1.0, "b": 1.0, "c": 1.2}, noise=0.001)
    run.comparisons, _ = analyze_checked(run)
    [same] = [c for c in run.comparisons if c.metric == "time" and c.candidate == "b"]
    assert sentence_label(same, "no verdict: 4 blocks are too few", run.comparisons) == "fib · time · b"
    lines = [line for line in render_export(run, "markdown-table").splitlines() if line.startswith("- **")]
    assert lines[0].startswith("- **same** (b): ")
