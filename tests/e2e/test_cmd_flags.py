"""hyperfine command lines run unchanged through `pairbench cmd` (scripted timings, no process)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

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


EXPORTS = ("--export-markdown", "r.md", "--export-csv", "r.csv", "--export-asciidoc", "r.adoc",
           "--export-orgmode", "r.org")


def _check_exports(tmp_path: Path, variant: str) -> None:
    assert "| Benchmark | Metric | Variant |" in (tmp_path / "r.md").read_text()
    assert (tmp_path / "r.csv").read_text().startswith("benchmark,variant,metric,value")
    adoc = (tmp_path / "r.adoc").read_text()
    assert adoc.count("|===") == 2 and f"| {variant}" in adoc
    org = (tmp_path / "r.org").read_text()
    assert org.startswith("#+TITLE:") and f"| {variant} |" in org


def test_hyperfine_exports_on_cmd(run_cli, tmp_path: Path) -> None:
    # hyperfine README: hyperfine --export-markdown results.md ... (and the other formats alike)
    r = run_cli("cmd", *EXPORTS, "sleep 0.1", "sleep 0.2", "-r", "6", *FAST)
    assert r.returncode == 0, r.stderr
    _check_exports(tmp_path, "sleep 0.2")


def test_hyperfine_exports_on_run(run_cli, tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text('[variants.a]\ncommand = "true"\n[variants.b]\ncommand = "false"\n'
                                     '[benchmarks.t]\nkind = "command"\ncommand = "{variant}"\n')
    r = run_cli("run", "s.toml", *EXPORTS, "-r", "6", *FAST)
    assert r.returncode == 0, r.stderr
    _check_exports(tmp_path, "b")


def test_hyperfine_exports_on_http(run_cli, tmp_path: Path) -> None:
    r = run_cli("http", "--server", "python3 -m http.server {port}", "--server", "python3 -m http.server {port} ",
                "--requests", "10", *EXPORTS, "-r", "6", *FAST)
    assert r.returncode == 0, r.stderr
    _check_exports(tmp_path, "server2")


@pytest.mark.slow
def test_hyperfine_exports_on_micro(run_cli, tmp_path: Path) -> None:
    # micro calibrates its loop on the real interpreter before the scripted timings take over
    r = run_cli("micro", "--python", sys.executable, "--python", f"{sys.executable} -X dev", "x = 1 + 1",
                *EXPORTS, "-r", "6", *FAST)
    assert r.returncode == 0, r.stderr
    _check_exports(tmp_path, f"{sys.executable} -X dev")
