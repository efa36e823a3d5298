"""The seeds' examples (examples/seed*.toml) run end to end as written, within --max-time 120 (and
their own minimum of 6 blocks, -M 6), on the machine's Ruby: seeds 000 and 001 serve examples/seedapp (a Rack app) under WEBrick and Puma,
seed 002 times the fiber script with and without YJIT, seed 004 times Object.new in `micro`.

What is asserted is what breaks if an example or a part under it breaks: the file loads and runs,
every variant and swept value is measured, every comparison gets a verdict (not "insufficient"),
and the servers really were the Ruby app under each variant's Ruby and setting (the line the app
writes to its log at start, and the count of requests it served, written at exit). No timing
effect is asserted: the JIT's effects are too small and this machine too loaded for that.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pairbench.store.runfile import load_run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
JUDGED = {"faster", "slower", "same", "inconclusive"}

pytestmark = pytest.mark.slow


def _ruby_has(*libraries: str) -> bool:
    if shutil.which("ruby") is None:
        return False
    code = "; ".join(f"require {lib!r}" for lib in libraries)
    return subprocess.run(["ruby", "-e", code], capture_output=True, timeout=60).returncode == 0


BLOCKS = 6
"""The examples' own minimum (`runs = 6`), all that the assertions read: once it is measured, the
run stops (-M) rather than spend the rest of its 120 s on blocks nothing here looks at. An example
whose comparisons do not settle (YJIT's start-up against its speed-up in seed 002's wall time;
servers restarted each round) otherwise measures until --max-time: 53 blocks instead of 6 in 117
s for seed 002, 12 in 113 s for seed 000. -r 6 still has to fit in --max-time 120, or the run fails."""


def _run_example(run_cli: Any, tmp_path: Path, name: str, *extra: str) -> Any:
    out = tmp_path / "run.json"
    proc = run_cli("run", str(EXAMPLES / name), "--max-time", "120", "--max-runs", str(BLOCKS),
                   "--export-json", str(out), *extra, cwd=ROOT, timeout=400)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    return load_run(out)


def _measured(run: Any, metric: str) -> Counter[tuple[str, str]]:
    """Blocks measured per (benchmark, variant) for `metric`, warm-ups left out."""
    return Counter((s.benchmark, s.variant) for s in run.samples if s.metric == metric and not s.warmup)


def _assert_every_point_measured_and_judged(run: Any, variants: set[str], metric: str) -> None:
    assert {v.name for v in run.variants} == variants
    measured = _measured(run, metric)
    for bench in run.benchmarks:
        for v in variants:
            assert measured[(bench.name, v)] >= BLOCKS, (bench.name, v, measured)
    baseline = next(v.name for v in run.variants if v.baseline)
    judged = {(c.benchmark, c.candidate): c.verdict for c in run.comparisons if c.metric == metric}
    expected = {(b.name, v) for b in run.benchmarks for v in variants - {baseline}}
    assert set(judged) == expected
    assert set(judged.values()) <= JUDGED, judged


def _server_logs(log_dir: Path) -> list[tuple[str, int]]:
    """(start line, requests served) of every server start the run made."""
    starts = []
    for log in sorted(log_dir.glob("*.log")):
        text = log.read_text(errors="replace")
        (start,) = re.findall(r"^seedapp: (ruby .*)$", text, re.M)
        (served,) = re.findall(r"^seedapp: served (\d+) requests$", text, re.M)
        starts.append((start, int(served)))
    return starts


def _assert_served_by_the_app(run: Any, log_dir: Path, points: set[tuple[str, str]], setting: str) -> None:
    """Every server start was the Rack app under the point's Ruby (YJIT on or off) and setting, it
    served at least the requests the run counted, and each of them was a page (status 2xx)."""
    starts = _server_logs(log_dir)
    assert starts, f"no server log in {log_dir}"
    seen = set()
    for line, served in starts:
        assert line.startswith("ruby "), line
        yjit = re.search(r"\byjit=(on|off)\b", line)
        value = re.search(rf"\b{setting}=(\S+)", line)
        assert yjit and ("+YJIT" in line) == (yjit.group(1) == "on"), line
        seen.add((yjit.group(1), value.group(1) if value else ""))
        assert served > 0, line
    assert seen == points
    counted = sum(s.value for s in run.samples if s.metric == "requests")
    assert sum(served for _, served in starts) >= counted > 0
    assert sum(s.value for s in run.samples if s.metric == "status_2xx") == counted
    assert sum(s.value for s in run.samples if s.metric == "failed") == 0


@pytest.mark.skipif(not _ruby_has("rack", "webrick"), reason="needs Debian's ruby, ruby-rack and ruby-webrick")
def test_seed000_serves_the_rack_app_on_webrick_under_both_rubies_and_every_setting(run_cli, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    run = _run_example(run_cli, tmp_path, "seed000-kclass-cache.toml",
                       "--set", f'benchmarks.latest.log_dir="{logs}"', "--set", f'benchmarks.topic.log_dir="{logs}"')
    assert [b.name for b in run.benchmarks] == ["latest", "topic"]
    _assert_every_point_measured_and_judged(run, {
        "head/SEEDAPP_OSTRUCTS=0", "head/SEEDAPP_OSTRUCTS=50", "kclass/SEEDAPP_OSTRUCTS=0", "kclass/SEEDAPP_OSTRUCTS=50",
    }, "req_per_s")
    _assert_served_by_the_app(run, logs, {("off", "0"), ("off", "50"), ("on", "0"), ("on", "50")}, "SEEDAPP_OSTRUCTS")
    assert "WEBrick" in "".join(p.read_text(errors="replace") for p in logs.glob("*.log"))


@pytest.mark.skipif(not _ruby_has("rack", "puma"), reason="needs Debian's ruby, ruby-rack and puma")
def test_seed001_serves_the_rack_app_on_puma_with_the_gc_setting_swept(run_cli, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    run = _run_example(run_cli, tmp_path, "seed001-packed-hash.toml",
                       "--set", f'benchmarks.issues.log_dir="{logs}"', "--set", f'benchmarks.issue.log_dir="{logs}"')
    assert [b.name for b in run.benchmarks] == ["issues", "issue"]
    _assert_every_point_measured_and_judged(run, {
        "master", "packed/RUBY_GC_HEAP_INIT_SLOTS=10000", "packed/RUBY_GC_HEAP_INIT_SLOTS=100000",
        "packed/RUBY_GC_HEAP_INIT_SLOTS=1000000",
    }, "req_per_s")
    _assert_served_by_the_app(run, logs, {("off", ""), ("on", "10000"), ("on", "100000"), ("on", "1000000")},
                              "RUBY_GC_HEAP_INIT_SLOTS")
    assert "Puma" in "".join(p.read_text(errors="replace") for p in logs.glob("*.log"))
    # the sweep report (the seed's table) holds every swept value for each page
    for bench in ("issues", "issue"):
        (table,) = [t for t in run.sweeps if t.benchmark == bench and t.metric.name == "req_per_s"]
        assert [r.params["RUBY_GC_HEAP_INIT_SLOTS"] for r in table.rows] == ["10000", "100000", "1000000"]

@pytest.mark.skipif(shutil.which("ruby") is None, reason="needs Debian's ruby")
def test_seed002_times_the_fiber_script_with_and_without_yjit(run_cli, tmp_path: Path) -> None:
    run = _run_example(run_cli, tmp_path, "seed002-fiber-jit.toml")
    _assert_every_point_measured_and_judged(run, {"ruby/jit=off", "ruby/jit=on"}, "time")
    args = {v.name: v.args for v in run.variants}
    assert args["ruby/jit=on"] == ("--yjit",) and not args["ruby/jit=off"]
    measured = {m: _measured(run, m) for m in ("setup", "exec")}
    for m, counts in measured.items():  # the script's own figures were read, per run, for both
        assert counts[("fibers", "ruby/jit=off")] >= BLOCKS and counts[("fibers", "ruby/jit=on")] >= BLOCKS, m
    assert all(s.value > 0 for s in run.samples if s.metric in ("setup", "exec"))


@pytest.mark.skipif(shutil.which("ruby") is None, reason="needs Debian's ruby")
def test_seed004_times_object_new_from_the_ruby_benchmark_file(run_cli, tmp_path: Path) -> None:
    run = _run_example(run_cli, tmp_path, "seed004-object-new.toml")
    assert [b.name for b in run.benchmarks] == ["object_new"]
    _assert_every_point_measured_and_judged(run, {"trunk", "patched"}, "time_per_op")
    # Object.new allocates one object per op, in each Ruby: the file's benchmark is what ran
    for v in ("trunk", "patched"):
        allocs = [s.value for s in run.samples if s.metric == "allocs_per_op" and s.variant == v and not s.warmup]
        assert allocs and all(round(a) == 1 for a in allocs), (v, allocs)
