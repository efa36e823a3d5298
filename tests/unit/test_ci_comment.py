"""The pull request comment of `pairbench ci` (report/comment.py) on runs built by hand."""

from __future__ import annotations

import re
from dataclasses import replace

from pairbench.model import Benchmark, Comparison, Metric, Run, Variant
from pairbench.report.comment import MARKER, CommentFacts, comment_escape, render_comment

EVIL = "@octocat [click](https://evil.example/x) <img src=x onerror=alert(1)> www.evil.example #12 a|b `code`"


def _comparison(bench: str, ratio: float, ci: tuple[float, float], verdict: str, meaningful: bool) -> Comparison:
    return Comparison(bench, "time", "base", "head", ratio, ci, 0.001, 12, verdict != "same", meaningful,
                      verdict, None, threshold=0.02)  # type: ignore[arg-type]


def _run(benches: dict[str, Comparison]) -> Run:
    time = Metric("time", "s", "lower")
    return Run({"cpu_model": "Xeon <b>", "cpu_count": 2, "kernel": "Linux 6.1", "blocks": 12, "elapsed_s": 3.0},
               [Variant("base", baseline=True), Variant("head")],
               [Benchmark(name, "command", (time,)) for name in benches], [], list(benches.values()))


def _facts(names: list[str]) -> CommentFacts:
    return CommentFacts(base_ref="main", base_commit="a" * 40, head_commit="b" * 40, threshold_source="the default",
                        reproduce="pairbench ci --base aaaa --head bbbb --cmd 'sh {worktree}/b.sh ```'",
                        gated=tuple((n, "time") for n in names))


def test_a_name_from_the_pull_request_adds_no_link_mention_html_or_cell() -> None:
    first = _run({EVIL: _comparison(EVIL, 1.3, (1.25, 1.35), "slower", True)})
    text = render_comment(first, None, _facts([EVIL]), 0)
    row = next(line for line in text.splitlines() if line.startswith("| ") and "octocat" in line)
    assert row.count(" | ") == 5  # six cells: the name's `|` did not add one
    assert "<img" not in text and "<b>" not in text
    assert "@octocat" not in text and "#12" not in text  # the forge links neither
    assert "https://" not in text and "www.evil" not in text  # nor autolinks the addresses
    assert "](" not in row.replace("\\](", "")  # no Markdown link


def test_comment_escape_keeps_plain_names_readable() -> None:
    assert comment_escape("parse_json-1.2") == "parse_json-1.2"
    assert comment_escape("@x") != "@x" and comment_escape("@x").startswith("@")


def test_the_marker_the_table_and_the_reproducing_command() -> None:
    run = _run({"parse": _comparison("parse", 1.3, (1.25, 1.35), "slower", True),
                "render": _comparison("render", 1.0, (0.99, 1.01), "same", False)})
    again = _run({"parse": _comparison("parse", 1.28, (1.22, 1.33), "slower", True)})
    text = render_comment(run, again, _facts(["parse", "render"]), 1)
    assert text.startswith(MARKER)
    assert "1 confirmed regression" in text.splitlines()[1]
    assert re.search(r"^\| parse \| .* \| 1\.300 \| .*slower, confirmed.* \|$", text, re.M)
    assert re.search(r"^\| render \| .* \| 1\.000 \| .*\| (same|no difference)[^|]* \|$", text, re.M)
    assert "±2%" in text and "the default" in text
    assert "<details>" in text and "</details>" in text
    fence = re.search(r"^(`{4,})sh$", text, re.M)  # longer than the command's own backticks
    assert fence and "pairbench ci --base aaaa" in text


def test_a_slower_result_not_reproduced_says_so_and_is_no_regression() -> None:
    run = _run({"parse": _comparison("parse", 1.05, (1.03, 1.07), "slower", True)})
    again = _run({"parse": _comparison("parse", 1.0, (0.99, 1.01), "same", False)})
    text = render_comment(run, again, _facts(["parse"]), 0)
    assert "no confirmed regression" in text
    assert "not confirmed" in text


def test_the_threshold_shown_is_the_comparisons_band() -> None:
    c = replace(_comparison("parse", 1.0, (0.99, 1.01), "same", False), threshold=0.05)
    assert "±5%" in render_comment(_run({"parse": c}), None, _facts(["parse"]), 0)


def test_a_comment_past_the_limit_leaves_the_details_out_but_keeps_the_table() -> None:
    names = [f"bench_{i:03d}" for i in range(40)]
    run = _run({n: _comparison(n, 1.0, (0.99, 1.01), "same", False) for n in names})
    full = render_comment(run, None, _facts(names), 0)
    short = render_comment(run, None, _facts(names), 0, limit=len(full) - 1)
    assert "<details>" in full and "<details>" not in short and len(short) < len(full)
    assert all(f"| {n} |" in short for n in names) and short.startswith(MARKER)
    assert "pairbench ci --base" in short


def test_a_benchmark_that_failed_on_a_side_has_its_row_with_the_error() -> None:
    from pairbench.model import Notice

    run = _run({"parse": _comparison("parse", 1.0, (0.99, 1.01), "same", False)})
    run.benchmarks.append(Benchmark("bench/t.py::test_@x", "pytest", (Metric("time", "s", "lower"),)))
    run.notices.append(Notice("benchmark-failed", "pytest benchmark 'bench/t.py::test_@x' on variant 'head': "
                              "ValueError: broken", "its other variants still run", "bench/t.py::test_@x", "head"))
    text = render_comment(run, None, _facts(["parse", "bench/t.py::test_@x"]), 0)
    row = next(line for line in text.splitlines() if line.startswith("| bench/t.py::test"))
    assert "failed on head" in row and "ValueError: broken" in row and "@x" not in row  # escaped
    assert "1 benchmark not compared" in text.splitlines()[1]


