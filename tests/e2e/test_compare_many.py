"""`compare` of three or more run files (a geomean row, benchstat's), and of the commands inside one
hyperfine JSON export (the first command is the baseline)."""

from __future__ import annotations

import math
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from tests.unit.runs_by_hand import make_run

from pairbench.store.runfile import write_run


def _write_scaled(path: Path, seed: int, factor: float) -> None:
    """A run whose command and micro timings are `factor` times the first's (the HTTP figures unchanged)."""
    run = make_run(seed=seed, blocks=10)
    run.samples = [replace(s, value=s.value * factor) if s.metric in ("time", "time_per_op") else s
                   for s in run.samples]
    write_run(path, run)


def _row(stdout: str, first: str) -> list[str]:
    line = next(x for x in stdout.splitlines() if x.startswith(first))
    return re.split(r"\s{2,}", line.strip())


def test_three_files_each_against_the_first_with_a_geomean_row(tmp_path: Path, run_cli) -> None:
    for name, seed, factor in (("a.json", 1, 1.0), ("b.json", 2, 1.3), ("c.json", 3, 0.7)):
        _write_scaled(tmp_path / name, seed, factor)
    proc = run_cli("compare", "a.json", "b.json", "c.json", "--markdown", "m.md", "--html", "m.html")
    assert proc.returncode == 0, proc.stderr
    header = _row(proc.stdout, "benchmark")
    assert header == ["benchmark", "metric", "a.json", "b.json", "vs a.json", "c.json", "vs a.json"]
    startup = _row(proc.stdout, "startup      time")
    assert startup[4].endswith("slower") and startup[6].endswith("faster"), startup
    geomean = _row(proc.stdout, "geomean (3)")
    assert geomean[1] == "primary metrics"
    # startup and Object.new are 1.3x and 0.7x, the throughput unchanged: the geomean is about the cube root
    b_ratio, c_ratio = float(geomean[3]), float(geomean[5])
    assert b_ratio == pytest.approx(1.3 ** (2 / 3), rel=0.03) and c_ratio == pytest.approx(0.7 ** (2 / 3), rel=0.03)
    assert geomean[4].startswith("+") and geomean[6].startswith("−")
    md = (tmp_path / "m.md").read_text()
    assert "| startup | time | b.json |" in md and "| startup | time | c.json |" in md
    assert "| geomean (3) | primary metrics | 1 | " + " | ".join(geomean[3:]) + " |" in md  # the terminal's cells
    page = (tmp_path / "m.html").read_text()
    cells = "".join(f'<td class="num">{c}</td>' for c in ["1", *geomean[3:]])
    assert f"<tr><td>geomean (3)</td><td>primary metrics</td>{cells}</tr>" in page


def test_markdown_before_the_files_reads_the_first_as_an_input(tmp_path: Path, run_cli) -> None:
    for name, seed in (("a.json", 1), ("b.json", 2), ("c.json", 3)):
        _write_scaled(tmp_path / name, seed, 1.0)
    before = (tmp_path / "a.json").read_text()
    proc = run_cli("compare", "--markdown", "a.json", "b.json", "c.json")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "a.json").read_text() == before  # never overwritten with Markdown
    assert "# pairbench compare" in proc.stdout and "geomean (3)" in proc.stdout


def test_one_file_with_one_variant_and_no_file_are_one_line_each(tmp_path: Path, run_cli) -> None:
    run = make_run()
    run.variants = run.variants[:1]
    run.samples = [s for s in run.samples if s.variant == "head"]
    run.comparisons = []
    write_run(tmp_path / "one.json", run)
    proc = run_cli("compare", "one.json")
    assert proc.returncode == 1
    assert proc.stderr.strip() == "error: one.json holds one variant (head); give a second file to compare it with"
    proc = run_cli("compare")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: give the run files")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("hyperfine") is None, reason="hyperfine not installed")
