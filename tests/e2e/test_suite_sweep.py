"""End to end: a suite sweeping a real env var that a real program's cost depends on."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

# Work units per COST value: each step is at least 44% costlier than the one before (differences
# >= 30%, with room for a loaded 2-core machine; the best is twice as cheap as the runner-up).
FACTORS = {1: 1.0, 2: 2.0, 3: 3.0, 4: 4.5, 5: 6.5}

PROGRAM = """
import os, time
FACTORS = {factors!r}
n = int(200_000 * FACTORS[int(os.environ["COST"])])
t = time.perf_counter()
x = 0
for i in range(n):
    x += i
print("work time:", time.perf_counter() - t)
"""


def _write_suite(tmp_path: Path) -> Path:
    (tmp_path / "cost.py").write_text(PROGRAM.format(factors=FACTORS))
    suite = tmp_path / "sweep.toml"
    suite.write_text(textwrap.dedent(f"""\
        [defaults]
        runs = 20
        max_time = 200   # a loaded machine gets more blocks; a quiet one stops at the first look
        warmup = 1
        threshold = 1.0
        seed = 7

        [variants.py]
        command = "{sys.executable} -S -I"

        [[sweeps]]
        name = "COST"
        values = [3, 1, 2, 4, 5]     # the first point (COST=3) is the baseline
        as = "env"

        [benchmarks.loop]
        command = "{{variant}} {tmp_path / 'cost.py'}"
        shell = false
        metrics = {{ work = {{ regex = 'work time: ([\\d.e-]+)', unit = "s" }} }}
        """))
    return suite


@pytest.mark.slow
def test_sweep_finds_cheapest_and_calls_costlier_slower(run_cli, tmp_path: Path) -> None:
    from pairbench.analysis.sweep import sweep_tables
    from pairbench.store.runfile import load_run

    suite = _write_suite(tmp_path)
    out = tmp_path / "run.json"
    proc = run_cli("run", str(suite), "--export-json", str(out), "--no-history", "--no-progress",
                   env={"XDG_DATA_HOME": str(tmp_path / "data")}, timeout=400)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "sweep: loop · time · py" in proc.stdout
    assert "Holm-corrected" in proc.stdout
    assert "best: COST=1" in proc.stdout

    run = load_run(out)
    assert run.status == "complete"
    names = [v.name for v in run.variants]
    assert names == [f"py/COST={c}" for c in (3, 1, 2, 4, 5)]
    assert run.baseline.name == "py/COST=3"
    assert run.suite is not None and run.suite["sweeps"][0]["values"] == ["3", "1", "2", "4", "5"]
    assert "[[sweeps]]" in run.suite["text"]

    assert run.sweeps == sweep_tables(run)  # stored in the run file as the analysis made them
    for metric in ("time", "work"):
        (table,) = [t for t in run.sweeps if t.metric.name == metric]
        verdicts = {r.params["COST"]: r.verdict for r in table.rows}
        assert verdicts == {"3": "baseline", "1": "faster", "2": "faster", "4": "slower", "5": "slower"}, (metric, verdicts)
        main = {c.candidate: c.verdict for c in run.comparisons if c.metric == metric}
        assert all(r.verdict == main[r.variant] for r in table.rows if r.comparison is not None)
        assert table.best == "py/COST=1" and table.runner_up == "py/COST=2"
        assert table.distinguishable is True
        assert table.family >= 4 if metric == "time" else table.family == 1  # the run corrects primary metrics
        (trend,) = table.trends
        assert trend.parameter == "COST" and trend.ci is not None and trend.ci[0] > 0  # costlier with COST


@pytest.mark.slow
def test_check_lists_matrix_without_running(run_cli, tmp_path: Path) -> None:
    suite = _write_suite(tmp_path)
    proc = run_cli("run", str(suite), "--check")
    assert proc.returncode == 0, proc.stderr
    assert "py/COST=3  (baseline)" in proc.stdout and "py/COST=5" in proc.stdout
    assert "metrics: time, work" in proc.stdout


def test_bad_suite_is_one_error_line_before_anything_runs(run_cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[variants.a]\ncommand = "true"\n\n[variants.b]\ncomand = "true"\n\n[benchmarks.x]\ncommand = "{variant}"\n')
    proc = run_cli("run", str(bad))
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        f"error: {bad}:5: unknown key 'comand' in variant 'b' (did you mean 'command'?); valid keys: "
        "command, args, env, unset_env, cwd, baseline, params, git, description"
    ]
    proc = run_cli("run")
    assert proc.returncode == 1 and "no pairbench.toml" in proc.stderr and "pairbench init" in proc.stderr


@pytest.mark.slow
def test_init_writes_a_suite_that_runs_as_written(run_cli, tmp_path: Path) -> None:
    proc = run_cli("init")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "pairbench.toml").read_text().startswith("# pairbench suite")
    again = run_cli("init")
    assert again.returncode == 1 and "already exists" in again.stderr
    out = tmp_path / "init.json"
    proc = run_cli("run", "--runs", "3", "--max-runs", "3", "--warmup", "0", "--export-json", str(out),
                   "--no-history", "--no-progress", env={"XDG_DATA_HOME": str(tmp_path / "data")})
    assert proc.returncode == 0, proc.stderr + proc.stdout
    doc = json.loads(out.read_text())
    assert doc["status"] == "complete"
    assert {v["name"] for v in doc["variants"]} == {"python/SIZE=20000", "python/SIZE=200000", "python-nosite"}
    assert {s["metric"] for s in doc["samples"] if s["benchmark"] == "sort"} >= {"time", "sort"}


def test_a_suite_said_entirely_on_the_command_line(run_cli, tmp_path: Path) -> None:
    # scripted timings (--debug-fake=1,5: the second variant takes five times as long): this checks
    # that --set builds the suite, not the measuring, which the sweep test above does for real
    out = tmp_path / "run.json"
    proc = run_cli(
        "run", "--set", f'variants.fast.command="{sys.executable} -S -I -c"', "--set", "variants.fast.baseline=true",
        "--set", f'variants.slow.command="{sys.executable} -S -I -c"',
        "--set", 'variants.slow.env={ EXTRA = "1" }',
        "--set", 'benchmarks.loop.command="{variant} pass"',
        "--set", "defaults.runs=8", "--set", "defaults.warmup=1",
        "--export-json", str(out), "--no-history", "--no-progress", "--debug-fake=1,5",
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    import json

    doc = json.loads(out.read_text())
    assert doc["metadata"]["blocks"] == 8
    assert [v["env"] for v in doc["variants"]] == [{}, {"EXTRA": "1"}]
    time = next(c for c in doc["comparisons"] if c["metric"] == "time")
    assert time["candidate"] == "slow" and time["verdict"] == "slower", time["sentence"]
