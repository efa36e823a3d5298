"""`pairbench calibrate` and `--threshold auto` through the CLI."""

from __future__ import annotations

import re
import sqlite3
import textwrap
from pathlib import Path

import pytest


def _calibrations(path: Path) -> list[tuple[str, str, float]]:
    with sqlite3.connect(path) as db:
        return [(r[0], r[1], r[2]) for r in db.execute("SELECT benchmark, metric, delta FROM calibrations ORDER BY id")]


def test_calibrate_answers_in_words_and_threshold_auto_uses_the_stored_band(run_cli, tmp_path: Path) -> None:
    hist = tmp_path / "h.sqlite"
    r = run_cli("calibrate", "true", "--max-time", "1", "--benchmark", "parse", "--history", str(hist),
                "--no-progress", "--debug-fake", "--export-json", "aa.json")
    assert r.returncode == 0, r.stderr
    sentence = re.search(r"on this machine, changes below ([\d.]+)% in `time` cannot be told from noise in 1 s; "
                         r"use δ = ([\d.]+)% or a longer budget", r.stdout)
    assert sentence, r.stdout
    assert "A/A false alarms" in r.stdout and "MDE 20 s" in r.stdout and "MDE 60 s" in r.stdout
    assert re.search(r"stored as calibration #1 in .*h\.sqlite", r.stdout)
    [(bench, metric, delta)] = _calibrations(hist)
    assert (bench, metric) == ("parse", "time") and delta * 100 == pytest.approx(float(sentence.group(2)))
    # the fake's 1% noise over thousands of blocks: a band far below the 3% change, which is then called
    r2 = run_cli("cmd", "old", "new", "--benchmark", "parse", "--threshold", "auto", "--history", str(hist),
                 "--no-history", "--debug-fake=1,1.03", "--no-progress", "--export-json", "run.json")
    assert r2.returncode == 0, r2.stderr
    out = " ".join((r2.stdout + r2.stderr).split())
    assert f"noise band δ = ±{delta * 100:g}% (--threshold auto): calibration #1 of `time`" in out
    assert f"exceeds the ±{delta * 100:g}% noise band" in out


def test_threshold_auto_without_calibration_and_bad_calibrate_calls_are_one_line(run_cli, tmp_path: Path) -> None:
    hist = str(tmp_path / "empty.sqlite")
    cases = [
        (["cmd", "a", "b", "--threshold", "auto", "--history", hist, "--debug-fake"],
         "error: --threshold auto: no calibration of benchmark 'command'"),
        (["calibrate", "--history", hist, "--debug-fake"], "error: give one command to calibrate, or --suite FILE"),
        (["calibrate", "true", "--only", "x*", "--debug-fake"], "error: --only selects benchmarks of a --suite file"),
        (["cmd", "a", "b", "--threshold", "often"], "'often' is not a percentage (e.g. 2 or 2%) or 'auto'"),
    ]
    for argv, message in cases:
        r = run_cli(*argv)
        assert r.returncode in (1, 2), r.stdout
        assert message in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_calibrate_a_suite_stores_each_selected_benchmark(run_cli, tmp_path: Path) -> None:
    suite = tmp_path / "pairbench.toml"
    suite.write_text(textwrap.dedent("""\
        [variants.head]
        command = "python3"
        [variants.patched]
        command = "python3"

        [benchmarks.parse_small]
        command = "{variant} -c pass"
        [benchmarks.parse_big]
        command = "{variant} -c pass"
        [benchmarks.render]
        command = "{variant} -c pass"
        """))
    hist = tmp_path / "h.sqlite"
    # the fake runs a block in about 0.13 ms: 0.3 s is still close to a thousand blocks per benchmark
    r = run_cli("calibrate", "--suite", str(suite), "--only", "parse*", "--max-time", "0.3", "--history", str(hist),
                "--debug-fake", "--no-progress", "--export-json", "aa.json")
    assert r.returncode == 0, r.stderr
    assert "calibration of `parse_small`" in r.stdout and "calibration of `parse_big`" in r.stdout
    assert "render" not in r.stdout
    assert sorted({b for b, _, _ in _calibrations(hist)}) == ["parse_big", "parse_small"]


@pytest.mark.slow
def test_calibrate_a_real_command(run_cli, tmp_path: Path) -> None:
    hist = tmp_path / "h.sqlite"
    r = run_cli("calibrate", "-N", "true", "--max-time", "10", "--history", str(hist), "--no-progress",
                "--export-json", "aa.json")
    assert r.returncode == 0, r.stderr
    assert re.search(r"calibration of `command` on .*: (\d+) A/A blocks", r.stdout), r.stdout
    blocks = int(re.search(r": (\d+) A/A blocks", r.stdout).group(1))  # type: ignore[union-attr]
    # `true` takes about a millisecond: a block took 8 ms at a load of 3 (1194 blocks in 10 s), so 12 fit
    # even at a hundred times that
    assert blocks >= 12
    assert "on this machine" in r.stdout
    rows = _calibrations(hist)
    metrics = [m for _, m, _ in rows]
    # a metric with values of 0 in some blocks (the system time of `true`) cannot be calibrated on the log scale
    assert metrics[0] == "time" and "rss" in metrics and set(metrics) <= {"time", "user", "sys", "rss"}
    assert all(d > 0 for _, _, d in rows)
