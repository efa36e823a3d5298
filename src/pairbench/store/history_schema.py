"""The history store's tables, their version, and one forward migration per version.

History of the schema (the version is the single row of `pairbench_schema`):
    version 1 (pairbench 0.1): runs, variants, benchmarks, samples.
    version 2 (pairbench 0.1): comparisons (the verdicts as the run stated them); an index for
        trend queries (benchmark, metric, variant, run).
    version 3 (pairbench 0.1): calibrations (`pairbench calibrate`: the noise of a benchmark and
        metric on one machine, with the machine's fingerprint, for `--threshold auto`).

A database at an older version is migrated forward when it is opened for writing, inside one
transaction that holds the write lock, so two processes opening it at once migrate it once. A
database at a newer version than this pairbench knows is refused, never altered.
"""

from __future__ import annotations

from pairbench.errors import HistoryError

__all__ = ["HistoryError", "SCHEMA_VERSION", "MIGRATIONS", "migration_statements"]

SCHEMA_VERSION = 3


# Statements per target version. `{serial}` is the auto-increment primary key, `{real}` a double.
MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        "CREATE TABLE pairbench_schema (version INTEGER NOT NULL)",
        "INSERT INTO pairbench_schema (version) VALUES (0)",
        """CREATE TABLE runs (
            id {serial},
            uid TEXT NOT NULL UNIQUE,
            recorded_at {real} NOT NULL,
            started TEXT,
            status TEXT NOT NULL,
            hostname TEXT,
            git_commit TEXT,
            cwd TEXT,
            command_line TEXT,
            source TEXT NOT NULL,
            metadata TEXT NOT NULL
        )""",
        """CREATE TABLE variants (
            run_id BIGINT NOT NULL REFERENCES runs(id),
            name TEXT NOT NULL,
            baseline INTEGER NOT NULL,
            git_commit TEXT,
            params TEXT NOT NULL,
            meta TEXT NOT NULL,
            PRIMARY KEY (run_id, name)
        )""",
        """CREATE TABLE benchmarks (
            run_id BIGINT NOT NULL REFERENCES runs(id),
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            metrics TEXT NOT NULL,
            PRIMARY KEY (run_id, name)
        )""",
        """CREATE TABLE samples (
            run_id BIGINT NOT NULL REFERENCES runs(id),
            benchmark TEXT NOT NULL,
            variant TEXT NOT NULL,
            metric TEXT NOT NULL,
            value {real} NOT NULL,
            block INTEGER NOT NULL,
            replicate INTEGER NOT NULL,
            iteration INTEGER NOT NULL,
            warmup INTEGER NOT NULL,
            time {real} NOT NULL,
            machine TEXT NOT NULL
        )""",
    ),
    2: (
        """CREATE TABLE comparisons (
            run_id BIGINT NOT NULL REFERENCES runs(id),
            benchmark TEXT NOT NULL,
            metric TEXT NOT NULL,
            baseline TEXT NOT NULL,
            candidate TEXT NOT NULL,
            ratio {real},
            ci_low {real},
            ci_high {real},
            p_value {real},
            n INTEGER NOT NULL,
            verdict TEXT NOT NULL,
            paired INTEGER NOT NULL,
            sentence TEXT NOT NULL
        )""",
        "CREATE INDEX samples_series ON samples (benchmark, metric, variant, run_id)",
    ),
    3: (
        """CREATE TABLE calibrations (
            id {serial},
            recorded_at {real} NOT NULL,
            hostname TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            benchmark TEXT NOT NULL,
            metric TEXT NOT NULL,
            budget_s {real} NOT NULL,
            blocks INTEGER NOT NULL,
            block_s {real} NOT NULL,
            replicate_sd {real} NOT NULL,
            ratio_sd {real} NOT NULL,
            mde {real},
            band {real},
            delta {real},
            run_file TEXT NOT NULL,
            details TEXT NOT NULL
        )""",
        "CREATE INDEX calibrations_lookup ON calibrations (hostname, benchmark, metric, recorded_at)",
    ),
}

_DIALECTS = {
    "sqlite": {"serial": "INTEGER PRIMARY KEY AUTOINCREMENT", "real": "DOUBLE PRECISION"},
    "postgres": {"serial": "BIGSERIAL PRIMARY KEY", "real": "DOUBLE PRECISION"},
}


def migration_statements(version: int, dialect: str) -> list[str]:
    """The statements that take a database from `version - 1` to `version`, then record it."""
    subst = _DIALECTS[dialect]
    stmts = [s.format(**subst) for s in MIGRATIONS[version]]
    stmts.append(f"UPDATE pairbench_schema SET version = {version}")
    return stmts
