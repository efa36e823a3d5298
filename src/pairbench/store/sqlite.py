"""The SQLite history backend: one file, WAL journal and a busy timeout so concurrent writers queue.

Each write is one `BEGIN IMMEDIATE` transaction, which takes the write lock up front: a second
pairbench process waits (up to the busy timeout) instead of failing half-way or losing its rows.
Driver errors become one HistoryError naming the file; a file that is not a pairbench history is
never written to.
"""

from __future__ import annotations

import random
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from pairbench.store.history_schema import HistoryError

__all__ = ["SqliteBackend"]


class SqliteBackend:
    dialect = "sqlite"

    def __init__(self, path: str | Path, busy_timeout: float = 10.0, create: bool = True) -> None:
        self.path = Path(path).expanduser()
        self.location = str(self.path)
        self.busy_timeout = busy_timeout
        if not self.path.exists():
            if not create:
                raise HistoryError(f"no history database at {self.location} (nothing has been recorded there yet)")
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise HistoryError(f"cannot create the directory of history database {self.location}: {exc.strerror}") from None
        elif self.path.is_dir():
            raise HistoryError(f"history location {self.location} is a directory; give a file path")
        try:
            self.conn = sqlite3.connect(str(self.path), timeout=busy_timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise self._translate(exc) from None
        with self._errors():
            self.conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            tables = {r[0] for r in self._retrying("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables and "pairbench_schema" not in tables:
                raise HistoryError(
                    f"{self.location} is an SQLite database but not a pairbench history (it has tables "
                    f"{', '.join(sorted(tables)[:5])}); it was left untouched: pass --history with another path"
                )
            # WAL lets readers go on while one process writes; set once, it stays with the file.
            if str(self._retrying("PRAGMA journal_mode")[0][0]).lower() != "wal":
                self._retrying("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute("PRAGMA foreign_keys = ON")

    def _retrying(self, sql: str) -> list[tuple[Any, ...]]:
        """Run `sql`, retrying while the file is busy, up to the busy timeout.

        Switching a new file to WAL needs an exclusive lock, and SQLite answers SQLITE_BUSY at once
        (without its busy handler) when another process is opening the same new file: two pairbench
        runs recording their first run at the same moment met this.
        """
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                return list(self.conn.execute(sql).fetchall())
            except sqlite3.OperationalError as exc:
                if not ("locked" in str(exc) or "busy" in str(exc)) or time.monotonic() >= deadline:
                    raise
            time.sleep(random.uniform(0.005, 0.05))

    def _translate(self, exc: sqlite3.Error) -> HistoryError:
        text = str(exc)
        if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
            return HistoryError(
                f"history database {self.location} is locked by another process (waited {self.busy_timeout:g} s); "
                "try again when it finishes, or pass --history to use another file"
            )
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError) or \
                "not a database" in text or "malformed" in text:
            return HistoryError(
                f"history database {self.location} is corrupt or not an SQLite file ({text}); it was left "
                "untouched: move it away or pass --history PATH"
            )
        return HistoryError(f"history database {self.location}: {text}")

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise self._translate(exc) from None

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._errors():
            return list(self.conn.execute(sql, tuple(params)).fetchall())

    def executemany(self, sql: str, rows: list[Sequence[Any]]) -> None:
        with self._errors():
            self.conn.executemany(sql, rows)

    def table_exists(self, name: str) -> bool:
        return bool(self.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)))

    @contextmanager
    def write(self, lock: bool = False) -> Iterator[None]:
        """One transaction holding the write lock from its start; rolled back on any error.

        `lock` is accepted for symmetry with PostgreSQL: BEGIN IMMEDIATE always locks.
        """
        with self._errors():
            self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            raise
        with self._errors():
            self.conn.execute("COMMIT")

    def close(self) -> None:
        try:
            self.conn.close()
        except sqlite3.Error:
            pass
