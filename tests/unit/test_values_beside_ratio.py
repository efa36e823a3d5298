"""The values beside a ratio are the values it compares: every comparison stores the baseline's and
the candidate's location in the metric's unit, and candidate ÷ baseline lies inside its CI."""

from __future__ import annotations

import io
import json
from dataclasses import replace

import numpy as np
import pytest
from rich.console import Console

from pairbench.analysis import analyze, check_consistent, compare_runs
from pairbench.model import Benchmark, Metric, Run, Sample, Variant
from pairbench.report.tables import render_many_table, render_unpaired_table
from pairbench.report.terminal import render_terminal
from pairbench.store.runfile import VERSION, dumps_run, loads_run, run_from_dict, run_to_dict
from tests.conftest import assert_consistent

TIME = Metric("time", "s", "lower")
USER = Metric("user", "s", "lower")
RPS = Metric("req_per_s", "req/s", "higher")


def _skewed_run(seed: int, blocks: int = 12) -> Run:
    """Three variants; per-block values skewed, with outliers, zeros and partial blocks: the medians
    of per-block values disagree with the paired ratio, as `cmd --reference` showed."""
    rng = np.random.default_rng(seed)
    samples = []
    for blk in range(blocks):
        drift = float(np.exp(rng.normal(0, 0.2)))  # a block-level swing both sides share
        for name, f in (("A", 1.0), ("B", 0.76), ("C", 1.04)):
            if name == "C" and blk == blocks - 1:
                continue  # C lost its last block
            spike = 3.0 if rng.random() < 0.15 else 1.0
            samples.append(Sample("w", name, "time", 0.006 * f * drift * spike * float(np.exp(rng.normal(0, .05))), blk))
            samples.append(Sample("w", name, "user", max(0.0, rng.normal(0.002 * f, 0.002)), blk))
            samples.append(Sample("w", name, "req_per_s", 1e4 / f * drift * float(np.exp(rng.normal(0, .03))), blk))
    return Run({"blocks": blocks}, [Variant("A", baseline=True), Variant("B"), Variant("C")],
               [Benchmark("w", "command", (TIME, USER, RPS))], samples)


@pytest.mark.parametrize("seed", range(8))
def test_every_comparison_stores_values_whose_quotient_lies_inside_its_ci(seed: int) -> None:
    comps, _ = analyze(_skewed_run(seed))
    assert len(comps) == 6
    for c in comps:
        assert c.baseline_value is not None and c.candidate_value is not None
        if c.ci is not None and c.baseline_value > 0:
            q = c.candidate_value / c.baseline_value
            assert c.ci[0] <= q * (1 + 1e-9) and q <= c.ci[1] * (1 + 1e-9), (c.metric, c.candidate, q, c.ci)
    assert_consistent(comps)


def test_the_values_of_a_log_scale_comparison_are_geometric_means_over_the_compared_blocks() -> None:
    run = _skewed_run(1)
    comps, _ = analyze(run)
    c = next(x for x in comps if x.metric == "time" and x.candidate == "B")
    a = [s.value for s in run.samples if s.variant == "A" and s.metric == "time"]
    assert c.baseline_value == pytest.approx(float(np.exp(np.mean(np.log(a)))))


def test_check_consistent_catches_values_outside_the_ci_and_missing_values() -> None:
    comps, _ = analyze(_skewed_run(2))
    c = next(x for x in comps if x.metric == "time" and x.ci is not None)
    assert c.ci is not None and c.baseline_value
    outside = replace(c, candidate_value=c.baseline_value * c.ci[1] * 1.05)
    assert any("outside" in p for p in check_consistent([outside]))
    assert any("value" in p for p in check_consistent([replace(c, baseline_value=None)]))


def test_unpaired_comparisons_store_values_inside_their_ci_too() -> None:
    run = _skewed_run(3)

    def side(name: str) -> Run:
        return Run({}, [Variant(name, baseline=True)], run.benchmarks,
                   [s for s in run.samples if s.variant == name])

    comps, _ = compare_runs(side("A"), side("B"))
    assert comps
    for c in comps:
        assert c.baseline_value is not None and c.candidate_value is not None
    assert_consistent(comps)


