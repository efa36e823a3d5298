"""What `pairbench cmd` runs and measures, on real processes: assignments, shims, output, RSS."""

import json
import sys

import pytest

PY = sys.executable
PRINT_X = "import os,json; print(json.dumps({'pairbench': {'x': int(os.environ['PB_X'])}}))"


@pytest.mark.slow
def test_assignments_before_the_command_set_its_environment_without_a_shell(run_cli, tmp_path):
    run_file = tmp_path / "r.json"
    out = run_cli(
        "cmd", "-N", "-r", "2", "-w", "0", f'PB_X=3 {PY} -c "{PRINT_X}"', f'PB_X=5 {PY} -c "{PRINT_X}"',
        "-n", "three", "-n", "five", "--export-json", str(run_file), "--no-history", "--no-progress",
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(run_file.read_text())
    xs = {(s["variant"], s["value"]) for s in doc["samples"] if s["metric"] == "x"}
    assert xs == {("three", 3.0), ("five", 5.0)}
    executables = {v["meta"]["executable"] for v in doc["variants"]}
    assert all(not e.startswith("PB_X") for e in executables), executables
