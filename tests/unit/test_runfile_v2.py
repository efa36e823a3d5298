"""Run file version 2: the analysis results are stored, and version 1 files migrate forward."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pairbench.analysis.sweep import sweep_tables
from pairbench.summaries import SuiteSummary
from pairbench.store.runfile import VERSION, dumps_run, load_run, run_from_dict
from tests.unit.test_sweep_report import make_run

V1_FILE = Path(__file__).resolve().parents[1] / "data" / "run_v1.json"
"""Written by pairbench's version-1 code: `pairbench run` of a suite with a sweep and two benchmarks."""


def test_analysis_results_survive_a_round_trip() -> None:
    run = make_run({"3": 1.0, "1": 0.5, "2": 0.8, "4": 1.3})
    from pairbench.analysis import analyze

    run.comparisons, run.notices = analyze(run)
    run.sweeps = sweep_tables(run)
    run.summaries = [SuiteSummary("py/N=1", "py/N=3", 0.5, (0.45, 0.56), 0.95, 2, 12)]
    assert any(c.adjusted_p is not None and c.adjusted_ci is not None for c in run.comparisons)
    doc = json.loads(dumps_run(run))
    assert doc["version"] == VERSION == 4
    back = run_from_dict(doc)
    assert back.comparisons == run.comparisons
    assert back.sweeps == run.sweeps and back.sweeps[0].trends and back.sweeps[0].best_vs_runner_up is not None
    assert back.summaries == run.summaries
    # A row refers to the run's comparison rather than holding a second copy of it.
    assert all("comparison" not in row for row in doc["sweeps"][0]["rows"])


def test_a_version_1_file_migrates_with_its_numbers_and_sentences() -> None:
    raw = json.loads(V1_FILE.read_text(encoding="utf-8"))
    assert raw["version"] == 1
    run = load_run(V1_FILE)
    assert len(run.samples) == len(raw["samples"]) and len(run.comparisons) == len(raw["comparisons"])
    for old, new in zip(raw["comparisons"], run.comparisons):
        assert new.ratio == old["ratio"] and new.sentence == old["sentence"]
        assert new.adjusted_ci == (tuple(old["adjusted_ci"]) if old["adjusted_ci"] else None)
        note = next((n for n in old["notes"] if "adjusted p = " in n), None)
        if note is None:
            assert new.adjusted_p is None
        else:  # version 1 kept the adjusted p only in a note's words
            assert new.adjusted_p == pytest.approx(float(note.rsplit("adjusted p = ", 1)[1]))
    assert any(c.adjusted_p is not None for c in run.comparisons)
    assert run.sweeps == [] and run.summaries == []  # version 1 stored none; they were drawn at render time
    # through version 3 too: the figures beside each ratio, from the samples, agree with the ratio
    assert all(c.baseline_value and c.candidate_value == pytest.approx(c.baseline_value * c.ratio)
               for c in run.comparisons if c.ratio is not None)
    again = json.loads(dumps_run(run))
    assert again["version"] == VERSION and run_from_dict(again).comparisons == run.comparisons