def test_a_zero_baseline_gives_no_percent_in_compare() -> None:
    """`compare` showed 0 ns -> 0 ns as -100%."""
    zero = Metric("gc", "s", "lower")

    def saved(values: list[float]) -> Run:
        samples = [Sample("w", "head", "gc", v, blk) for blk, v in enumerate(values)]
        return Run({}, [Variant("head", baseline=True)], [Benchmark("w", "command", (zero,))], samples)

    base, new = saved([0.0] * 8), saved([0.0] * 7 + [1e-9])
    comps, _ = compare_runs(base, new)
    assert_consistent(comps)
    [c] = comps
    assert c.baseline_value == 0.0 and c.candidate_value is not None
    merged = Run({}, [Variant("head [base]", baseline=True), Variant("head [new]")], base.benchmarks,
                 [replace(s, variant="head [base]") for s in base.samples]
                 + [replace(s, variant="head [new]") for s in new.samples], comps)
    text = render_unpaired_table(merged, comps, ("head [base]", "head [new]"), 0.95)
    assert "%" not in text.splitlines()[1]


def test_the_terminal_table_shows_the_stored_values_and_says_what_they_are() -> None:
    run = _skewed_run(4)
    run.comparisons, _ = analyze(run)
    out = io.StringIO()
    render_terminal(run, Console(file=out, width=200, color_system=None, force_terminal=False))
    text = out.getvalue()
    from pairbench.report.format import format_value

    for c in run.comparisons:
        assert format_value(c.candidate_value, "s" if c.metric != "req_per_s" else "req/s") in text
    assert "geometric mean" in text and "median" not in text.split("values:")[1].splitlines()[0]


def test_compare_tables_show_the_stored_values_consistent_with_the_change() -> None:
    run = _skewed_run(5)

    def side(name: str) -> Run:
        return Run({}, [Variant(name, baseline=True)], run.benchmarks,
                   [replace(s, variant=name) for s in run.samples if s.variant == name])

    comps, _ = compare_runs(side("A"), side("B"))
    merged = Run({}, [Variant("A", baseline=True), Variant("B")], run.benchmarks, run.samples, comps)
    from pairbench.report.format import format_value

    for table in (render_unpaired_table(merged, comps, ("A", "B"), 0.95),
                  render_many_table(merged, comps, ["A", "B"], {})):
        for c in comps:
            unit = merged.benchmark("w").metric(c.metric).unit
            assert format_value(c.baseline_value, unit) in table
            assert format_value(c.candidate_value, unit) in table


def test_the_run_file_keeps_the_values_and_migrates_older_files() -> None:
    run = _skewed_run(6)
    run.comparisons, _ = analyze(run)
    back = loads_run(dumps_run(run))
    assert [(c.baseline_value, c.candidate_value) for c in back.comparisons] == \
        [(c.baseline_value, c.candidate_value) for c in run.comparisons]
    doc = json.loads(json.dumps(run_to_dict(run)))
    assert doc["version"] == VERSION >= 3
    old = {**doc, "version": 2}
    for c in old["comparisons"]:
        del c["baseline_value"], c["candidate_value"], c["exact"]
    migrated = run_from_dict(old)
    assert_consistent(migrated.comparisons)
    for c in migrated.comparisons:
        assert c.baseline_value is not None and c.candidate_value is not None


def test_an_old_exact_verdict_is_migrated_to_its_direction() -> None:
    count = Metric("instructions", "count", "lower", exact=True)
    samples = [Sample("w", v, "instructions", x, blk) for blk in range(6) for v, x in (("A", 100.0), ("B", 150.0))]
    run = Run({}, [Variant("A", baseline=True), Variant("B")], [Benchmark("w", "command", (count,))], samples)
    run.comparisons, _ = analyze(run)
    doc = json.loads(json.dumps(run_to_dict(run)))
    old = {**doc, "version": 2}
    for c in old["comparisons"]:
        del c["baseline_value"], c["candidate_value"], c["exact"]
        c.update(verdict="exact", significant=True, meaningful=True)
    [c] = run_from_dict(old).comparisons
    assert c.verdict == "slower" and c.exact and c.meaningful
    assert (c.baseline_value, c.candidate_value) == (100.0, 150.0)


