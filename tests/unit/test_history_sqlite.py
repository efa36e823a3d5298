"""SQLite history: location rules and the bad-database cases (locked, corrupt, foreign)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tests.unit.runs_by_hand import make_run

from pairbench.store.history import default_location, open_history, record_run, resolve_location
from pairbench.store.history_schema import HistoryError


def test_default_location_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PAIRBENCH_HISTORY", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_location() == str(tmp_path / "pairbench" / "history.sqlite")
    assert resolve_location() == default_location()
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_location() == str(tmp_path / ".local" / "share" / "pairbench" / "history.sqlite")


def test_flag_beats_env_and_off_disables(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PAIRBENCH_HISTORY", str(tmp_path / "env.sqlite"))
    assert resolve_location() == str(tmp_path / "env.sqlite")
    assert resolve_location("flag.sqlite") == "flag.sqlite"
    monkeypatch.setenv("PAIRBENCH_HISTORY", "off")
    assert resolve_location() is None
    run = make_run()
    assert record_run(run) is None and not any(n.kind == "history" for n in run.notices)


def test_locked_database_is_a_clear_error_and_a_notice(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    with open_history(str(path)) as h:
        h.record(make_run(seed=1))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    try:
        with open_history(str(path), busy_timeout=0.05) as h:
            with pytest.raises(HistoryError, match="is locked by another process"):
                h.record(make_run(seed=2))
        run = make_run(seed=3)
        notice = record_run(run, str(path), busy_timeout=0.05)
        assert notice is not None and "locked" in notice.message and notice in run.notices
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with open_history(str(path)) as h:
        assert len(h.runs()) == 1  # the failed writes left nothing half-done


def test_corrupt_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    path.write_bytes(b"\x00garbage" * 500)
    with pytest.raises(HistoryError, match="corrupt or not an SQLite file .* left untouched"):
        open_history(str(path))
    assert path.read_bytes() == b"\x00garbage" * 500
    assert not (tmp_path / "h.sqlite-wal").exists()


def test_damaged_database_pages_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    with open_history(str(path)) as h:
        for seed in range(4):
            h.record(make_run(seed=seed))
    data = bytearray(path.read_bytes())
    data[4096 * 2:4096 * 6] = b"\xff" * (4096 * 4)  # scribble over pages after the header
    path.write_bytes(bytes(data))
    with pytest.raises(HistoryError, match="corrupt"):
        with open_history(str(path)) as h:
            h.runs()
            h.series("startup", "time")


def test_someone_elses_sqlite_database_is_not_touched(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users (name TEXT)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(HistoryError, match="not a pairbench history"):
        open_history(str(path))
    assert path.read_bytes() == before


def test_missing_database_for_reading_is_not_created(tmp_path: Path) -> None:
    with pytest.raises(HistoryError, match="no history database at"):
        open_history(str(tmp_path / "none.sqlite"), create=False)
    assert not (tmp_path / "none.sqlite").exists()
