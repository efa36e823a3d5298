"""hyperfine command lines run unchanged through `pairbench cmd` (scripted timings, no process)."""

from __future__ import annotations

from pathlib import Path

from pairbench.store.runfile import load_run

FAST = ("-w", "0", "--no-history", "--no-progress", "--debug-fake=1,1")


def test_names_before_each_command(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "-n", "A", "sleep 0.1", "-n", "B", "sleep 0.2", "-r", "6", *FAST, "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    run = load_run(tmp_path / "r.json")
    assert [(v.name, v.command) for v in run.variants] == [("A", "sleep 0.1"), ("B", "sleep 0.2")]


def test_a_a_check_runs_with_names_made_distinct_said_once(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "sleep 0.1", "sleep 0.1", "-r", "6", *FAST, "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    run = load_run(tmp_path / "r.json")
    assert [v.name for v in run.variants] == ["sleep 0.1", "sleep 0.1 #2"]
    said = (r.stdout + r.stderr).count("repeated names made distinct")
    assert said == 1, r.stdout + r.stderr


def test_a_name_template_with_a_parameter_list(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "-n", "one-{a}", "-L", "a", "1,2", "echo {a}", "-r", "6", *FAST, "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    assert [v.name for v in load_run(tmp_path / "r.json").variants] == ["one-1", "one-2"]
