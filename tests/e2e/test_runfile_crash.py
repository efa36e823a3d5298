"""A real `pairbench cmd` killed with SIGKILL mid-run: its run file holds every finished replicate,
and report and import read it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import cli_env


@pytest.mark.slow
def test_a_run_killed_mid_way_keeps_every_finished_replicate(tmp_path: Path, run_cli) -> None:
    pids = tmp_path / "pids"
    cmd = f"echo $$ >> {pids}; sleep 0.05"
    run_file = tmp_path / "r.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pairbench", "cmd", cmd, f"{cmd} # b", "-r", "200", "-w", "1",
         "--export-json", str(run_file), "--no-history", "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=cli_env(), cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if pids.exists() and len(pids.read_text().split()) >= 15:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    time.sleep(0.5)  # the replicate in flight (a 50 ms sleep) ends by itself; no new one starts
    started = len(pids.read_text().split())
    with pytest.raises(json.JSONDecodeError):
        json.loads(run_file.read_text())  # the document plus journal lines: not folded, as nobody finished it
    proc2 = run_cli("report", "r.json")
    assert proc2.returncode == 0, proc2.stderr
    assert "Traceback" not in proc2.stderr
    assert "this run is running" in proc2.stdout
    assert "has not finished" in proc2.stderr
    proc3 = run_cli("import", "r.json")
    assert proc3.returncode == 0, proc3.stderr
    recorded = int(proc3.stdout.split(" samples")[0].rsplit(" ", 1)[1])  # '... N samples; recorded ...'
    from pairbench.store.runfile import load_run

    times = [s for s in load_run(run_file).samples if s.metric == "time"]
    # every replicate that started before the one in flight finished and reached the file
    assert started - 1 <= len(times) <= started
    assert recorded == sum(not s.warmup for s in load_run(run_file).samples)
