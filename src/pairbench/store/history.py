"""The history store: every run, with its metadata, git commits and all samples, across time.

A SQLite file by default (`$XDG_DATA_HOME/pairbench/history.sqlite`), or a PostgreSQL database
given by URL; chosen by `--history PATH_OR_URL`, else the PAIRBENCH_HISTORY environment variable
(`off` disables recording). The tables and their migrations are in history_schema.py.

`record_run` is what a finished run calls: cheap (one transaction) and it never fails the run;
a locked or corrupt database becomes a Notice on the run instead.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shlex
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol, Sequence

from pairbench.model import Metric, Notice, Run, Sample, SeriesPoint
from pairbench.store.history_schema import SCHEMA_VERSION, HistoryError, migration_statements

__all__ = [
    "History",
    "HistoryError",
    "RunOrigin",
    "RunSummary",
    "SeriesPoint",
    "default_location",
    "resolve_location",
    "open_history",
    "record_run",
    "git_commit",
    "run_uid",
    "CSV_COLUMNS",
]

ENV_VAR = "PAIRBENCH_HISTORY"
DISABLED = ("off", "none", "no", "0", "false")
CSV_COLUMNS = ("run_id", "recorded_at", "git_commit", "hostname", "benchmark", "variant", "metric", "value",
               "block", "replicate", "iteration", "warmup", "time", "machine")


class Backend(Protocol):
    dialect: str
    location: str

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...
    def executemany(self, sql: str, rows: list[Sequence[Any]]) -> None: ...
    def table_exists(self, name: str) -> bool: ...
    def write(self, lock: bool = False) -> Any: ...
    def close(self) -> None: ...


def default_location() -> str:
    """`$XDG_DATA_HOME/pairbench/history.sqlite`, with XDG's default of ~/.local/share."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "pairbench" / "history.sqlite")


def resolve_location(location: str | None = None) -> str | None:
    """The flag, else PAIRBENCH_HISTORY, else the default; None when recording is turned off."""
    value = location if location else os.environ.get(ENV_VAR)
    if value is None or value == "":
        return default_location()
    if value.strip().lower() in DISABLED:
        return None
    return value


def _is_url(location: str) -> bool:
    return location.startswith(("postgres://", "postgresql://"))


def open_history(location: str | None = None, *, busy_timeout: float = 10.0, create: bool = True) -> History:
    """Open (and migrate forward) the history at `location`, a path or a postgresql:// URL."""
    loc = resolve_location(location)
    if loc is None:
        raise HistoryError(f"history is turned off ({ENV_VAR}={os.environ.get(ENV_VAR)}); pass --history PATH_OR_URL")
    backend: Backend
    if _is_url(loc):
        from pairbench.store.postgres import PostgresBackend

        backend = PostgresBackend(loc, busy_timeout=busy_timeout, create=create)
    else:
        from pairbench.store.sqlite import SqliteBackend

        backend = SqliteBackend(loc, busy_timeout=busy_timeout, create=create)
    try:
        return History(backend)
    except BaseException:
        backend.close()
        raise


@dataclass(frozen=True, slots=True)
class RunSummary:
    """One recorded run, as `history` lists it."""

    id: int
    uid: str
    recorded_at: float
    started: str
    status: str
    hostname: str
    git_commit: str
    source: str
    command_line: str
    benchmarks: tuple[str, ...]
    variants: tuple[str, ...]
    samples: int


@dataclass(frozen=True, slots=True)
class RunOrigin:
    """Where a recorded run was measured, and the run file it was saved to (as recorded: it may be gone)."""

    run_id: int
    hostname: str
    """"" when the run did not record its machine."""
    run_file: str
    """"" when the run recorded none."""