def test_the_commands_of_one_hyperfine_export_are_compared_with_the_first(tmp_path: Path, run_cli) -> None:
    import subprocess

    # 10 ms, 50 ms and 25 ms of sleep: effects of 2.5x and more, far beyond a loaded machine's noise
    subprocess.run(["hyperfine", "-N", "--runs", "10", "--warmup", "1", "--export-json", str(tmp_path / "h.json"),
                    "sleep 0.01", "sleep 0.05", "sleep 0.025"], check=True, capture_output=True, timeout=120)
    proc = run_cli("compare", "h.json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("base:       h.json (sleep 0.01)\n")
    assert _row(proc.stdout, "benchmark")[2:] == ["sleep 0.01", "sleep 0.05", "vs sleep 0.01", "sleep 0.025",
                                                  "vs sleep 0.01"]
    row = _row(proc.stdout, "hyperfine")
    assert row[4].endswith("slower") and row[6].endswith("slower"), row
    assert "sleep 0.05 is " in proc.stdout and "slower than sleep 0.01" in proc.stdout
    assert "was measured interleaved" not in proc.stderr  # hyperfine's runs are not
    two = tmp_path / "two.json"
    subprocess.run(["hyperfine", "-N", "--runs", "10", "--export-json", str(two), "sleep 0.01", "sleep 0.05"],
                   check=True, capture_output=True, timeout=120)
    proc = run_cli("compare", "two.json")
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("hyperfine"))
    assert line.split()[-1] == "slower" and "sleep 0.01" in proc.stdout.splitlines()[0]


def _ms(cell: str) -> float:
    number, unit = cell.split()
    return float(number) * {"s": 1e3, "ms": 1.0, "µs": 1e-3, "ns": 1e-6}[unit]


def test_three_runs_are_not_called_two_and_the_values_agree_with_each_change(tmp_path: Path, run_cli) -> None:
    """`compare` showed user 952 µs -> 1.040 ms as +56.9% (medians beside a ratio of means), and said
    "drift between the two runs" of three."""
    for name, seed, factor in (("a.json", 1, 1.0), ("b.json", 2, 1.3), ("c.json", 3, 0.7)):
        _write_scaled(tmp_path / name, seed, factor)
    proc = run_cli("compare", "a.json", "b.json", "c.json")
    assert proc.returncode == 0, proc.stderr
    assert "two runs" not in proc.stdout and "drift between the runs" in proc.stdout
    assert "values: the baseline's geometric mean" in proc.stdout
    row = _row(proc.stdout, "startup      time")
    base = _ms(row[2])
    for value, change in ((row[3], row[4]), (row[5], row[6])):
        percent = float(change.split()[0].replace("−", "-").rstrip("%"))
        assert (_ms(value) / base - 1) * 100 == pytest.approx(percent, abs=0.15), row


def test_the_primary_geomean_follows_from_the_changes_shown(tmp_path: Path, run_cli) -> None:
    # b's startup reads 0 once, ~0 in five runs and 4x in four: compared by its means it is +57%
    # slower, but its median is ~0, and the geomean of medians read "0.076 −92.4%" beside two slowdowns
    for name, seed, factor in (("a.json", 1, 1.0), ("b.json", 2, 1.3), ("c.json", 3, 0.7)):
        run = make_run(seed=seed, blocks=10)

        def scaled(s, name=name, factor=factor):
            if s.metric not in ("time", "time_per_op"):
                return s
            if name == "b.json" and s.benchmark == "startup" and not s.warmup:
                return replace(s, value=0.0 if s.block == 0 else 1e-5 if s.block < 6 else 4 * s.value)
            return replace(s, value=s.value * factor)

        run.samples = [scaled(s) for s in run.samples]
        write_run(tmp_path / name, run)
    proc = run_cli("compare", "a.json", "b.json", "c.json")
    assert proc.returncode == 0, proc.stderr
    primary = {"startup      time": 1, "issues page  req_per_s": -1, "Object.new   time_per_op": 1}
    for column in (4, 6):
        log_sum = 0.0
        for first, sign in primary.items():
            change = _row(proc.stdout, first)[column].split()[0].replace("−", "-").rstrip("%")
            log_sum += sign * math.log(1 + float(change) / 100)
        geomean = _row(proc.stdout, "geomean (3)  primary")
        assert float(geomean[column - 1]) == pytest.approx(math.exp(log_sum / 3), rel=0.01), (column, proc.stdout)
