"""The exports other tools read, from a measuring command, read by those tools: hyperfine's Markdown
table (`--export-markdown`), pyperf (`show`, `compare_to`), Bencher Metric Format and
github-action-benchmark's custom JSON."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FAST = ("-r", "10", "-w", "1", "--no-history", "--no-progress", "--debug-fake=1,1.05")


def _csv_means(path: Path) -> dict[str, float]:
    return {row["command"]: float(row["mean"]) for row in csv.DictReader(path.read_text().splitlines())}


def test_export_markdown_is_hyperfines_table_in_at_most_twelve_lines(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "sleep 0.02", "sleep 0.021", *FAST, "--export-markdown", "r.md", "--export-csv", "r.csv")
    assert r.returncode == 0, r.stderr
    lines = (tmp_path / "r.md").read_text().splitlines()
    assert len(lines) <= 12, lines
    assert lines[:2] == ["| Command | Mean [ms] | Min [ms] | Max [ms] | Relative |", "|:---|---:|---:|---:|---:|"]
    means = _csv_means(tmp_path / "r.csv")
    row = re.compile(r"\| `(.+)` \| ([\d.]+) ± [\d.]+ \| .* \| ([\d.]+)(?: ± ([\d.]+))? \|$")
    rows = {m.group(1): m for line in lines if (m := row.match(line))}
    assert set(rows) == {"sleep 0.02", "sleep 0.021"}
    for command, m in rows.items():
        assert float(m.group(2)) == pytest.approx(means[command] * 1e3, abs=0.05)
    assert rows["sleep 0.02"].group(3) == "1.00" and rows["sleep 0.02"].group(4) is None
    assert float(rows["sleep 0.021"].group(3)) == pytest.approx(means["sleep 0.021"] / means["sleep 0.02"], abs=0.005)
    verdict = [line for line in lines if line.startswith("- ")]
    assert len(verdict) == 1 and "**slower**" in verdict[0] and "95% CI" in verdict[0], lines


def test_pyperf_bmf_and_github_benchmark_from_one_run(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "-n", "old", "sleep 0.02", "-n", "new", "sleep 0.021", *FAST, "--export-csv", "r.csv",
                "--export-pyperf", "p.json", "--export-bmf", "b.json", "--export-github-benchmark", "g.json")
    assert r.returncode == 0, r.stderr
    means = _csv_means(tmp_path / "r.csv")
    shown = subprocess.run([sys.executable, "-m", "pyperf", "show", "p.old.json"], cwd=tmp_path, capture_output=True,
                           text=True, check=True)
    shown_mean = re.search(r"Mean \+- std dev: ([\d.]+) ms", shown.stdout)  # pyperf rounds to the std dev
    assert shown_mean and float(shown_mean.group(1)) == pytest.approx(means["old"] * 1e3, rel=0.01), shown.stdout
    compared = subprocess.run([sys.executable, "-m", "pyperf", "compare_to", "p.old.json", "p.new.json"], cwd=tmp_path,
                              capture_output=True, text=True, check=True)
    slower = re.search(r"([\d.]+)x slower", compared.stdout)
    assert slower and float(slower.group(1)) == pytest.approx(means["new"] / means["old"], abs=0.01), compared.stdout
    bmf = json.loads((tmp_path / "b.json").read_text())
    assert bmf["command/old"]["latency"]["value"] == pytest.approx(means["old"] * 1e9)
    assert 1.03 < bmf["command/new"]["latency-ratio"]["value"] < 1.07
    github = {e["name"]: e for e in json.loads((tmp_path / "g.json").read_text())}
    assert github["command/new"]["value"] == pytest.approx(means["new"]) and github["command/new"]["unit"] == "s"
    assert not (tmp_path / "g.bigger.json").exists()  # no metric of a command is better when bigger


@pytest.mark.slow
def test_the_markdown_table_has_hyperfines_own_header(run_cli, tmp_path: Path) -> None:
    hyperfine = shutil.which("hyperfine")
    assert hyperfine, "hyperfine is installed by scripts/test.sh"
    subprocess.run([hyperfine, "-N", "-r", "3", "-w", "0", "--style", "none", "--export-markdown", "h.md",
                    "sleep 0.01", "sleep 0.02"], cwd=tmp_path, check=True, timeout=60, capture_output=True)
    r = run_cli("cmd", "-N", "sleep 0.01", "sleep 0.02", "-r", "3", "-w", "0", "--no-history", "--no-progress",
                "--export-markdown", "p.md", timeout=120)
    assert r.returncode == 0, r.stderr
    ours, theirs = (tmp_path / "p.md").read_text().splitlines(), (tmp_path / "h.md").read_text().splitlines()
    assert ours[:2] == theirs[:2]
    cells = re.compile(r"\| `(.+)` \| [\d.]+ ± [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+( ± [\d.]+)? \|$")
    assert [cells.match(line).group(1) for line in ours[2:4]] == [cells.match(line).group(1) for line in theirs[2:4]]