def test_compare_shows_an_interval_of_too_few_runs_at_the_level_it_reaches() -> None:
    """`compare` of 3 runs a side printed `[+14.6%, +18.8%]` under `95% CI` while the sentence below
    said the runs reach a 90% interval only: the cell names the level, as `cmd`'s table does."""
    rng = np.random.default_rng(7)

    def saved(name: str, scale: float) -> Run:
        samples = [Sample("w", name, "time", scale * float(np.exp(rng.normal(0, 0.01))), blk) for blk in range(3)]
        return Run({}, [Variant(name, baseline=True)], [Benchmark("w", "command", (TIME,))], samples)

    base, new = saved("A", 1.0), saved("B", 1.17)
    comps, _ = compare_runs(base, new)
    [c] = comps
    assert c.verdict == "insufficient" and c.reached_confidence is not None and c.reached_confidence < 0.95
    merged = Run({}, [Variant("A", baseline=True), Variant("B")], base.benchmarks, base.samples + new.samples, comps)
    row = render_unpaired_table(merged, comps, ("A", "B"), 0.95).splitlines()[1]
    from pairbench.report.format import format_ci_percent
    from pairbench.report.wording import reached_label

    assert f"{format_ci_percent(c.reached_ci)} at {reached_label(c.reached_confidence)}" in row


def test_a_variant_without_data_has_no_figure_and_the_baseline_keeps_its_own() -> None:
    """A test that fails on the candidate (pairbench pytest): no block has both sides, so there is
    no ratio; the baseline measured it and its figure is its own, the candidate has none (never 0)."""
    tpo, ops = Metric("time_per_op", "s", "lower"), Metric("ops_per_s", "op/s", "higher")
    samples = [Sample("t", "A", m, v, blk) for blk in range(6)
               for m, v in (("time_per_op", 2e-5 * (1 + 0.01 * blk)), ("ops_per_s", 1 / (2e-5 * (1 + 0.01 * blk))))]
    run = Run({"blocks": 6}, [Variant("A", baseline=True), Variant("B")], [Benchmark("t", "pytest", (tpo, ops))],
              samples)
    run.comparisons, _ = analyze(run)
    assert run.comparisons and all(c.ratio is None for c in run.comparisons)
    assert all(c.candidate_value is None for c in run.comparisons)
    assert all(c.baseline_value is None or c.baseline_value > 0 for c in run.comparisons)
    assert_consistent(run.comparisons)
    out = io.StringIO()
    render_terminal(run, Console(file=out, width=200, color_system=None, force_terminal=False))
    text = out.getvalue()
    assert " 0 ns" not in text and " 0 op/s" not in text, text
    assert "µs" in text, text  # the baseline's own figure


_SCALE = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "req/s": 1.0, "k": 1e3}


def _figure(text: str) -> float:
    """`7.357 ms` -> 0.007357; `13.31k req/s` -> 13310."""
    number, unit = text.split(" ", 1)
    scale = 1e3 if number.endswith("k") else 1.0
    return float(number.rstrip("k")) * scale * _SCALE[unit]


