"""A real micro run: operations per second and time per op agree wherever both are shown (the
terminal's -v table, the Markdown report, the run file, the trackers' exports)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from pairbench.store.runfile import load_run

PY = sys.executable
_SCALE = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "": 1.0, "k": 1e3, "M": 1e6, "B": 1e9, "G": 1e9}
_FIGURE = r"(\d+(?:\.\d+)?)\s*(ns|µs|ms|s)\b|(\d+(?:\.\d+)?)(k|M|B|G)?\s*op/s"


def _values(line: str) -> list[float]:
    """The times and rates written in one row, in order, in SI units."""
    out = []
    for m in re.finditer(_FIGURE, line):
        if m.group(1):
            out.append(float(m.group(1)) * _SCALE[m.group(2)])
        else:
            out.append(float(m.group(3)) * _SCALE[m.group(4) or ""])
    return out


def _agree(time: float, rate: float, digits: int = 4) -> None:
    # each printed to 4 significant digits: their product is 1 within 2 half-units of the 4th digit
    assert time * rate == pytest.approx(1.0, abs=2 * 5 * 10 ** -digits), (time, rate)


@pytest.mark.slow
def test_ops_per_s_is_one_over_time_per_op_in_every_output(run_cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    bmf, gh = tmp_path / "bmf.json", tmp_path / "gh.json"
    proc = run_cli("micro", "-s", "x = list(range(50))", "sorted(x)", "--python", PY, "--python", f"{PY} -X dev",
                   "--samples", "4", "--warmup-samples", "1", "--target-time", "0.01", "--runs", "6",
                   "--seed", "1", "-v", "--export-json", str(out), "--export-bmf", str(bmf),
                   "--export-github-benchmark", str(gh), env={"COLUMNS": "200"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = load_run(out)
    by = {(c.metric, c.candidate): c for c in run.comparisons}
    for (metric, cand), t in by.items():
        if metric == "time_per_op":
            r = by[("ops_per_s", cand)]
            assert r.baseline_value * t.baseline_value == pytest.approx(1.0, rel=1e-9)
            assert r.candidate_value * t.candidate_value == pytest.approx(1.0, rel=1e-9)
            assert r.ratio * t.ratio == pytest.approx(1.0, rel=1e-9)
    rows = {line.split()[0]: _values(line) for line in proc.stdout.splitlines()
            if line.split() and line.split()[0] in ("time_per_op", "ops_per_s")}
    assert len(rows["time_per_op"]) == len(rows["ops_per_s"]) == 2, proc.stdout
    for t, r in zip(rows["time_per_op"], rows["ops_per_s"]):
        _agree(t, r)
    md = run_cli("report", str(out))
    table = {}
    for line in md.stdout.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 4 and cells[2] in ("time_per_op", "ops_per_s"):
            table[(cells[2], cells[3])] = _values(cells[4])[0]
    variants = {v for _, v in table}
    assert len(variants) == 2
    for v in variants:
        _agree(table[("time_per_op", v)], table[("ops_per_s", v)])
    for name, entries in json.loads(bmf.read_text()).items():
        if "ops_per_s" in entries:
            t, r = entries["latency"], entries["ops_per_s"]
            assert t["value"] * 1e-9 * r["value"] == pytest.approx(1.0, rel=1e-9)
            assert t["upper_value"] * 1e-9 * r["lower_value"] == pytest.approx(1.0, rel=1e-9)
            assert t["lower_value"] * 1e-9 * r["upper_value"] == pytest.approx(1.0, rel=1e-9)
    # one file per direction: the time per op in gh.json, the rate in gh.bigger.json, under one name
    times = {e["name"]: e["value"] for e in json.loads(gh.read_text())}
    rates = {e["name"]: e["value"] for e in json.loads(gh.with_name("gh.bigger.json").read_text())}
    assert len(rates) == 2
    for name, rate in rates.items():
        assert times[name] * rate == pytest.approx(1.0, rel=1e-9)
