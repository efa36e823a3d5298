"""Verdicts that must not be silently wrong, on real processes (issue 10)."""

from __future__ import annotations

import json

import pytest


@pytest.mark.slow
def test_a_fast_command_24x_slower_fails_the_gate(run_cli, tmp_path):
    """`true` reads about 0 once the shell's start-up is subtracted; `sleep 0.005` is ~24x slower.

    Before, values <= 0 sent the time to the "exact, no test" path and the gate passed (exit 0).
    """
    run_file = tmp_path / "r.json"
    out = run_cli("cmd", "-r", "10", "--fail-on-regression", "true", "sleep 0.005", "--export-json", str(run_file),
                  "--no-history", "--no-progress", timeout=240)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "slower" in out.stdout
    assert "exact, no test" not in out.stdout
    doc = json.loads(run_file.read_text())
    by_metric = {c["metric"]: c for c in doc["comparisons"]}
    time = by_metric["time"]
    assert time["verdict"] == "slower" and time["meaningful"] and time["p_value"] is not None
    for name in ("user", "sys"):
        assert by_metric[name]["verdict"] != "exact" and by_metric[name]["p_value"] is not None
