"""A run file cut short: what is complete is loaded, what is missing is named; bad files are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.unit.runs_by_hand import make_run

from pairbench.errors import RunFileError
from pairbench.store.runfile import dumps_run
from pairbench.store.salvage import close_truncated_json, load_run_salvaging


def test_close_truncated_json_keeps_complete_elements() -> None:
    # an element cut inside is closed empty; load_run_salvaging drops such incomplete records
    assert close_truncated_json('{"a": [1, 2, {"b": 3}, {"c": ') == {"a": [1, 2, {"b": 3}, {}]}
    assert close_truncated_json('{"a": [1, 2, {"b": 3}, {"c": 4, "d"') == {"a": [1, 2, {"b": 3}, {"c": 4}]}
    assert close_truncated_json('{"a": "x, y", "b": [') == {"a": "x, y", "b": []}
    assert close_truncated_json('{"a": "q\\"uote", "b": 1') == {"a": 'q"uote'}
    assert close_truncated_json('{"a') == {}
    with pytest.raises(ValueError):
        close_truncated_json('"abc')


@pytest.mark.parametrize("fraction", [0.2, 0.5, 0.9, 0.999] + [0.3 + i / 97 for i in range(60)])
def test_cut_run_file_gives_its_complete_samples(tmp_path: Path, fraction: float) -> None:
    run = make_run()
    text = dumps_run(run)
    path = tmp_path / "run.json"
    path.write_text(text[: int(len(text) * fraction)])
    loaded = load_run_salvaging(path)
    n = len(loaded.run.samples)
    assert 0 < n <= len(run.samples)
    assert loaded.run.samples == run.samples[:n]  # a prefix, nothing invented
    assert loaded.run.status == "interrupted"
    assert loaded.missing[0].startswith(f"the file is cut short; {n} complete samples")
    if fraction < 0.99:  # cut in the samples: the later sections are missing
        assert loaded.missing[-1] == "missing: comparisons, notices"
    assert path.read_text() == text[: int(len(text) * fraction)]  # nothing written back


def test_whole_file_has_nothing_missing(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(dumps_run(make_run()))
    loaded = load_run_salvaging(path)
    assert loaded.missing == () and loaded.run.status == "complete"


def test_cut_before_samples_is_one_clear_error(tmp_path: Path) -> None:
    text = dumps_run(make_run())
    path = tmp_path / "run.json"
    path.write_text(text[: text.index('"benchmarks"') + 30])
    with pytest.raises(RunFileError, match="cut short before its samples were written"):
        load_run_salvaging(path)


def test_not_a_run_file_and_newer_version(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"hello": 1}))
    with pytest.raises(RunFileError, match="is not a pairbench run file"):
        load_run_salvaging(other)
    newer = tmp_path / "newer.json"
    doc = json.loads(dumps_run(make_run()))
    doc["version"] = 99
    newer.write_text(json.dumps(doc))
    with pytest.raises(RunFileError, match="version 99, newer than this pairbench knows"):
        load_run_salvaging(newer)
    cut_other = tmp_path / "cut.json"
    cut_other.write_text('{"results": [{"times": [1, 2')
    with pytest.raises(RunFileError, match="cut short and not a pairbench run file"):
        load_run_salvaging(cut_other)


def test_a_cut_in_the_sections_after_the_notices_drops_the_cut_one(tmp_path: Path) -> None:
    # cut inside `sweeps` (a runner-up comparison's CI half written): IndexError, a traceback
    from dataclasses import replace

    from pairbench.analysis import analyze
    from pairbench.analysis.sweep import sweep_tables
    from tests.unit.test_sweep_report import make_run as make_swept_run

    run = make_swept_run({"3": 2.56, "1": 1.0, "2": 1.6, "4": 4.1})
    run = replace(run, comparisons=analyze(run)[0])
    run = replace(run, sweeps=sweep_tables(run))
    text = dumps_run(run)
    start = text.index('\n "sweeps"')  # the run's, not the suite's
    path = tmp_path / "run.json"
    end = text.index('\n "summaries"')
    for cut in range(start + 30, len(text) - 2, 7):
        path.write_text(text[:cut])
        loaded = load_run_salvaging(path)  # never a traceback
        assert loaded.run.samples == run.samples and loaded.run.comparisons == run.comparisons
        if cut < end:  # cut through the sweeps: left out and said, never half read
            assert loaded.run.sweeps == [] and "sweeps" in loaded.missing[-1], (cut, loaded.missing)
        else:
            assert loaded.run.sweeps == run.sweeps


def test_a_cut_in_the_notices_keeps_the_whole_ones(tmp_path: Path) -> None:
    # the last notice closed with its kind alone: "is damaged: Notice.__init__() missing ... 'message'"
    run = make_run()
    text = dumps_run(run)
    start, end = text.index('\n "notices"'), text.index('\n "sweeps"')
    path = tmp_path / "run.json"
    for cut in range(start + 20, end, 5):
        path.write_text(text[:cut])
        loaded = load_run_salvaging(path)
        assert loaded.run.samples == run.samples
        assert loaded.run.notices == run.notices[:len(loaded.run.notices)]
