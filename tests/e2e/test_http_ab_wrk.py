"""ab's and wrk's command lines against real nginx on 127.0.0.1: the flags reach the load."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.e2e._http_servers import Nginx

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx")]


def _values(path: Path) -> dict[str, list[float]]:
    values: dict[str, list[float]] = {}
    for s in json.loads(path.read_text())["samples"]:
        values.setdefault(s["metric"], []).append(s["value"])
    return values


def test_ab_time_limit_line_runs_for_its_seconds(run_cli, tmp_path: Path) -> None:
    # `ab -k -c 4 -t 1 URL`: one second per round (ab's -t), keep-alive; 50,000 requests would
    # take nginx longer than that on this machine only if it is very fast, and then the round ends there.
    nginx = Nginx(tmp_path)
    try:
        out = tmp_path / "run.json"
        r = run_cli("http", "-k", "-c", "4", "-t", "1", nginx.url, "--runs", "2", "--export-json", str(out))
        assert r.returncode == 0, r.stderr
        values = _values(out)
        assert values["failed"] == [0.0, 0.0] and min(values["requests"]) > 100
        assert all(0.8 < e < 1.3 or n == 50_000 for e, n in zip(values["elapsed"], values["requests"]))
    finally:
        nginx.stop()


@pytest.mark.skipif(shutil.which("wrk") is None, reason="needs wrk")
def test_wrk_readme_line_runs_with_its_threads(run_cli, tmp_path: Path) -> None:
    # wrk's README line, scaled down: `wrk -t2 -c4 -d1s URL`.
    nginx = Nginx(tmp_path)
    try:
        out = tmp_path / "run.json"
        r = run_cli("http", "--engine", "wrk", "-t2", "-c4", "-d1s", "--latency", nginx.url, "--runs", "1",
                    "--export-json", str(out))
        assert r.returncode == 0, r.stderr
        values = _values(out)
        assert values["failed"] == [0.0] and min(values["requests"]) > 100
        r = run_cli("http", "--engine", "wrk", "-t8", "-c4", "-d1s", nginx.url, "--runs", "1")
        assert r.returncode == 1 and r.stderr.startswith("error: ") and "connection per thread" in r.stderr
    finally:
        nginx.stop()