def git_commit(cwd: str | None = None) -> str:
    """HEAD of the git checkout holding `cwd`, or "" (not a checkout, no git, or git too slow)."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd or None, capture_output=True, text=True, timeout=2)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def run_uid(run: Run) -> str:
    """A stable identity, so that recording the same run twice (or importing it again) adds nothing."""
    given = run.metadata.get("run_id") or run.metadata.get("uid")
    if given:
        return str(given)
    h = hashlib.sha256()
    h.update(json.dumps(run.metadata, sort_keys=True, default=str).encode())
    for s in run.samples:
        h.update(f"{s.benchmark}\0{s.variant}\0{s.metric}\0{s.value!r}\0{s.block}\0{s.replicate}\0{s.iteration}\0{s.time!r}\n".encode())
    return h.hexdigest()[:32]


def _variant_commit(meta: Any) -> str:
    for key in ("git_commit", "commit", "git_sha"):
        if isinstance(meta, dict) and meta.get(key):
            return str(meta[key])
    return ""


def _command_line(run: Run) -> str:
    value = run.metadata.get("command_line") or run.metadata.get("argv") or ""
    return shlex.join(str(v) for v in value) if isinstance(value, list) else str(value)


class History:
    """An open history store. Use as a context manager, or call close()."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.location = backend.location
        self._migrate()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.backend.close()

    def version(self) -> int:
        if not self.backend.table_exists("pairbench_schema"):
            return 0
        rows = self.backend.execute("SELECT version FROM pairbench_schema")
        if len(rows) != 1:
            raise HistoryError(f"history database {self.location} is damaged: pairbench_schema has {len(rows)} rows")
        return int(rows[0][0])

    def _migrate(self) -> None:
        version = self.version()
        if version > SCHEMA_VERSION:
            raise HistoryError(
                f"history database {self.location} has schema version {version}, newer than this pairbench knows "
                f"({SCHEMA_VERSION}); upgrade pairbench (the database was left untouched)"
            )
        if version == SCHEMA_VERSION:
            return
        with self.backend.write(lock=True):
            version = self.version()  # another process may have migrated while we waited for the lock
            while version < SCHEMA_VERSION:
                version += 1
                for stmt in migration_statements(version, self.backend.dialect):
                    self.backend.execute(stmt)

    # -- writing -------------------------------------------------------------------------------

    def record(self, run: Run, source: str = "pairbench", cwd: str | None = None) -> tuple[int, bool]:
        """Store the run with all its samples in one transaction.

        Returns:
            (run id, True) when added, (id of the earlier copy, False) when it was already recorded.
        """
        uid = run_uid(run)
        cwd = cwd or (str(run.metadata["cwd"]) if run.metadata.get("cwd") else None)
        if cwd and not os.path.isdir(cwd):
            cwd = None  # recorded on another machine, or the directory is gone
        commit = str(run.metadata.get("git_commit") or "") or (git_commit(cwd) if cwd else "")
        row = (
            uid, time.time(), str(run.metadata.get("started") or run.metadata.get("start_time") or ""), run.status,
            str(run.metadata.get("hostname") or run.metadata.get("host") or ""), commit,
            str(run.metadata.get("cwd") or cwd or os.getcwd()), _command_line(run), source,
            json.dumps(run.metadata, sort_keys=True, default=str),
        )
        with self.backend.write():
            inserted = self.backend.execute(
                "INSERT INTO runs (uid, recorded_at, started, status, hostname, git_commit, cwd, command_line, "
                "source, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (uid) DO NOTHING RETURNING id",
                row,
            )
            if not inserted:
                existing = self.backend.execute("SELECT id FROM runs WHERE uid = ?", (uid,))
                return int(existing[0][0]), False
            run_id = int(inserted[0][0])
            self.backend.executemany(
                "INSERT INTO variants (run_id, name, baseline, git_commit, params, meta) VALUES (?, ?, ?, ?, ?, ?)",
                [(run_id, v.name, int(v.name == run.baseline.name), _variant_commit(v.meta),
                  json.dumps(dict(v.params), default=str), json.dumps(dict(v.meta), default=str)) for v in run.variants],
            )
            self.backend.executemany(
                "INSERT INTO benchmarks (run_id, name, kind, metrics) VALUES (?, ?, ?, ?)",
                [(run_id, b.name, b.kind, json.dumps([[m.name, m.unit, m.direction, m.exact] for m in b.metrics]))
                 for b in run.benchmarks],
            )
            if run.samples:
                self.backend.executemany(
                    "INSERT INTO samples (run_id, benchmark, variant, metric, value, block, replicate, iteration, "
                    "warmup, time, machine) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(run_id, s.benchmark, s.variant, s.metric, float(s.value), s.block, s.replicate, s.iteration,
                      int(s.warmup), float(s.time), s.machine) for s in run.samples],
                )
            if run.comparisons:
                self.backend.executemany(
                    "INSERT INTO comparisons (run_id, benchmark, metric, baseline, candidate, ratio, ci_low, ci_high, "
                    "p_value, n, verdict, paired, sentence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(run_id, c.benchmark, c.metric, c.baseline, c.candidate, c.ratio,
                      c.ci[0] if c.ci else None, c.ci[1] if c.ci else None, c.p_value, c.n, c.verdict,
                      int(c.paired), c.sentence) for c in run.comparisons],
                )
        return run_id, True

    # -- reading -------------------------------------------------------------------------------

    def runs(self, benchmark: str | None = None, metric: str | None = None, variant: str | None = None,
             limit: int | None = None) -> list[RunSummary]:
        """Recorded runs, newest first, optionally only those with samples of a benchmark/metric/variant."""
        where, params = self._filters(benchmark, metric, variant)
        sql = ("SELECT id, uid, recorded_at, started, status, hostname, git_commit, source, command_line FROM runs")
        if where:
            sql += f" WHERE id IN (SELECT run_id FROM samples WHERE {where})"
        sql += " ORDER BY recorded_at DESC, id DESC"
        if limit:
            sql += f" LIMIT {int(limit)}"
        rows = self.backend.execute(sql, params)
        out = []
        for r in rows:
            run_id = int(r[0])
            benches = tuple(x[0] for x in self.backend.execute(
                "SELECT name FROM benchmarks WHERE run_id = ? ORDER BY name", (run_id,)))
            variants = tuple(x[0] for x in self.backend.execute(
                "SELECT name FROM variants WHERE run_id = ? ORDER BY baseline DESC, name", (run_id,)))
            n = int(self.backend.execute("SELECT COUNT(*) FROM samples WHERE run_id = ?", (run_id,))[0][0])
            out.append(RunSummary(run_id, r[1], float(r[2]), r[3] or "", r[4], r[5] or "", r[6] or "", r[7],
                                  r[8] or "", benches, variants, n))
        return out

    @staticmethod
    def _filters(benchmark: str | None, metric: str | None, variant: str | None) -> tuple[str, list[Any]]:
        clauses, params = [], []
        for column, value in (("benchmark", benchmark), ("metric", metric), ("variant", variant)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        return " AND ".join(clauses), params

    def metrics(self, benchmark: str) -> list[str]:
        """Metrics recorded for a benchmark, in name order."""
        return [r[0] for r in self.backend.execute(
            "SELECT DISTINCT metric FROM samples WHERE benchmark = ? ORDER BY metric", (benchmark,))]

    def benchmarks(self) -> list[str]:
        return [r[0] for r in self.backend.execute("SELECT DISTINCT benchmark FROM samples ORDER BY benchmark")]

    def series(self, benchmark: str, metric: str, variant: str | None = None) -> dict[str, list[SeriesPoint]]:
        """Variant -> its measured (non-warm-up) values per run, oldest run first."""
        sql = ("SELECT s.run_id, r.recorded_at, r.git_commit, v.git_commit, s.variant, s.value FROM samples s "
               "JOIN runs r ON r.id = s.run_id "
               "LEFT JOIN variants v ON v.run_id = s.run_id AND v.name = s.variant "
               "WHERE s.benchmark = ? AND s.metric = ? AND s.warmup = 0")
        params: list[Any] = [benchmark, metric]
        if variant is not None:
            sql += " AND s.variant = ?"
            params.append(variant)
        sql += " ORDER BY r.recorded_at, s.run_id, s.block, s.replicate, s.iteration"
        grouped: dict[tuple[str, int], list[Any]] = {}
        for run_id, recorded, commit, vcommit, name, value in self.backend.execute(sql, params):
            entry = grouped.setdefault((name, int(run_id)), [float(recorded), commit or "", vcommit or "", []])
            entry[3].append(float(value))
        out: dict[str, list[SeriesPoint]] = {}
        for (name, run_id), (recorded, commit, vcommit, values) in grouped.items():
            out.setdefault(name, []).append(SeriesPoint(run_id, recorded, commit, vcommit, name, tuple(values)))
        for points in out.values():
            points.sort(key=lambda p: (p.recorded_at, p.run_id))
        return out

    def recorded_metrics(self, benchmark: str) -> dict[str, Metric]:
        """The benchmark's metrics (unit, direction) as its newest recorded run declared them; {} when unreadable."""
        rows = self.backend.execute("SELECT metrics FROM benchmarks WHERE name = ? ORDER BY run_id DESC LIMIT 1",
                                    (benchmark,))
        try:
            return {str(m[0]): Metric(str(m[0]), str(m[1]), m[2], bool(m[3])) for m in json.loads(rows[0][0])} \
                if rows else {}
        except (ValueError, TypeError, IndexError):
            return {}

    def run_origins(self) -> list[RunOrigin]:
        """Every recorded run's machine and run file, in id order."""
        out = []
        for run_id, host, meta in self.backend.execute("SELECT id, hostname, metadata FROM runs ORDER BY id"):
            try:
                path = json.loads(meta).get("run_file")
            except (ValueError, AttributeError):
                path = None
            out.append(RunOrigin(int(run_id), str(host or ""), path if isinstance(path, str) else ""))
        return out

    def find_run(self, key: str, value: str) -> tuple[int, dict[str, Any]] | None:
        """The newest complete run whose metadata holds `key: value`, with that metadata.

        How a measurement tagged with what it measured (a bisect step's commits and command) is
        found again instead of being measured twice.
        """
        pattern = "%" + json.dumps({key: value})[1:-1] + "%"
        rows = self.backend.execute(
            "SELECT id, metadata FROM runs WHERE status = 'complete' AND metadata LIKE ? ORDER BY id DESC", (pattern,))
        for run_id, text in rows:
            try:
                meta = json.loads(text)
            except ValueError:
                continue
            if isinstance(meta, dict) and meta.get(key) == value:
                return int(run_id), meta
        return None

    def samples(self, run_id: int) -> list[Sample]:
        """Every sample of one recorded run, warm-ups included, in measuring order."""
        rows = self.backend.execute(
            "SELECT benchmark, variant, metric, value, block, replicate, iteration, warmup, time, machine "
            "FROM samples WHERE run_id = ? ORDER BY block, replicate, iteration, time", (run_id,))
        return [Sample(str(b), str(v), str(m), float(x), int(blk), int(rep), int(it), bool(w), float(t), str(mc or ""))
                for b, v, m, x, blk, rep, it, w, t, mc in rows]

    def write_csv(self, fh: IO[str], benchmark: str | None = None, metric: str | None = None,
                  variant: str | None = None) -> int:
        """Every matching sample as one CSV row (header: CSV_COLUMNS); returns the number of rows."""
        where, params = self._filters(benchmark, metric, variant)
        sql = ("SELECT s.run_id, r.recorded_at, r.git_commit, r.hostname, s.benchmark, s.variant, s.metric, s.value, "
               "s.block, s.replicate, s.iteration, s.warmup, s.time, s.machine FROM samples s "
               "JOIN runs r ON r.id = s.run_id")
        if where:
            sql += " WHERE " + " AND ".join(f"s.{c}" for c in where.split(" AND "))
        sql += " ORDER BY r.recorded_at, s.run_id, s.benchmark, s.variant, s.metric, s.block, s.replicate, s.iteration"
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        rows = self.backend.execute(sql, params)
        for row in rows:
            cells = list(row)
            cells[1] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(cells[1])))
            cells[11] = bool(cells[11])
            writer.writerow(cells)
        return len(rows)


def record_run(run: Run, location: str | None = None, *, source: str = "pairbench",
               busy_timeout: float = 10.0) -> Notice | None:
    """Record a finished run in the history; a store that cannot be used never fails the run.

    Called once at the end of every run. When the store cannot be used (locked, corrupt, newer
    schema, unreachable server: a HistoryError, or an OSError of the disk) the run goes on: the problem is appended to `run.notices` and
    returned, so the reports show it.

    Returns:
        None when recorded (or when history is turned off), else the Notice that was added.

    Raises:
        Any other exception: a bug in pairbench, which must not hide as a warning line.
    """
    loc = resolve_location(location)
    if loc is None:
        return None
    try:
        with open_history(loc, busy_timeout=busy_timeout) as history:
            history.record(run, source=source)
        return None
    except (HistoryError, OSError) as exc:  # the store's own errors never fail a run; a bug still does
        reason = str(exc) if isinstance(exc, HistoryError) else f"{exc.strerror or exc}"
        notice = Notice("history", f"run not recorded in the history: {reason}",
                        f"the run file is complete; record it later with `pairbench import RUN_FILE`, "
                        f"or set {ENV_VAR}=off")
        run.notices.append(notice)
        return notice
