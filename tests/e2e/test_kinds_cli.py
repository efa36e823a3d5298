"""The CLI with the kinds table: option mistakes refused before anything runs."""

from __future__ import annotations

import textwrap
from pathlib import Path


def test_check_refuses_an_http_option_mistake_with_file_and_line(run_cli, tmp_path: Path) -> None:
    marker = tmp_path / "started"
    suite = tmp_path / "s.toml"
    suite.write_text(textwrap.dedent(f"""\
        [variants.a]
        command = "touch {marker} && python3 -m http.server {{port}}"
        [variants.b]
        command = "touch {marker} && python3 -m http.server {{port}}"

        [benchmarks.page]
        kind = "http"
        url = "/"
        duration = 1
        conections = 4
        """))
    for extra in (["--check"], ["--no-history", "--runs", "2"]):
        r = run_cli("run", str(suite), *extra)
        assert r.returncode == 1, r.stdout
        assert r.stderr.strip().splitlines() == [
            f"error: {suite}:10: benchmark 'page': unknown http option 'conections' (did you mean 'connections'?); "
            "valid: url, mix, method, headers, body, connections, requests, duration, rate, keepalive, timeout, "
            "warmup_time, warmup_requests, server, port, ready_path, ready_timeout, grace, engine, "
            "error_rate_warning, log_dir"]
    assert not marker.exists()
