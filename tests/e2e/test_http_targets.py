"""`--target NAME=URL`: A/B of two servers already running, started by the test on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e._http_servers import ONE_LOAD_APP, free_port, wait_port

pytestmark = pytest.mark.slow

DEMO_APP = Path(__file__).resolve().parents[2] / "src" / "pairbench" / "data" / "demo_app.py"


def _start(work: int) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(DEMO_APP), "--port", str(port), "--work", str(work)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_port(port)
    except BaseException:
        _stop(proc)
        raise
    return proc, port


def _stop(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def test_two_running_servers_are_compared_round_by_round_without_restart(run_cli, tmp_path: Path) -> None:
    fast, fast_port = _start(5)
    slow, slow_port = _start(60)
    try:
        out = tmp_path / "run.json"
        r = run_cli("http", "--target", f"fast=http://127.0.0.1:{fast_port}",
                    "--target", f"slow=http://127.0.0.1:{slow_port}/", "--url", "/", "-c", "1",
                    "--duration", "0.5", "--runs", "6", "--seed", "3", "--export-json", str(out))
        assert r.returncode == 0, r.stderr
        doc = json.loads(out.read_text())
        assert [v["name"] for v in doc["variants"]] == ["fast", "slow"]
        comp = {(c["benchmark"], c["metric"]): c for c in doc["comparisons"]}[("/", "req_per_s")]
        assert comp["verdict"] == "slower" and comp["ratio"] < 0.8
        # Interleaved by round: every round has a sample of each variant.
        rounds = {(s["variant"], s["block"]) for s in doc["samples"] if s["metric"] == "req_per_s"}
        assert rounds == {(v, b) for v in ("fast", "slow") for b in range(6)}
        # Not restarted: the same processes served every round and are still up.
        assert fast.poll() is None and slow.poll() is None
        assert "not replicated" in r.stdout + r.stderr
    finally:
        _stop(fast)
        _stop(slow)


def test_a_target_that_is_not_running_is_one_error_line(run_cli) -> None:
    port = free_port()
    r = run_cli("http", "--target", f"a=http://127.0.0.1:{port}", "--target", f"b=http://127.0.0.1:{port}",
                "-n", "10", "--runs", "1")
    assert r.returncode == 1 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    assert "cannot connect" in r.stderr and "--target a=" in r.stderr


@pytest.mark.parametrize("where, url, says", [
    ("--url", "http://127.0.0.1:99999/", "99999"),
    ("--url", "http://127.0.0.1:abc/", "'abc'"),
    ("--url", "http://127.0.0.1:0/", "port '0'"),
    ("--target", "http://127.0.0.1:99999", "99999"),
])
def test_a_url_whose_port_is_no_port_is_one_error_line(run_cli, where: str, url: str, says: str) -> None:
    args = ("--target", f"a={url}", "--target", f"b={url}", "--url", "/") if where == "--target" else (url,)
    r = run_cli("http", *args, "-n", "10", "--runs", "1")
    assert r.returncode == 1 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    assert says in r.stderr and "1 to 65535" in r.stderr and url in r.stderr, r.stderr


@pytest.mark.parametrize("engine", ["builtin", "wrk"])
def test_a_target_that_goes_away_mid_run_fails_its_later_rounds_with_either_engine(
        run_cli, tmp_path: Path, engine: str) -> None:
    """With wrk as with the built-in engine: the round it could not connect in is failed, and the
    rounds measured before are kept and reported (wrk's failure stopped the run with one line)."""
    if engine == "wrk" and shutil.which("wrk") is None:
        pytest.skip("needs wrk")
    app = tmp_path / "one_load.py"
    app.write_text(ONE_LOAD_APP)
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(app), str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_port(port)
        out = tmp_path / "run.json"
        r = run_cli("http", f"http://127.0.0.1:{port}/", "--engine", engine, "-c", "1", "--duration", "0.5",
                    "--runs", "3", "--warmup-time", "0", "--export-json", str(out))
        assert r.returncode == 0, r.stderr
        doc = json.loads(out.read_text())
        assert {s["block"] for s in doc["samples"] if s["metric"] == "req_per_s"} == {0}
        # Rounds 1 and 2 failed (one warning when their errors match, else one each).
        text = " ".join(r.stderr.split())
        assert ("round 1–2:" in text or ("round 1:" in text and "round 2:" in text)), r.stderr
        assert "this round is left out" in text and "Complete requests" in r.stdout, r.stderr
    finally:
        _stop(proc)
