"""report, compare, history and import through the CLI, on run files built by hand."""

from __future__ import annotations

import csv
import json
import sqlite3
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tests.unit.runs_by_hand import make_run

from pairbench.model import Run
from pairbench.store.runfile import dumps_run, write_run

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "report_golden.md"


def _scaled(run: Run, benchmark: str, variant: str, factor: float) -> Run:
    run.samples = [replace(s, value=s.value * factor) if s.benchmark == benchmark and s.variant == variant else s
                   for s in run.samples]
    return run


def test_report_markdown_to_stdout_matches_golden(tmp_path: Path, run_cli) -> None:
    write_run(tmp_path / "run.json", make_run())
    proc = run_cli("report", "run.json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == GOLDEN.read_text(encoding="utf-8")


def test_report_writes_both_files_and_never_over_the_input(tmp_path: Path, run_cli) -> None:
    write_run(tmp_path / "run.json", make_run())
    before = (tmp_path / "run.json").read_text()
    proc = run_cli("report", "run.json", "--markdown", "r.md", "--html", "r.html")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "r.md").read_text().startswith("# pairbench report")
    assert "<svg class=\"plot" in (tmp_path / "r.html").read_text()
    proc = run_cli("report", "run.json", "--html", "run.json")
    assert proc.returncode == 1 and "is the input file" in proc.stderr
    assert (tmp_path / "run.json").read_text() == before


def test_report_renders_every_format_of_the_measuring_commands(tmp_path: Path, run_cli) -> None:
    # what `cmd --export-csv` writes must be reachable from a saved run, hyperfine's spellings included
    write_run(tmp_path / "run.json", make_run())
    proc = run_cli("report", "run.json", "--export-csv", "s.csv", "--export-asciidoc", "r.adoc",
                   "--export-orgmode", "r.org", "--export-samples-csv", "all.csv", "--export-markdown", "r.md")
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader((tmp_path / "s.csv").read_text().splitlines()))
    assert {r["command"].rsplit(" ", 1)[-1] for r in rows} >= {"head", "patched"} and "mean" in rows[0]
    assert (tmp_path / "r.adoc").read_text().startswith("= pairbench report")
    assert "|" in (tmp_path / "r.org").read_text()
    assert len((tmp_path / "all.csv").read_text().splitlines()) == len(make_run().samples) + 1
    assert "| Command | Mean [" in (tmp_path / "r.md").read_text()  # hyperfine's table, as `cmd --export-markdown`
    shown = run_cli("report", "run.json", "--format", "csv")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == (tmp_path / "s.csv").read_text()
    wrong = run_cli("report", "run.json", "--format", "xls")
    assert wrong.returncode == 2 and "invalid choice: 'xls'" in wrong.stderr


def test_a_run_that_never_finished_is_analysed_from_its_kept_samples(tmp_path: Path, run_cli) -> None:
    # a run killed with SIGKILL holds samples but no comparisons: the report still answers, and
    # says it answers from what was kept, at the looks the run had planned
    run = make_run(status="running", blocks=12, speedup=0.80)
    run.comparisons, run.sweeps, run.summaries = [], [], []
    run.metadata["options"] = {"threshold": 1.0, "confidence": 0.95, "correction": "holm"}
    run.metadata["adaptive"] = {"looks": [10, 20, 40]}
    write_run(tmp_path / "run.json", run)
    proc = run_cli("report", "run.json", "--markdown", "--export-json", "again.json")
    assert proc.returncode == 0, proc.stderr
    assert "analysed here from the 12 blocks it kept" in proc.stderr
    row = next(line for line in proc.stdout.splitlines() if line.startswith("| startup | time | patched"))
    assert "faster" in row
    from pairbench.store.runfile import load_run

    again = load_run(tmp_path / "again.json")
    [comp] = [c for c in again.comparisons if c.benchmark == "startup" and c.metric == "time"]
    assert 0.75 < comp.ratio < 0.85
    assert comp.confidence == pytest.approx(1 - 0.05 / 3)  # widened for the three looks planned, as the run would have