def test_an_insufficient_comparison_of_a_failed_benchmark_is_the_failed_row() -> None:
    from pairbench.model import Notice

    run = _run({"t": _comparison("t", 1.0, (0.0, 0.0), "insufficient", False)})
    run.notices.append(Notice("benchmark-failed", "pytest benchmark 't' on variant 'head': ValueError: broken", "",
                              "t", "head"))
    text = render_comment(run, None, _facts(["t"]), 0)
    rows = [line for line in text.splitlines() if line.startswith("| t |")]
    assert len(rows) == 1 and "failed on head: ValueError: broken" in rows[0]


def test_the_base_and_head_figures_are_the_ones_beside_the_ratio_in_the_terminal_and_run_file() -> None:
    from pairbench.model import Sample

    # per-block values whose median (3.0) is not their geometric mean (~2.9): the ratio is 2.0
    base = [1.0, 3.0, 3.2, 3.4, 4.0, 3.0]
    c = replace(_comparison("parse", 2.0, (1.9, 2.1), "slower", True), baseline_value=2.9, candidate_value=5.8)
    run = _run({"parse": c})
    run.samples.extend(Sample("parse", v, "time", x * (2 if v == "head" else 1), b)
                       for v in ("base", "head") for b, x in enumerate(base))
    text = render_comment(run, None, _facts(["parse"]), 0)
    row = next(line for line in text.splitlines() if line.startswith("| parse |"))
    assert row.startswith("| parse | 2.900 s | 5.800 s | 2.000 |"), row


def test_the_adjusted_mark_in_the_table_header_is_explained() -> None:
    c = replace(_comparison("parse", 1.3, (1.25, 1.35), "slower", True), adjusted_ci=(1.2, 1.4))
    d = replace(_comparison("render", 1.0, (0.99, 1.01), "same", False), adjusted_ci=(0.98, 1.02))
    text = render_comment(_run({"parse": c, "render": d}), None, _facts(["parse", "render"]), 0)
    assert "95% CI (adj.)" in text
    assert "(adj.)**: " in text or "(adj.): " in text.replace("**", ""), text
    assert "2 comparisons" in text


def test_each_note_in_the_details_names_its_benchmark_and_variant() -> None:
    from pairbench.model import Notice

    run = _run({"parse": _comparison("parse", 1.0, (0.99, 1.01), "same", False),
                "render": _comparison("render", 1.0, (0.99, 1.01), "same", False)})
    run.notices += [Notice("noise", "time: replicate values vary by 26.5% (CV)", "", "parse", "base"),
                    Notice("noise", "time: replicate values vary by 26.5% (CV)", "", "render", "head"),
                    Notice("load", "load average 2.84 on 2 cores when the run started")]
    text = render_comment(run, None, _facts(["parse", "render"]), 0)
    notes = [line for line in text.splitlines() if line.startswith("- note:")]
    assert notes == ["- note: parse · base: time: replicate values vary by 26.5% (CV)",
                     "- note: render · head: time: replicate values vary by 26.5% (CV)",
                     "- note: load average 2.84 on 2 cores when the run started"], notes


def test_a_headline_over_comparisons_without_a_verdict_says_so() -> None:
    """Too few blocks for a verdict (a short --max-time): 'no regression found' alone would say the
    head was judged and passed; the headline counts the benchmarks that had no verdict."""
    c = replace(_comparison("parse", 1.9, (1.2, 3.0), "insufficient", False), more_runs=5)
    d = _comparison("render", 1.0, (0.99, 1.01), "same", False)
    text = render_comment(_run({"parse": c, "render": d}), None, _facts(["parse", "render"]), 0)
    assert "1 benchmark without a verdict" in text.splitlines()[1], text.splitlines()[1]
    text = render_comment(_run({"render": d}), None, _facts(["render"]), 0)
    assert "without a verdict" not in text


def test_notes_past_the_first_ten_are_counted_not_dropped_silently() -> None:
    from pairbench.model import Notice

    run = _run({"parse": _comparison("parse", 1.0, (0.99, 1.01), "same", False)})
    run.notices += [Notice("noise", f"time: replicate values vary by {i}% (CV)", "", "parse", "base") for i in range(13)]
    text = render_comment(run, None, _facts(["parse"]), 0)
    assert len([line for line in text.splitlines() if line.startswith("- note:")]) == 10
    assert "- 3 more notes: in the job's log and the run file" in text


def test_the_details_of_a_benchmark_that_failed_on_a_side_say_so_not_that_more_blocks_are_needed() -> None:
    from pairbench.model import Notice

    c = replace(_comparison("t", 1.0, (0.0, 0.0), "insufficient", False), ratio=None, ci=None, n=0, more_runs=6)
    run = _run({"t": c})
    run.notices.append(Notice("benchmark-failed", "pytest benchmark 't' on variant 'head': ValueError: broken", "",
                              "t", "head"))
    text = render_comment(run, None, _facts(["t"]), 0)
    line = next(line for line in text.splitlines() if line.startswith("- t · time:"))
    assert line == "- t · time: no verdict: it failed on head (ValueError: broken)", line


def test_a_level_widened_for_the_planned_looks_is_explained() -> None:
    """Adaptive stopping widens each CI for its planned looks: the header's 99% is the 95% asked."""
    c = replace(_comparison("parse", 1.3, (1.25, 1.35), "slower", True), confidence=0.99)
    run = _run({"parse": c})
    run.metadata.update({"options": {"confidence": 0.95}, "adaptive": {"looks": [6, 8, 10, 12, 14]}})
    text = render_comment(run, None, _facts(["parse"]), 0)
    assert "| 99% CI |" in text
    assert "99% CI: the 95% asked, across 5 planned looks" in text, text
