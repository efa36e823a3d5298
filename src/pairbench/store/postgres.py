"""The PostgreSQL history backend, for a history shared by a team or by several machines.

Same tables and SQL as SQLite (see history_schema.py); placeholders are translated. Concurrent
writers are safe through ordinary transactions; the migration takes a transaction-level advisory
lock so that two processes opening a fresh database create the tables once.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

from pairbench.store.history_schema import HistoryError

__all__ = ["PostgresBackend", "redact"]

# Arbitrary constant shared by every pairbench process: "pairbench" in ASCII, truncated to int64.
MIGRATION_LOCK = 0x7061697262656E63


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


class PostgresBackend:
    dialect = "postgres"

    def __init__(self, url: str, busy_timeout: float = 10.0, create: bool = True) -> None:
        self.location = redact(url)
        try:
            import psycopg
        except ImportError:
            raise HistoryError(
                f"history {self.location} is a PostgreSQL URL but psycopg is not installed; "
                "pip install 'pairbench[postgres]'"
            ) from None
        self._psycopg = psycopg
        try:
            self.conn = psycopg.connect(url, autocommit=True, connect_timeout=max(1, int(busy_timeout)))
        except psycopg.Error as exc:
            raise HistoryError(f"cannot connect to history database {self.location}: {_first_line(exc)}") from None
        self._in_tx = False
        with self._errors():
            self.conn.execute(f"SET lock_timeout = {int(busy_timeout * 1000)}")

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except self._psycopg.errors.LockNotAvailable:
            raise HistoryError(f"history database {self.location} is locked by another session; try again") from None
        except self._psycopg.Error as exc:
            raise HistoryError(f"history database {self.location}: {_first_line(exc)}") from None

    @staticmethod
    def _sql(sql: str) -> str:
        return sql.replace("?", "%s")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._errors():
            cur = self.conn.execute(self._sql(sql), tuple(params))
            return list(cur.fetchall()) if cur.description else []

    def executemany(self, sql: str, rows: list[Sequence[Any]]) -> None:
        with self._errors():
            with self.conn.cursor() as cur:
                cur.executemany(self._sql(sql), rows)

    def table_exists(self, name: str) -> bool:
        return bool(self.execute("SELECT 1 FROM information_schema.tables WHERE table_name = ? "
                                 "AND table_schema = current_schema()", (name,)))

    @contextmanager
    def write(self, lock: bool = False) -> Iterator[None]:
        """One transaction; with `lock`, also the advisory lock that serialises migrations."""
        with self._errors():
            with self.conn.transaction():
                if lock:
                    self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
                yield

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:
            pass


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
