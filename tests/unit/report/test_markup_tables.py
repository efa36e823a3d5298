"""AsciiDoc and org-mode exports (hyperfine's --export-asciidoc/--export-orgmode): the Markdown rows."""

from __future__ import annotations

import re

from pairbench.report.exporters import EXPORTERS, render_export
from pairbench.report.markdown import render_markdown
from tests.unit.runs_by_hand import make_run


def _markdown_rows(text: str) -> list[list[str]]:
    rows = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith(("| Benchmark", "| Metadata", "| Variant")):
            cells = [c.strip().replace("**", "").replace("\\", "") for c in line.strip("|").split(" | ")]
            rows.append(cells)
    return [r for r in rows if len(r) == 9]


def _asciidoc_rows(text: str) -> list[list[str]]:
    body = re.findall(r"^\|===\n(.*?)\n\|===$", text, re.S | re.M)
    rows = []
    for table in body:
        for line in table.splitlines()[1:]:  # the first line is the header
            rows.append([c.strip() for c in re.split(r"(?<!\\)\| ?", line)[1:]])
    return rows


def _orgmode_rows(text: str) -> list[list[str]]:
    rows = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("| Benchmark"):
            rows.append([c.strip() for c in line.strip().strip("|").split(" | ")])
    return rows


def test_both_formats_are_in_the_exporter_table() -> None:
    assert {"asciidoc", "orgmode"} <= set(EXPORTERS)


def test_asciidoc_has_every_markdown_row() -> None:
    run = make_run()
    expected = _markdown_rows(render_markdown(run))
    assert len(expected) >= 6  # every kind of the hand-made run
    assert _asciidoc_rows(render_export(run, "asciidoc")) == expected


def test_orgmode_has_every_markdown_row() -> None:
    run = make_run()
    assert _orgmode_rows(render_export(run, "orgmode")) == _markdown_rows(render_markdown(run))


def test_a_bar_in_a_name_stays_inside_its_cell() -> None:
    run = make_run(bench_name="a|b {x}")
    adoc = render_export(run, "asciidoc")
    assert "| a\\|b \\{x}" in adoc
    org = render_export(run, "orgmode")
    assert "| a\\vert{}b {x} |" in org
    assert all(line.count(" | ") == 8 for line in org.splitlines() if line.startswith("| a\\vert"))


def test_each_kind_has_its_own_table_with_the_ci_header() -> None:
    adoc = render_export(make_run(), "asciidoc")
    assert adoc.count("|===") == 2 * 3
    assert "== Command benchmarks" in adoc and "== HTTP benchmarks" in adoc and "== Micro benchmarks" in adoc
    assert "CI" in adoc.split("|===")[1].splitlines()[1]
