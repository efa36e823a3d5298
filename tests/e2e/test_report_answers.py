"""Every answer of a sweep suite (the sweep table, the best point, the suite geomean) is in the
Markdown and HTML reports with the same numbers as the terminal (fake runner: no processes)."""

from __future__ import annotations

import html
import re
import textwrap
from pathlib import Path

import pytest

SUITE = textwrap.dedent("""\
    [defaults]
    runs = 8
    warmup = 0

    [variants.app]
    command = "true"

    [[sweeps]]
    name = "PAIRBENCH_DEMO_WORK"
    values = [2, 1, 4]
    as = "env"

    [benchmarks.loop]
    command = "{variant}"

    [benchmarks.other]
    command = "{variant}"
    """)


def _run_sweep(run_cli, tmp_path: Path):
    (tmp_path / "s.toml").write_text(SUITE)
    proc = run_cli("run", "s.toml", "--no-history", "--no-progress", "--debug-fake=1,0.5,2",
                   "--export-json", "r.json", "--export-html", "r.html")
    assert proc.returncode == 0, proc.stderr
    report = run_cli("report", "r.json", "--markdown", "r.md")  # the full report (--export-markdown: the table)
    assert report.returncode == 0, report.stderr
    return proc.stdout, (tmp_path / "r.md").read_text(), html.unescape((tmp_path / "r.html").read_text())


def _flat(text: str) -> str:
    """Text with every run of blanks one space, and Markdown's escapes removed."""
    return " ".join(text.replace("\\", "").split())


def test_markdown_and_html_hold_the_sweep_best_and_the_geomean_of_the_terminal(run_cli, tmp_path: Path) -> None:
    terminal, markdown, page = _run_sweep(run_cli, tmp_path)
    flat = _flat(terminal)
    best = re.findall(r"best: PAIRBENCH_DEMO_WORK=1 \([\d.]+ ms\); distinguishable from the runner-up "
                      r"PAIRBENCH_DEMO_WORK=2, whose time is \+[\d.]+% \(95% CI (?:\(adj\.\) )?\[[^]]+\]", flat)
    assert len(best) == 2, flat  # one per benchmark
    summary = terminal[terminal.index("suite summary"):]
    geomeans = [cells[1:4] for cells in _table_rows(summary)]
    assert [float(g[0]) for g in geomeans] == [pytest.approx(0.5, rel=0.05), pytest.approx(2.0, rel=0.05)], summary
    sweeps = terminal[terminal.index("sweep: loop"):terminal.index("suite summary")]
    sweep_rows = _table_rows(sweeps)
    assert [r[0] for r in sweep_rows] == ["2", "1", "4"] * 2, sweeps
    assert [r[-1] for r in sweep_rows] == ["baseline", "faster ★", "slower"] * 2, sweeps
    for fmt, text in (("markdown", _flat(markdown)), ("html", _flat(re.sub(r"<[^>]+>", " ", page)))):
        for sentence in best:
            assert sentence in text, fmt
        for ratio, ci, change in geomeans:
            assert re.search(rf"PAIRBENCH_DEMO_WORK=[14] \|? ?{re.escape(ratio)} \|? ?{re.escape(ci)} \|? ?"
                             rf"{re.escape(change)}", text), (fmt, ratio, ci)
        for row in sweep_rows:
            assert re.search(r" \|? ?".join(re.escape(cell) for cell in row), text), (fmt, row)
        assert "Holm-corrected across all 4 primary comparisons" in text, fmt
        assert re.search(r"trend over PAIRBENCH_DEMO_WORK: \+[\d.]+% time per unit", text), fmt


def _table_rows(text: str) -> list[list[str]]:
    """The body rows of the terminal's tables in `text`, as stripped cells."""
    return [[cell.strip() for cell in line.split("│")] for line in text.splitlines() if "│" in line]
