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
            "error_rate_warning, log_dir, insecure, threads, http2, streams"]
    assert not marker.exists()


def test_debug_fake_runs_no_process_and_reaches_every_exit_path(run_cli, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    argv = ["cmd", f"touch {marker}", f"touch {marker}-b", "-r", "8", "-w", "0", "--no-history", "--no-progress",
            "--export-json", "r.json"]
    slower = run_cli(*argv, "--fail-on-regression", "--debug-fake=1,1.5")
    assert slower.returncode == 3, slower.stdout + slower.stderr
    assert "regression: a candidate is significantly slower" in slower.stderr
    same = run_cli(*argv, "--fail-on-regression", env={"PAIRBENCH_DEBUG_FAKE": "1,1"})
    assert same.returncode == 0, same.stdout + same.stderr
    assert not list(tmp_path.glob("ran*"))
    bad = run_cli(*argv, "--debug-fake=1,x")
    assert bad.returncode == 1 and bad.stderr.strip() == "error: --debug-fake '1,x': expected factors such as 1,1.2"


def test_measuring_commands_export_through_the_exporter_table(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "a", "b", "-r", "6", "-w", "0", "--no-history", "--no-progress", "--debug-fake=1,2",
                "--export-json", "r.json", "--export-markdown", "r.md", "--export-csv", "r.csv",
                "--export-html", "r.json")
    # notes and warnings go to stderr too; the error is the last line
    assert r.returncode == 1
    assert r.stderr.strip().splitlines()[-1] == "error: r.json is the input file; give another path for the report"
    r = run_cli("cmd", "a", "b", "-r", "6", "-w", "0", "--no-history", "--no-progress", "--debug-fake=1,2",
                "--export-json", "r.json", "--export-markdown", "r.md", "--export-samples-csv", "r.csv")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "r.md").read_text().startswith("| Command | Mean [")  # hyperfine's table
    rows = (tmp_path / "r.csv").read_text().splitlines()
    assert rows[0].startswith("benchmark,variant,metric,value") and len(rows) == 1 + 2 * 6
