"""Plot labels: by the part of the names that varies, measured to lay out, never cut to a shared stem."""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import replace

from tests.unit.runs_by_hand import make_run, make_sweep_run

from pairbench.model import Run
from pairbench.report.html import render_html
from pairbench.report.labels import fit_width, shorten, text_width
from pairbench.report.plots import distribution_plot, drift_plot, forest_plot

SWEEP = [f"app/PAIRBENCH_DEMO_WORK={k}" for k in (2, 1, 4, 16)]


def _long_sweep_run() -> Run:
    """The sweep run with its variants named as a suite sweep names them (`base/NAME=value`)."""
    run = make_sweep_run()
    names = {v.name: (f"app/PAIRBENCH_DEMO_WORK={v.params['RUBY_MAX_PACKED_HASH']}" if v.params else "app")
             for v in run.variants}
    run.variants = [replace(v, name=names[v.name]) for v in run.variants]
    run.samples = [replace(s, variant=names[s.variant]) for s in run.samples]
    run.comparisons = [replace(c, baseline=names[c.baseline], candidate=names[c.candidate]) for c in run.comparisons]
    return run


def _texts(svg: str) -> list[str]:
    """The visible text of each <text> element (its hover <title> left out)."""
    return [re.sub(r"<title>.*?</title>", "", t) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg)]


def test_sweep_names_are_labelled_by_their_value_and_the_stem_is_said_once() -> None:
    labels = shorten(SWEEP)
    assert [labels(n) for n in SWEEP] == ["2", "1", "4", "16"]
    assert labels.common == "app/PAIRBENCH_DEMO_WORK=…"
    suffixed = shorten(["build-a/jit=on/run", "build-b/jit=on/run"])
    assert (suffixed("build-a/jit=on/run"), suffixed.prefix, suffixed.suffix) == ("a", "build-", "/jit=on/run")


def test_words_are_never_split_and_short_or_clashing_names_stay_whole() -> None:
    names = ["release-fast-version", "release-faster-version"]
    labels = shorten(names)
    assert [labels(n) for n in names] == ["fast", "faster"]  # cut at separators, not inside a word
    assert shorten(["main", "patched"]).shortened is False
    assert not shorten(["app/PAIRBENCH_LONG/", "app/PAIRBENCH_LONG/x"]).shortened  # one label would be empty
    assert not shorten(["app/PAIRBENCH_LONG=1", "app/PAIRBENCH_LONG=2", "1"]).shortened  # two labels "1"
    mixed = shorten(["app", *SWEEP])
    assert [mixed(n) for n in ("app", *SWEEP)] == ["app", "2", "1", "4", "16"]  # a short baseline keeps its name


def test_text_is_measured_and_cut_in_the_middle_only_when_too_wide() -> None:
    assert text_width("W" * 10, 10) > 3 * text_width("i" * 10, 10)
    assert text_width("abc", 20) == 2 * text_width("abc", 10)
    long = "build-from-a-very-long-branch-name-number-one"
    cut = fit_width(long, 10, 120)
    assert text_width(cut, 10) <= 120 and cut.startswith("build") and cut.endswith("one") and "…" in cut
    assert fit_width("short", 10, 120) == "short"


def test_distribution_labels_are_distinct_and_whole() -> None:
    run = _long_sweep_run()
    svg = distribution_plot(run, "hash", "time")
    assert svg is not None
    labels = [t for t in _texts(svg) if not t.startswith("median") and not re.match(r"^[\d.]+ ms$", t)]
    assert labels[:6] == ["app", "0", "3", "6", "9", "12"], labels
    assert "app/PAIRBENCH_DEMO_WORK=9" in svg  # the full name on hover
    width = int(re.search(r'width="(\d+)"', svg).group(1))  # type: ignore[union-attr]
    left = width - 490
    assert all(text_width(t, 11) + 8 <= left for t in labels[:6])


def test_forest_and_legend_labels_fit_and_the_page_says_the_stem_once() -> None:
    run = _long_sweep_run()
    page = render_html(run)
    assert page.count("app/PAIRBENCH_DEMO_WORK=</code>…") == 1
    forest = forest_plot(run.comparisons, shorten([v.name for v in run.variants]))
    assert forest is not None
    rows = [t for t in _texts(forest) if " · " in t]
    assert rows == [f"hash · time · {k}" for k in (0, 3, 6, 9, 12)]
    assert not any("PAIRBENCH_DEM…" in t for t in _texts(page))


def test_a_long_legend_wraps_inside_the_plot_and_moves_the_plot_down() -> None:
    run = make_run()
    words = ("alpha", "bravo", "charlie", "delta", "echo")
    many = [replace(v, name=f"{words[i]} feature branch with a long and descriptive name {words[-1 - i]}")
            for i, v in enumerate(run.variants)]
    rename = {old.name: new.name for old, new in zip(run.variants, many)}
    run.variants = many
    run.samples = [replace(s, variant=rename[s.variant]) for s in run.samples]
    bench = run.samples[0].benchmark
    svg = drift_plot(run, bench, run.samples[0].metric)
    assert svg is not None
    width = int(re.search(r'width="(\d+)"', svg).group(1))  # type: ignore[union-attr]
    entries = re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="10" height="10"', svg)
    texts = re.findall(r'<text x="([\d.]+)" y="([\d.]+)"[^>]*font-size="10"[^>]*>(?:<title>[^<]*</title>)?([^<]*)</text>', svg)
    texts = [t for t in texts if t[2] in rename.values()]
    assert len(texts) == len(many)
    for x, _, text in texts:
        assert float(x) + text_width(text, 10) <= width
    rows = sorted({float(y) for _, y in entries})
    assert len(rows) >= 2  # wrapped
    first_point = min(float(y) for y in re.findall(r'<circle cx="[\d.]+" cy="([\d.]+)"', svg))
    assert first_point > rows[-1] + 10


def test_the_page_runs_no_script_and_allows_only_its_own_style() -> None:
    page = render_html(_long_sweep_run())
    assert "<script" not in page
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert csp is not None and "unsafe-inline" not in csp.group(1) and "script-src" not in csp.group(1)
    assert "default-src 'none'" in csp.group(1)
    style = re.search(r"<style>(.*?)</style>", page, re.S)
    assert style is not None
    digest = base64.b64encode(hashlib.sha256(style.group(1).encode()).digest()).decode()
    assert f"'sha256-{digest}'" in csp.group(1)
    assert ' style="' not in page  # a style attribute would be refused by the policy
    assert re.search(r'id="plot-count">\d+ plots<', page)
