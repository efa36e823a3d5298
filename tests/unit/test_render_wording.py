"""Sentences are worded when a report is drawn, from the stored numbers; the analysis words nothing."""

from __future__ import annotations

import ast
import io
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from pairbench.report.html import render_html
from pairbench.report.markdown import render_markdown
from pairbench.report.terminal import render_terminal
from pairbench.report.wording import verdict_sentence
from tests.unit.runs_by_hand import make_run

SRC = Path(__file__).resolve().parents[2] / "src" / "pairbench"


def _imported(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


@pytest.mark.parametrize("path", sorted((SRC / "analysis").glob("*.py")), ids=lambda p: p.name)
def test_the_analysis_never_imports_reports(path: Path) -> None:
    assert not {m for m in _imported(path) if m.startswith("pairbench.report")}


@pytest.mark.parametrize("path", sorted((SRC / "report").glob("*.py")), ids=lambda p: p.name)
def test_reports_import_no_statistics(path: Path) -> None:
    assert not {m for m in _imported(path) if m.startswith("pairbench.stats") or m.split(".")[0] in ("numpy", "scipy")}


def test_the_analysis_stores_numbers_not_sentences() -> None:
    from pairbench.analysis import analyze

    run = make_run(blocks=8)
    comparisons, _ = analyze(run)
    assert comparisons and all(c.sentence == "" for c in comparisons)


def _rendered(run) -> dict[str, str]:
    out = io.StringIO()
    render_terminal(run, Console(file=out, width=400, color_system=None), sentences="all")
    return {"terminal": out.getvalue(), "markdown": render_markdown(run), "html": render_html(run)}


def test_every_format_words_the_sentence_from_the_stored_numbers() -> None:
    run = make_run(blocks=8)
    # A version 1 file froze its words; they are not the source any more.
    run.comparisons = [replace(c, sentence="stale words from an older pairbench") for c in run.comparisons]
    for fmt, text in _rendered(run).items():
        assert "stale words" not in text, fmt
        for c in run.comparisons:
            sentence = verdict_sentence(c, run.benchmark(c.benchmark).metric(c.metric))
            shown = sentence.replace("&", "&amp;").replace("<", "&lt;") if fmt == "html" else sentence
            if fmt == "markdown":
                shown = shown.replace("[", "\\[").replace("]", "\\]")
            assert shown in " ".join(text.split()), (fmt, sentence)
