"""The suite keeps its run files out of the user's own data directory."""

from __future__ import annotations

import os
import sys
import tempfile
import uuid
from pathlib import Path

from tests.conftest import USER_DATA_HOME


def _runs(base: Path) -> set[Path]:
    d = base / "pairbench" / "runs"
    return set(d.glob("*.json")) if d.is_dir() else set()


def test_a_run_without_export_json_lands_in_the_suites_data_home_not_the_users(run_cli) -> None:
    marker = f"isolation-{uuid.uuid4().hex}"  # other processes may write run files meanwhile
    before_user = _runs(USER_DATA_HOME)
    suite_home = Path(os.environ.get("XDG_DATA_HOME", "/nonexistent"))
    proc = run_cli("cmd", "-r", "2", "--warmup", "0", f"true {marker}", f"true {marker} b")
    assert proc.returncode == 0, proc.stderr
    assert not [p for p in _runs(USER_DATA_HOME) - before_user if marker in p.read_text()]
    assert suite_home != USER_DATA_HOME
    assert [p for p in _runs(suite_home) if marker in p.read_text()]


def test_temporary_files_of_the_suites_runs_land_in_the_suites_own_temp_dir(run_cli) -> None:
    """A run that keeps its temporary files (a failed server's log) keeps them where pytest
    clears them, not in the machine's /tmp, where 1,300 such directories had piled up."""
    suite_tmp = Path(os.environ.get("TMPDIR", "/nonexistent"))
    r = run_cli("http", "--server", f"{sys.executable} -c \"print('boom'); raise SystemExit(4)\" {{port}}",
                "--url", "/", "-n", "5", "--runs", "2")
    assert r.returncode == 1 and "(log: " in r.stderr
    log = Path(r.stderr.split("(log: ", 1)[1].split(")", 1)[0])
    assert log.is_file() and suite_tmp in log.parents
    assert Path(tempfile.gettempdir()) == suite_tmp