def test_report_of_a_cut_file_says_what_is_missing(tmp_path: Path, run_cli) -> None:
    text = dumps_run(make_run())
    (tmp_path / "cut.json").write_text(text[: len(text) // 2])
    proc = run_cli("report", "cut.json")
    assert proc.returncode == 0, proc.stderr
    assert "warning: cut.json: the file is cut short;" in proc.stderr
    assert "warning: cut.json: missing: comparisons, notices" in proc.stderr
    assert "this run is interrupted" in proc.stdout


def test_bad_run_files_are_one_line_each(tmp_path: Path, run_cli) -> None:
    (tmp_path / "other.json").write_text(json.dumps({"hello": "world"}))
    doc = json.loads(dumps_run(make_run()))
    doc["version"] = 7
    (tmp_path / "newer.json").write_text(json.dumps(doc))
    for name, message in (("other.json", "other.json is not a pairbench run file"),
                          ("newer.json", "newer.json has run file version 7, newer than this pairbench knows (4); upgrade"),
                          ("missing.json", "cannot read run file missing.json")):
        proc = run_cli("report", name)
        assert proc.returncode == 1
        assert proc.stderr.strip().splitlines() == [f"error: {proc.stderr.strip()[7:]}"]
        assert message in proc.stderr, proc.stderr


def test_compare_is_labelled_matches_by_name_and_warns_on_machines(tmp_path: Path, run_cli) -> None:
    base = make_run(seed=1, blocks=10)
    cand = _scaled(make_run(seed=2, blocks=10, bench_name="startup"), "startup", "head", 1.10)
    cand.benchmarks = [b for b in cand.benchmarks if b.name != "Object.new"]
    cand.samples = [s for s in cand.samples if s.benchmark != "Object.new"]
    extra = make_run(seed=3, bench_name="only-here")
    cand.benchmarks.append(extra.benchmarks[0])
    cand.samples += [s for s in extra.samples if s.benchmark == "only-here"]
    cand.metadata["hostname"] = "other-box"
    write_run(tmp_path / "base.json", base)
    write_run(tmp_path / "cand.json", cand)
    proc = run_cli("compare", "base.json", "cand.json", "--markdown", "c.md")
    assert proc.returncode == 0, proc.stderr
    assert "not interleaved: drift between the runs is not controlled" in proc.stdout
    line = next(x for x in proc.stdout.splitlines() if x.startswith("startup") and " time " in x)
    import re

    change = float(re.search(r"  ([+−-]\d+\.\d)%  ", line).group(1).replace("−", "-"))
    assert line.split()[-1] == "slower" and 8 < change < 12
    assert "only in base.json: Object.new" in proc.stdout
    assert "only in cand.json: only-here" in proc.stdout
    assert "machine metadata differ: hostname: 'bench-1' in base.json, 'other-box' in cand.json" in proc.stderr
    md = (tmp_path / "c.md").read_text()
    assert "not interleaved: drift between the runs is not controlled" in md and "other-box" in md


def test_history_lists_trends_and_exports(tmp_path: Path, run_cli) -> None:
    env = {"PAIRBENCH_HISTORY": str(tmp_path / "h.sqlite")}
    files = []
    for i in range(10):
        run = _scaled(make_run(seed=100 + i), "startup", "head", 1.08 if i >= 6 else 1.0)
        run.metadata["git_commit"] = f"{i:040d}"
        write_run(tmp_path / f"r{i}.json", run)
        files.append(f"r{i}.json")
    proc = run_cli("import", *files, env=env)
    assert proc.returncode == 0, proc.stderr
    proc = run_cli("history", env=env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:3] == ["id", "recorded", "commit"]
    assert lines[1].split()[0] == "10" and "10 runs from" in proc.stdout  # newest first
    proc = run_cli("history", "--benchmark", "startup", "--metric", "time", env=env)
    assert proc.returncode == 0, proc.stderr
    head = proc.stdout.split("startup · time · patched")[0]
    marked = [x for x in head.splitlines() if "change point" in x]
    assert len(marked) == 1 and marked[0].split()[0] == "7" and "+8." in marked[0]
    proc = run_cli("history", "--benchmark", "startup", "--metric", "time", "--variant", "head", "--csv", "out.csv", env=env)
    assert proc.returncode == 0, proc.stderr
    with (tmp_path / "out.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 10 * 9 and {r["variant"] for r in rows} == {"head"}
    proc = run_cli("history", "--benchmark", "nope", env=env)
    assert proc.returncode == 1 and "no benchmark 'nope'" in proc.stderr and "startup" in proc.stderr


def test_history_publish_keeps_a_folder_of_the_users_own_unless_forced(tmp_path: Path, run_cli) -> None:
    write_run(tmp_path / "run.json", make_run())
    assert run_cli("import", "run.json").returncode == 0
    own = tmp_path / "mysite" / "index.html"
    own.parent.mkdir()
    own.write_text("<h1>my own page</h1>\n")
    proc = run_cli("history", "publish", "mysite")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "mysite" in lines[0] and "--force" in lines[0], proc.stderr
    assert own.read_text() == "<h1>my own page</h1>\n" and sorted(p.name for p in own.parent.iterdir()) == ["index.html"]
    # a new folder, an empty one and an earlier site are written without asking
    (tmp_path / "empty").mkdir()
    for folder in ("site", "empty", "site"):
        proc = run_cli("history", "publish", folder)
        assert proc.returncode == 0, proc.stderr
        assert "pairbench history" in (tmp_path / folder / "index.html").read_text()
    proc = run_cli("history", "publish", "mysite", "--force")
    assert proc.returncode == 0, proc.stderr
    assert "pairbench history" in own.read_text()


def test_history_bad_databases(tmp_path: Path, run_cli) -> None:
    proc = run_cli("history", "--history", "none.sqlite")
    assert proc.returncode == 1 and "no history database at none.sqlite" in proc.stderr
    assert not (tmp_path / "none.sqlite").exists()
    (tmp_path / "bad.sqlite").write_bytes(b"not a database at all" * 50)
    proc = run_cli("history", "--history", "bad.sqlite")
    assert proc.returncode == 1 and "corrupt or not an SQLite file" in proc.stderr
    write_run(tmp_path / "run.json", make_run())
    proc = run_cli("import", "run.json", "--history", "bad.sqlite")
    assert proc.returncode == 0  # recording never fails the command; it warns
    assert "warning: run not recorded in the history" in proc.stderr
    assert (tmp_path / "bad.sqlite").read_bytes() == b"not a database at all" * 50
    conn = sqlite3.connect(tmp_path / "new.sqlite")
    conn.execute("CREATE TABLE pairbench_schema (version INTEGER)")
    conn.execute("INSERT INTO pairbench_schema VALUES (99)")
    conn.commit()
    conn.close()
    proc = run_cli("history", "--history", "new.sqlite")
    assert proc.returncode == 1 and "schema version 99, newer than this pairbench knows" in proc.stderr


def test_help_stays_light() -> None:
    import subprocess

    import os

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "pairbench", "--help"], capture_output=True,
                         text=True, env=env, timeout=60)
    assert out.returncode == 0
    for cmd in ("report", "compare", "history", "import"):
        assert cmd in out.stdout
    assert "numpy" not in out.stderr and "scipy" not in out.stderr and "sqlite3" not in out.stderr


def test_a_run_is_recorded_and_a_bad_history_only_warns(tmp_path: Path, run_cli) -> None:
    # scripted timings (--debug-fake): this checks the recording, not the measuring
    env = {"PAIRBENCH_HISTORY": str(tmp_path / "h.sqlite"), "PAIRBENCH_DEBUG_FAKE": "1"}
    proc = run_cli("cmd", "true", "true ", "-r", "6", "-w", "0", "--export-json", "r.json", "--no-progress", env=env)
    assert proc.returncode == 0, proc.stderr
    proc = run_cli("history", env=env)
    assert proc.returncode == 0 and "pairbench" in proc.stdout and "1 runs from" in proc.stdout
    proc = run_cli("report", "r.json", "--html", "r.html")
    assert proc.returncode == 0 and (tmp_path / "r.html").exists()
    (tmp_path / "bad.sqlite").write_bytes(b"garbage" * 100)
    proc = run_cli("cmd", "true", "true ", "-r", "6", "-w", "0", "--no-progress", "--history", "bad.sqlite",
                   "--debug-fake")
    assert proc.returncode == 0
    assert "run not recorded in the history" in " ".join((proc.stdout + proc.stderr).split())
    assert (tmp_path / "bad.sqlite").read_bytes() == b"garbage" * 100
