"""Ctrl-C during a run: exit 130, one line, the run file keeps the samples, no child left behind."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import cli_env
from tests.e2e.test_cmd_errors import process_alive


@pytest.mark.slow
def test_ctrl_c_keeps_samples_and_kills_the_running_command(tmp_path):
    pids = tmp_path / "pids"
    # each run records its shell's pid, then sleeps; the 4th run sleeps for a long time
    cmd = f"echo $$ >> {pids}; n=$(wc -l < {pids}); if [ $n -ge 6 ]; then sleep 120; else sleep 0.05; fi"
    run_file = tmp_path / "r.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pairbench", "cmd", cmd, f"{cmd} # b", "-r", "10", "-w", "1",
         "--export-json", str(run_file), "--no-history", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env(), cwd=tmp_path,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if pids.exists() and len(pids.read_text().split()) >= 6:
            break
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err
    assert "samples kept in" in err
    doc = json.loads(run_file.read_text())
    assert doc["status"] == "interrupted"
    assert len([s for s in doc["samples"] if s["metric"] == "time"]) >= 4
    for pid in map(int, pids.read_text().split()):
        assert not process_alive(pid)
