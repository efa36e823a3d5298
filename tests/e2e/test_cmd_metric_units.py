"""`cmd --metric` with units: real commands that print the same quantity in different units."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pairbench.store.runfile import load_run

# bm_pprint's shape: one interpreter prints `1.09 sec`, the other `860 ms` for a faster run.
SLOW = "printf 'warming up\\npprint: 1.09 sec\\n'"
FAST = "printf 'pprint: 860 ms\\n2to3: 12.5\\n'"


def values(run: Any, metric: str, variant: str) -> set[float]:
    return {round(s.value, 9) for s in run.samples if s.metric == metric and s.variant == variant}


@pytest.mark.slow
def test_a_unit_group_compares_sec_and_ms_in_seconds(run_cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    proc = run_cli("cmd", SLOW, FAST, "-n", "old", "-n", "new", "--metric", r"pprint=^pprint: ([\d.]+) (\w+)",
                   "--runs", "3", "--export-json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = load_run(out)
    assert values(run, "pprint", "old") == {1.09}
    assert values(run, "pprint", "new") == {0.86}
    (c,) = [c for c in run.comparisons if c.metric == "pprint"]
    assert c.ratio == pytest.approx(0.86 / 1.09)


@pytest.mark.slow
def test_differing_unit_words_without_a_unit_group_are_refused_in_one_line(run_cli: Any, tmp_path: Path) -> None:
    proc = run_cli("cmd", SLOW, FAST, "-n", "old", "-n", "new", "--metric", r"pprint=^pprint: ([\d.]+)",
                   "--runs", "3")
    assert proc.returncode == 1
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("error: ")
    assert ("'old' printed it in 'sec' but 'new' in 'ms'" in line or "'new' printed it in 'ms' but 'old' in 'sec'" in line)
    assert "capture the unit with a second group" in line


@pytest.mark.slow
def test_a_declared_unit_and_a_name_starting_with_a_digit(run_cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    proc = run_cli("cmd", FAST, FAST, "-n", "a", "-n", "b", "--metric", r"2to3:ms=^2to3: ([\d.]+)", "--runs", "2",
                   "--export-json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = load_run(out)
    assert run.benchmarks[0].metric("2to3").unit == "s"
    assert {round(s.value, 9) for s in run.samples if s.metric == "2to3"} == {0.0125}