def _value_rows(text: str, fmt: str) -> list[tuple[str, str, str, str]]:
    """(metric, variant, value, ratio) of each row of the report's main table."""
    import html as html_lib
    import re

    rows = []
    if fmt == "html":
        for tr in re.findall(r"<tr>(.*?)</tr>", text, re.S):
            cells = [html_lib.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
            if len(cells) == 9 and cells[0] == "w":
                rows.append((cells[1], cells[2], cells[3], cells[5]))
        return rows
    for line in text.splitlines():
        parts = line.split("|")[1:]  # AsciiDoc's rows have no closing `|`
        cells = [c.strip() for c in (parts[:-1] if fmt == "markdown" else parts)]
        if len(cells) == 9 and cells[0] == "w":
            rows.append((cells[1], cells[2], cells[3], cells[5]))
    return rows


@pytest.mark.parametrize("fmt", ["markdown", "html", "asciidoc"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_candidates_value_is_the_baseline_value_above_it_times_the_ratio(fmt: str, seed: int) -> None:
    # C lost a block and user has zeros: C's comparison measures the baseline over other blocks
    # (or by its mean), so the baseline's figure differs from B's; a table that showed only the first
    # read `+2.8%` beside a value below the baseline's (seed 2, user)
    from pairbench.report.exporters import render_export

    run = _skewed_run(seed)
    comps, _ = analyze(run)
    text = render_export(replace(run, comparisons=comps), fmt)
    rows = _value_rows(text, fmt)
    assert rows
    base = None
    for metric, variant, value, ratio in rows:
        if variant.endswith("(baseline)"):
            base = _figure(value)
            continue
        assert base is not None
        assert _figure(value) / base == pytest.approx(float(ratio), rel=3e-3), (metric, variant, value, ratio)


def test_no_ratio_interval_beside_a_zero_baseline_in_any_table() -> None:
    # 0 ns against 192 µs: no ratio, and the Markdown and HTML tables showed `[-2.91, 9.308]`, a
    # "ratio" interval below 0 (the percent of the mean magnitude, which the sentence gives)
    from pairbench.report.exporters import render_export

    metric = Metric("sys", "s", "lower")

    def saved(name: str, values: list[float]) -> Run:
        samples = [Sample("w", name, "sys", v, blk) for blk, v in enumerate(values)]
        return Run({}, [Variant(name, baseline=True)], [Benchmark("w", "command", (metric,))], samples)

    base, new = saved("a", [0.0] * 6), saved("b", [0.0, 0.0, 9.6e-4, 0.0, 0.0, 0.0])
    comps, _ = compare_runs(base, new)
    [c] = comps
    assert c.baseline_value == 0.0 and c.ci is not None
    merged = Run({}, [Variant("a", baseline=True), Variant("b")], base.benchmarks, base.samples + new.samples, comps)
    import re

    terminal = re.split(r"\s{2,}", render_unpaired_table(merged, comps, ("a", "b"), 0.95).splitlines()[1])
    assert terminal[4:6] == ["–", "–"]  # change and CI: nothing relative to 0
    for fmt in ("markdown", "html", "asciidoc"):
        text = render_export(merged, fmt)
        rows = re.findall(r"<tr><td>w</td>.*?</tr>", text) if fmt == "html" else \
            [line for line in text.splitlines() if line.startswith("| w |")]
        assert len(rows) == 2 and not any("[" in row for row in rows), (fmt, rows)


@pytest.mark.parametrize("fmt", ["markdown", "html", "asciidoc", "orgmode"])
def test_the_adjusted_mark_of_the_ci_header_is_explained_under_the_table(fmt: str) -> None:
    # `95% CI (*adj.)` headed the table and `*` marked cells, but only the terminal said what they were
    from pairbench.report.exporters import render_export

    run = _skewed_run(0)
    comps, _ = analyze(run)
    text = render_export(replace(run, comparisons=comps), fmt).replace("\\*", "*")
    assert "(*adj.)" in text and "]*" in text
    assert "(*adj.): widened for 2 comparisons (holm)" in text, fmt


@pytest.mark.parametrize("fmt", ["markdown", "html", "asciidoc"])
def test_a_table_without_comparisons_says_its_values_are_medians(fmt: str) -> None:
    # `report hyperfine.json`: each command's median under "values: the baseline's geometric mean ...
    # times the ratio", with no ratio in the table (compare showed the geometric mean, 12.39 ms for 11.81)
    from pairbench.report.exporters import render_export

    import html

    run = replace(_skewed_run(0), comparisons=[])
    text = html.unescape(render_export(run, fmt))
    assert "geometric mean" not in text and "times the ratio" not in text, fmt
    assert "values: each variant's median of its per-block values" in text, fmt
