"""`--export-csv` with hyperfine's meaning: the same header as hyperfine's own export."""

from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path

import pytest

FAST = ("-w", "0", "--no-history", "--no-progress", "--debug-fake=1,2")


def _rows(path: Path) -> list[list[str]]:
    return list(csv.reader(path.read_text().splitlines()))


@pytest.mark.slow
@pytest.mark.parametrize("params", [(), ("-L", "n", "1,2"), ("-P", "n", "1", "2")])
def test_header_equals_hyperfines_own_export(run_cli, tmp_path: Path, params: tuple[str, ...]) -> None:
    hyperfine = shutil.which("hyperfine")
    assert hyperfine, "hyperfine is installed by scripts/test.sh"
    command = "true {n}" if params else "true"
    subprocess.run([hyperfine, "-N", "-r", "2", "-w", "0", "--style", "none", *params, "--export-csv", "h.csv",
                    command], cwd=tmp_path, check=True, timeout=60, capture_output=True)
    r = run_cli("cmd", *params, command, "-r", "4", "-w", "0", "--no-history", "--no-progress",
                "--export-csv", "p.csv", timeout=120)
    assert r.returncode == 0, r.stderr
    ours, theirs = _rows(tmp_path / "p.csv"), _rows(tmp_path / "h.csv")
    assert ours[0] == theirs[0]
    assert [row[0] for row in ours[1:]] == [row[0] for row in theirs[1:]]


def test_summary_rows_and_the_samples_beside_them(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "-n", "A", "sleep 0.1", "-n", "B", "sleep 0.2", "-r", "6", *FAST,
                "--export-csv", "s.csv", "--export-samples-csv", "all.csv")
    assert r.returncode == 0, r.stderr
    rows = _rows(tmp_path / "s.csv")
    assert rows[0] == ["command", "mean", "stddev", "median", "user", "system", "min", "max"]
    assert [row[0] for row in rows[1:]] == ["A", "B"]
    means = [float(row[1]) for row in rows[1:]]
    assert means[1] > 1.5 * means[0]  # scripted: B takes twice A's time, in seconds
    samples = _rows(tmp_path / "all.csv")
    assert samples[0][:4] == ["benchmark", "variant", "metric", "value"]
    assert sum(1 for row in samples[1:] if row[2] == "time" and row[7] == "0") == 12
