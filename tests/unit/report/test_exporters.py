"""The exporter table: one signature for every format, one writer for a file or standard output."""

from __future__ import annotations

import csv
import inspect
import io
import json
from pathlib import Path

import pytest

from tests.unit.runs_by_hand import make_run

from pairbench.errors import UserError
from pairbench.report.exporters import EXPORTERS, ExportOptions, export, render_export
from pairbench.report.tables import format_table, render_trend


def test_every_format_has_the_one_signature_and_writes_the_run() -> None:
    run = make_run()
    assert set(EXPORTERS) >= {"terminal", "markdown", "html", "json", "csv"}
    for name, exporter in EXPORTERS.items():
        assert list(inspect.signature(exporter).parameters) == ["run", "out", "options"], name
        out = io.StringIO()
        exporter(run, out, ExportOptions(title="T", width=100))
        assert run.benchmarks[0].name in out.getvalue(), name
    assert json.loads(render_export(run, "json"))["samples"][0]["benchmark"] == run.samples[0].benchmark
    rows = list(csv.reader(io.StringIO(render_export(run, "samples-csv"))))
    assert len(rows) == 1 + len(run.samples) and float(rows[1][3]) == run.samples[0].value


def test_one_writer_for_file_or_stdout_that_never_overwrites_an_input(tmp_path: Path, capsys) -> None:
    run = make_run()
    export(run, "markdown", "-")
    assert capsys.readouterr().out == render_export(run, "markdown")
    source = tmp_path / "run.json"
    source.write_text("{}")
    with pytest.raises(UserError, match="is the input file"):
        export(run, "html", str(source), inputs=[str(source)])
    assert source.read_text() == "{}"
    with pytest.raises(UserError, match=r"unknown report format 'pdf'; valid: terminal, markdown, markdown-table, html, json, csv"):
        render_export(run, "pdf")


def test_text_tables_are_aligned_and_trimmed() -> None:
    assert format_table([("a", "bb", "c"), ("ccc", "d", "")]) == "a    bb  c\nccc  d\n"

    class Point:
        def __init__(self, run_id: int, median: float) -> None:
            self.run_id, self.median, self.values = run_id, median, [median] * 3
            self.recorded_at, self.git_commit, self.variant_commit = 0.0, "abcdef0123456", ""

    class Step:
        change, z = 0.5, 9.0

    text = render_trend([Point(1, 1.0), Point(2, 1.5)], {1: Step()}, "s")
    lines = text.splitlines()
    assert lines[0].split() == ["run", "recorded", "commit", "n", "median", "vs", "previous"]
    assert "abcdef0123" in lines[1] and "abcdef01234" not in lines[1]
    assert "<- change point: +50" in lines[2] and "(z=9.0)" in lines[2]


def test_a_runs_export_is_never_written_over_its_suite_file(tmp_path, monkeypatch) -> None:
    # `pairbench run s.toml --export-markdown s.toml` replaced the suite file with the Markdown table
    import dataclasses

    import pytest as _pytest

    from pairbench.errors import UserError
    from pairbench.flows.measure import _export
    from pairbench.flows.settings import Reports
    from tests.unit.runs_by_hand import make_run

    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text("[variants.a]\n")
    run = dataclasses.replace(make_run(), suite={"path": "s.toml"})
    with _pytest.raises(UserError, match="s.toml is the input file"):
        _export(run, Reports(exports=(("markdown-table", "s.toml"),)))
    assert (tmp_path / "s.toml").read_text() == "[variants.a]\n"
