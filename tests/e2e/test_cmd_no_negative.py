"""No time below zero: not in the terminal, the run file or hyperfine's CSV (real processes).

A command that needs no shell runs without one, so nothing is subtracted; one that does gets the
shell's fastest start-up taken off, never more than the run took, and a run shorter than the
spread of that start-up is said once, with hyperfine's hint.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from pairbench.store.runfile import load_run

QUIET = ("-w", "1", "--no-history", "--no-progress", "--export-json", "r.json", "--export-csv", "r.csv")
NEGATIVE_TIME = re.compile(r"[-−]\s*\d[\d.,]*\s*(?:ns|µs|us|ms|s|min)\b")
"""A minus sign (ASCII or U+2212) before a figure in a unit of time."""


def _assert_no_negative_time(tmp_path: Path, stdout: str) -> list[float]:
    """Every time, user and sys value in the run file and every figure of the CSV is >= 0; the values."""
    run = load_run(tmp_path / "r.json")
    values = [s.value for s in run.samples if s.metric in ("time", "user", "sys")]
    assert values and min(values) >= 0, sorted(values)[:5]
    rows = list(csv.DictReader((tmp_path / "r.csv").read_text().splitlines()))
    assert rows
    for row in rows:
        for column in ("mean", "stddev", "median", "user", "system", "min", "max"):
            assert float(row[column]) >= 0, (column, row)
    assert not NEGATIVE_TIME.search(stdout), stdout
    return values


def _notice_kinds(tmp_path: Path) -> list[str]:
    return [n.kind for n in load_run(tmp_path / "r.json").notices]


@pytest.mark.slow
@pytest.mark.parametrize("commands", [("true",), ("echo 1", "echo 2")])
def test_commands_without_shell_syntax_run_directly_and_read_above_zero(run_cli, tmp_path, commands) -> None:
    r = run_cli("cmd", *commands, "-r", "10", *QUIET)
    assert r.returncode == 0, r.stderr
    _assert_no_negative_time(tmp_path, r.stdout)
    times = [s.value for s in load_run(tmp_path / "r.json").samples if s.metric == "time"]
    assert min(times) > 0  # nothing is subtracted from a process run without a shell
    assert "no-shell" in _notice_kinds(tmp_path) and "shell" not in _notice_kinds(tmp_path)
    assert "without a shell" not in r.stderr  # how it ran changes no verdict: said under -v and in the run file
    verbose = run_cli("cmd", *commands, "-r", "6", "-v", "--no-history", "--no-progress")
    assert "without a shell" in verbose.stderr


@pytest.mark.slow
def test_s_sh_given_keeps_the_shell_and_still_reads_above_zero(run_cli, tmp_path) -> None:
    r = run_cli("cmd", "-S", "sh", "true", "-r", "10", *QUIET)
    assert r.returncode == 0, r.stderr
    _assert_no_negative_time(tmp_path, r.stdout)
    assert "shell" in _notice_kinds(tmp_path) and "no-shell" not in _notice_kinds(tmp_path)


@pytest.mark.slow
def test_shell_syntax_shorter_than_the_shells_start_up_is_said_once_and_never_negative(run_cli, tmp_path) -> None:
    r = run_cli("cmd", ":", "true;true", "-r", "10", *QUIET)
    assert r.returncode == 0, r.stderr
    _assert_no_negative_time(tmp_path, r.stdout)
    kinds = _notice_kinds(tmp_path)
    assert kinds.count("shell-startup") == 1, kinds
    assert "shell" in kinds and "no-shell" not in kinds
    hint = [line for line in r.stderr.splitlines() if "spread of sh's start-up" in line]
    assert len(hint) == 1 and "-N" in r.stderr, r.stderr


@pytest.mark.slow
def test_a_tiny_command_through_the_shell_still_reads_slower_than_a_shorter_one(run_cli, tmp_path) -> None:
    """`sleep 0.005;` through sh against `:`: the start-up taken off both, the 5 ms still show."""
    r = run_cli("cmd", ":", "sleep 0.005;", "-r", "10", "--fail-on-regression", *QUIET, timeout=240)
    assert r.returncode == 3, r.stdout + r.stderr
    _assert_no_negative_time(tmp_path, r.stdout)
    time = next(c for c in load_run(tmp_path / "r.json").comparisons if c.metric == "time")
    assert time.verdict == "slower" and time.significant, time
