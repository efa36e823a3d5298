"""`--plan EFFECT`: blocks and time to detect a change, from a pilot or a stored calibration, then stop."""

from __future__ import annotations

import json
import re
from pathlib import Path


def _planned(stdout: str) -> tuple[int, str]:
    m = re.search(r"^(\d+) blocks: about (.+?) \(.*measure them with -r (\d+)$", stdout, re.M)
    assert m, stdout
    assert m.group(1) == m.group(3)
    return int(m.group(1)), m.group(2)


def test_plan_measures_a_pilot_prints_the_blocks_and_stops(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "a", "b", "--plan", "2%", "--no-progress", "--no-history", "--debug-fake=1,1.05",
                "--export-json", str(tmp_path / "pilot.json"))
    assert r.returncode == 0, r.stderr
    assert "plan: detecting a 2.0% change at 80% power (95% CI)" in r.stdout
    assert "pilot of 10 blocks" in r.stdout
    _planned(r.stdout)
    # a plan, not a verdict: no comparison is reported
    assert "faster" not in r.stdout and "slower" not in r.stdout
    pilot = json.loads((tmp_path / "pilot.json").read_text())
    assert pilot["samples"], "the pilot's samples are kept"


def test_a_smaller_effect_needs_more_blocks(run_cli) -> None:
    big = run_cli("cmd", "a", "b", "--plan", "5", "--no-progress", "--no-history", "--debug-fake", "--seed", "1")
    small = run_cli("cmd", "a", "b", "--plan", "0.5%", "--no-progress", "--no-history", "--debug-fake", "--seed", "1")
    assert big.returncode == small.returncode == 0, big.stderr + small.stderr
    assert _planned(small.stdout)[0] > _planned(big.stdout)[0]


def test_plan_reads_a_stored_calibration_instead_of_a_pilot(run_cli, tmp_path: Path) -> None:
    hist = str(tmp_path / "h.sqlite")
    cal = run_cli("calibrate", "true", "--max-time", "1", "--benchmark", "parse", "--history", hist,
                  "--no-progress", "--debug-fake", "--export-json", str(tmp_path / "aa.json"))
    assert cal.returncode == 0, cal.stderr
    r = run_cli("cmd", "old", "new", "--benchmark", "parse", "--plan", "1", "--history", hist, "--no-progress",
                "--debug-fake")
    assert r.returncode == 0, r.stderr
    assert re.search(r"calibration #1 of \d{4}-\d\d-\d\d", r.stdout), r.stdout
    _planned(r.stdout)


def test_bad_plans_are_one_line(run_cli) -> None:
    for argv, message in [(["cmd", "a", "b", "--plan", "two"], "'two' is not a percentage"),
                          (["cmd", "a", "b", "--plan", "0"], "must be a percentage between 0 and 100"),
                          (["cmd", "a", "--plan", "2", "--debug-fake", "--no-history"],
                           "error: --plan needs a baseline and at least one candidate"),
                          (["cmd", "a", "b", "--plan", "2", "-r", "2", "--debug-fake", "--no-history"],
                           "give -r 3 or more")]:
        r = run_cli(*argv)
        assert r.returncode in (1, 2), r.stdout
        assert message in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_micro_and_run_take_plan_too(run_cli, tmp_path: Path) -> None:
    suite = tmp_path / "pairbench.toml"
    suite.write_text('[variants.a]\ncommand = "true"\n[variants.b]\ncommand = "true"\n'
                     '[benchmarks.x]\ncommand = "true"\n')
    r = run_cli("run", str(suite), "--plan", "3%", "--no-progress", "--no-history", "--debug-fake=1,1.1")
    assert r.returncode == 0, r.stderr + r.stdout
    _planned(r.stdout)
    help_text = run_cli("micro", "--help").stdout
    assert "--plan EFFECT" in help_text
