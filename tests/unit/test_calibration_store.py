"""Calibrations in the history store and `--threshold auto` reading them back (SQLite file, no process)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pairbench.flows.threshold import auto_threshold
from pairbench.errors import UserError
from pairbench.model import Benchmark, Metric, Run, Variant
from pairbench.session import RunOptions
from pairbench.store.calibrations import CalibrationRecord, latest_calibration, record_calibration
from pairbench.store.history import open_history

FINGERPRINT = {"kernel": "Linux 6.1.0", "cpu_model": "Xeon", "cpu_count": 2, "governor": "performance"}


def _record(location: str, delta: float, benchmark: str = "parse", **fingerprint: object) -> int:
    with open_history(location) as h:
        return record_calibration(h, CalibrationRecord(
            hostname="bench-1", benchmark=benchmark, metric="time", budget_s=60.0, blocks=400, block_s=0.15,
            replicate_sd=0.02, ratio_sd=0.025, mde=delta * 0.8, band=delta * 0.3, delta=delta,
            fingerprint={**FINGERPRINT, **fingerprint}, run_file="/runs/aa.json", details={"subruns": 20}))


def _run(*benchmarks: str, **metadata: object) -> Run:
    meta = {"hostname": "bench-1", **FINGERPRINT, **metadata}
    return Run(metadata=meta, variants=[Variant("old", "old", baseline=True), Variant("new", "new")],
               benchmarks=[Benchmark(b, "command", (Metric("time"), Metric("rss", "B"))) for b in benchmarks])


def test_the_newest_calibration_of_a_machine_benchmark_and_metric_is_read_back(tmp_path: Path) -> None:
    loc = str(tmp_path / "h.sqlite")
    _record(loc, 0.02)
    newest = _record(loc, 0.01)
    _record(loc, 0.05, benchmark="other")
    with open_history(loc) as h:
        got = latest_calibration(h, "bench-1", "parse", "time")
        assert got is not None and got.id == newest and got.delta == 0.01
        assert got.fingerprint == FINGERPRINT and got.details == {"subruns": 20} and got.recorded_at > 0
        assert latest_calibration(h, "bench-2", "parse", "time") is None
        assert latest_calibration(h, "bench-1", "parse", "rss") is None


def test_threshold_auto_uses_the_stored_band_and_names_the_calibration(tmp_path: Path) -> None:
    loc = str(tmp_path / "h.sqlite")
    cal = _record(loc, 0.015)
    run = _run("parse")
    options = auto_threshold(run, RunOptions(), loc)
    assert options.threshold == pytest.approx(1.5)
    [notice] = run.notices
    assert notice.kind == "threshold-auto" and f"calibration #{cal}" in notice.message and "60 s budget" in notice.message


def test_threshold_auto_takes_the_widest_band_of_several_benchmarks(tmp_path: Path) -> None:
    loc = str(tmp_path / "h.sqlite")
    _record(loc, 0.015)
    _record(loc, 0.03, benchmark="other")
    assert auto_threshold(_run("parse", "other"), RunOptions(), loc).threshold == pytest.approx(3.0)


def test_a_calibration_older_than_a_kernel_or_governor_change_is_flagged(tmp_path: Path) -> None:
    loc = str(tmp_path / "h.sqlite")
    _record(loc, 0.01)
    same = _run("parse")
    auto_threshold(same, RunOptions(), loc)
    assert [n.kind for n in same.notices] == ["threshold-auto"]
    changed = _run("parse", kernel="Linux 6.5.0", governor="powersave")
    auto_threshold(changed, RunOptions(), loc)
    stale = [n for n in changed.notices if n.kind == "calibration-stale"]
    assert len(stale) == 1
    assert "kernel Linux 6.1.0 -> Linux 6.5.0" in stale[0].message and "governor performance -> powersave" in stale[0].message
    assert "pairbench calibrate" in stale[0].hint


def test_threshold_auto_without_a_calibration_says_how_to_make_one(tmp_path: Path) -> None:
    loc = str(tmp_path / "h.sqlite")
    _record(loc, 0.01)
    with pytest.raises(UserError, match=r"no calibration of benchmark 'command' \(`time`\) on bench-1.*pairbench calibrate"):
        auto_threshold(_run("command"), RunOptions(), loc)
