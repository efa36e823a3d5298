"""The history store, the same tests on SQLite and on a real PostgreSQL (started by pg_cluster.py)."""

from __future__ import annotations

import io
import itertools
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Iterator

import pytest


from tests.e2e import pg_cluster
from tests.unit.runs_by_hand import make_run

from pairbench.store.history import CSV_COLUMNS, HistoryError, open_history, record_run
from pairbench.store.history_schema import SCHEMA_VERSION, migration_statements

SRC = Path(__file__).resolve().parents[2] / "src"
ROOT = Path(__file__).resolve().parents[2]
_db_counter = itertools.count()


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[str]:
    reason = pg_cluster.unavailable()
    if reason:
        pytest.skip(reason)
    with pg_cluster.temporary_cluster() as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.slow)])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty history location of each backend."""
    if request.param == "sqlite":
        return str(tmp_path / "sub" / "history.sqlite")
    server = request.getfixturevalue("postgres_server")
    import psycopg

    name = f"hist{next(_db_counter)}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server.rsplit("/", 1)[0] + "/" + name


def test_record_list_and_dedupe(location: str) -> None:
    with open_history(location) as h:
        first = make_run(seed=1)
        assert h.record(first)[1] is True
        assert h.record(first)[1] is False  # the same run again adds nothing
        h.record(make_run(seed=2, bench_name="other"))
        runs = h.runs()
        assert len(runs) == 2
        assert runs[0].benchmarks == ("Object.new", "issues page", "other")  # newest first
        assert runs[1].variants == ("head", "patched")  # baseline first
        assert runs[1].git_commit == "c" * 40 and runs[1].hostname == "bench-1"
        assert runs[1].samples == len(first.samples)
        assert [r.id for r in h.runs(benchmark="startup")] == [runs[1].id]
        assert h.runs(benchmark="startup", metric="nope") == []
        assert h.version() == SCHEMA_VERSION


def test_series_keeps_all_samples_and_variant_commits(location: str) -> None:
    with open_history(location) as h:
        for seed in range(3):
            h.record(make_run(seed=seed))
        series = h.series("startup", "time")
        assert set(series) == {"head", "patched"}
        assert [len(p.values) for p in series["head"]] == [8, 8, 8]  # warm-up left out
        assert series["patched"][0].variant_commit == "b" * 40
        assert series["patched"][0].median < series["head"][0].median * 0.95
        assert set(h.series("startup", "time", variant="head")) == {"head"}


def test_csv_export_has_every_sample(location: str) -> None:
    with open_history(location) as h:
        run = make_run()
        h.record(run)
        out = io.StringIO()
        n = h.write_csv(out, benchmark="startup", metric="time")
        lines = out.getvalue().splitlines()
        assert lines[0] == ",".join(CSV_COLUMNS)
        assert n == len(lines) - 1 == sum(1 for s in run.samples if s.benchmark == "startup" and s.metric == "time")


def test_migrates_a_version_1_database_forward(location: str) -> None:
    from pairbench.store.history import History

    if location.startswith("postgresql://"):
        from pairbench.store.postgres import PostgresBackend as B
    else:
        from pairbench.store.sqlite import SqliteBackend as B  # type: ignore[assignment]
    raw = B(location)
    with raw.write():
        for stmt in migration_statements(1, raw.dialect):
            raw.execute(stmt)
        raw.execute("INSERT INTO runs (uid, recorded_at, status, source, metadata) VALUES ('old', 1.0, 'complete', 'pairbench', '{}')")
    assert not raw.table_exists("comparisons")
    raw.close()
    with open_history(location) as h:
        assert isinstance(h, History) and h.version() == SCHEMA_VERSION
        assert [r.uid for r in h.runs()] == ["old"]
        h.record(make_run())
        assert len(h.runs()) == 2


def test_newer_schema_is_refused_and_left_alone(location: str) -> None:
    with open_history(location) as h:
        h.record(make_run())
        h.backend.execute(f"UPDATE pairbench_schema SET version = {SCHEMA_VERSION + 1}")
    with pytest.raises(HistoryError, match=f"schema version {SCHEMA_VERSION + 1}, newer than this pairbench knows"):
        open_history(location)
    notice = record_run(make_run(seed=5), location)
    assert notice is not None and "newer" in notice.message


def test_two_processes_writing_at_once_lose_nothing(location: str) -> None:
    script = textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{str(SRC)!r}, {str(ROOT)!r}]
        from tests.unit.runs_by_hand import make_run
        from pairbench.store.history import record_run
        worker = int(sys.argv[1])
        for i in range(12):
            run = make_run(seed=1000 * worker + i, blocks=6)
            notice = record_run(run, {location!r}, busy_timeout=30)
            assert notice is None, notice
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(w)]) for w in (1, 2)]
    codes = [p.wait(timeout=240) for p in procs]
    assert codes == [0, 0]
    with open_history(location) as h:
        runs = h.runs()
        assert len(runs) == 24
        assert all(r.samples == len(make_run(blocks=6).samples) for r in runs)


def test_record_run_appends_a_notice_instead_of_failing(tmp_path: Path) -> None:
    bad = tmp_path / "history.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    run = make_run()
    notice = record_run(run, str(bad))
    assert notice is not None and run.notices[-1] is notice
    assert "corrupt or not an SQLite file" in notice.message
    assert bad.read_bytes() == b"this is not sqlite" * 100  # nothing overwritten


def test_unreachable_postgres_is_one_clear_error() -> None:
    pytest.importorskip("psycopg")
    with pytest.raises(HistoryError, match=r"cannot connect to history database postgresql://u:\*\*\*@127.0.0.1:1/x"):
        open_history("postgresql://u:secret@127.0.0.1:1/x", busy_timeout=1)


def test_cli_import_history_trend_and_csv(location: str, tmp_path: Path, run_cli) -> None:
    from pairbench.store.runfile import write_run

    for i in range(4):
        write_run(tmp_path / f"r{i}.json", make_run(seed=200 + i))
    proc = run_cli("import", *[f"r{i}.json" for i in range(4)], "--history", location)
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
    proc = run_cli("history", "--history", location, "--metric", "req_per_s")
    assert proc.returncode == 0, proc.stderr
    assert "4 runs from" in proc.stdout and "secret" not in proc.stdout
    proc = run_cli("history", "--history", location, "--benchmark", "issues page", "--metric", "req_per_s")
    assert proc.returncode == 0, proc.stderr
    assert "issues page · req_per_s · head  (4 runs)" in proc.stdout and "0 change points" in proc.stdout
    proc = run_cli("history", "--history", location, "--benchmark", "startup", "--metric", "time", "--csv", "-")
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 1 + 4 * (2 * 8 + 1)  # header, 4 runs × (16 samples + 1 warm-up)
