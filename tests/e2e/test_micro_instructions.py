"""`pairbench micro --measure instructions`: per-op counts of real Python and Ruby under real valgrind."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from pairbench.model import Run
from pairbench.store.runfile import load_run
from tests.e2e.test_micro import PY, flat, need

# Each replicate is two interpreters under valgrind (~5-20 s each on a loaded 2-core machine).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900),
              pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")]

BENCH_PY = '''
def bench_once():
    d = {}
    for i in range(40):
        d[i] = i


def bench_twice():
    d = {}
    for i in range(40):
        d[i] = i
    d = {}
    for i in range(40):
        d[i] = i
'''

BENCH_RB = '''
prelude: |
  a = []
benchmark:
  once: |
    40.times { |i| a << i }
    a.clear
  twice: |
    40.times { |i| a << i }
    a.clear
    40.times { |i| a << i }
    a.clear
'''


# Start-up is in both processes of a replicate and cancels, so the interpreters start bare: under
# valgrind Python's site (its .pth files) costs 1.3 s a process (3.2 s against 1.9 s for `-S -c pass`)
# and Ruby's rubygems 3 s (4.5 s against 1.3 s for `ruby -e 1`), 16 processes a test.
BARE_PY = f"{PY} -S"
BARE_RUBY = "ruby --disable-gems"


def counts(run: Run, bench: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for s in run.samples:
        if s.benchmark == bench and s.metric == "instructions_per_op" and not s.warmup:
            out.setdefault(s.variant, []).append(s.value)
    return out


def comparison(run: Run, bench: str, candidate: str) -> Any:
    return next(c for c in run.comparisons
                if c.benchmark == bench and c.metric == "instructions_per_op" and c.candidate == candidate)


def _counted(run_cli: Any, tmp_path: Path, *args: str, blocks: int = 2) -> tuple[Any, Run]:
    proc = run_cli("micro", *args, "--loops", "300", "-r", str(blocks), "--samples", "2", "--warmup-samples", "0",
                   "--no-progress", "--export-json", "run.json", timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc, load_run(tmp_path / "run.json")


def _check_exact(run: Run, variants: tuple[str, str], tolerance: float = 0.0) -> float:
    """Every process gave one count per benchmark (within `tolerance`, relative), A/A reads 1; returns
    twice/once."""
    per_op = {}
    for bench in ("once", "twice"):
        values = counts(run, bench)
        assert sorted(values) == sorted(variants) and all(len(v) == 2 for v in values.values())
        seen = {x for v in values.values() for x in v}
        assert max(seen) - min(seen) <= tolerance * min(seen), values  # the same in every process
        same = comparison(run, bench, variants[1])
        assert same.exact and same.verdict == "same" and abs(same.ratio - 1.0) <= tolerance
        per_op[bench] = values[variants[0]][0]
    assert per_op["once"] > 100  # forty dict stores or array appends, not the empty loop
    if not tolerance:
        assert "instructions-vary" not in {n.kind for n in run.notices}
    return per_op["twice"] / per_op["once"]


def test_a_python_op_counts_the_same_in_every_process_and_twice_the_work_reads_about_2(
        run_cli: Any, tmp_path: Path) -> None:
    (tmp_path / "bm.py").write_text(BENCH_PY)
    proc, run = _counted(run_cli, tmp_path, "bm.py", "--measure", "instructions", "--python", BARE_PY,
                         "--python", BARE_PY, "-n", "A", "-n", "A again")
    assert 1.8 <= _check_exact(run, ("A", "A again")) <= 2.2
    assert [m.name for m in run.benchmarks[0].metrics] == ["instructions_per_op"]  # no time asked, none measured
    assert not [s for s in run.samples if s.metric == "time_per_op"]
    text = flat(proc)
    assert "instructions counted by valgrind cachegrind" in text and "PYTHONHASHSEED=0" in text
    assert "getrandom() fixed" in text


def test_a_ruby_op_counts_the_same_in_every_process_beside_its_time(run_cli: Any, tmp_path: Path) -> None:
    need("ruby")
    (tmp_path / "bm.yml").write_text(BENCH_RB)
    _, run = _counted(run_cli, tmp_path, "bm.yml", "--measure", "instructions,time", "--ruby", BARE_RUBY,
                      "--ruby", BARE_RUBY, "-n", "A", "-n", "A again")
    # Ruby moves by a few hundred instructions in an occasional process (up to 2.2 per op of ~22 000
    # at N = 300 in a CI run, 1e-4 relative); Python's counts are exact (the test above)
    assert 1.8 <= _check_exact(run, ("A", "A again"), tolerance=1e-3) <= 2.2
    names = [m.name for m in run.benchmarks[0].metrics]
    assert names[:3] == ["instructions_per_op", "time_per_op", "ops_per_s"]
    assert len([s for s in run.samples if s.metric == "time_per_op" and s.benchmark == "once"]) == 2 * 2 * 2


def test_an_op_whose_work_depends_on_the_process_is_warned_about(run_cli: Any, tmp_path: Path) -> None:
    # Two processes' pids differ by less than 997 (they start one after the other), so their works
    # differ: with `% 97` one run in a hundred drew the same work twice and read as deterministic.
    proc = run_cli("micro", "-s", "import os; n = os.getpid() % 997 + 1", "[0] * n * 5", "--measure", "instructions",
                   "--python", BARE_PY, "--loops", "100", "-r", "2", "--samples", "2", "--warmup-samples", "0",
                   "--no-progress", "--export-json", "run.json", timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = flat(proc)
    assert "instruction counts of one variant differ between runs" in text and "setarch -R" in text


def test_a_whole_ruby_script_cannot_be_counted_per_op_and_says_how_to(run_cli: Any, tmp_path: Path) -> None:
    need("ruby")
    (tmp_path / "app.rb").write_text("x = 1\n")
    proc = run_cli("micro", "app.rb", "--ruby", "ruby", "--measure", "instructions", "--no-progress")
    assert proc.returncode == 1
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "pairbench cmd --measure instructions" in err[0]
    assert "Traceback" not in proc.stderr


def test_counters_per_op_in_micro_twice_the_work_reads_about_twice_the_simulated_cycles(
        run_cli: Any, tmp_path: Path) -> None:
    (tmp_path / "bm.py").write_text(BENCH_PY)
    # One block: the A/A pair is already two processes per benchmark, each counted twice (N and 2N
    # ops), under the simulation that makes a process 2x slower again than counting alone; whether a
    # variant's own replicates agree is the instructions tests' (-r 2) and instructions-vary's
    proc, run = _counted(run_cli, tmp_path, "bm.py", "--measure", "counters", "--python", BARE_PY,
                         "--python", BARE_PY, "-n", "A", "-n", "A again", blocks=1)
    names = [m.name for m in run.benchmarks[0].metrics]
    assert names[0] == "time_per_op"  # wall time first, as on cmd
    assert {"instructions_per_op", "sim-cycles_per_op", "sim-branch-misses_per_op", "ipc"} <= set(names)
    assert "page-faults" not in " ".join(names)  # a process's rusage is not per operation
    per_op = {b: {s.value for s in run.samples if s.benchmark == b and s.metric == "sim-cycles_per_op"}
              for b in ("once", "twice")}
    assert all(len(v) == 1 for v in per_op.values()), per_op  # simulated: the same in every process
    assert 1.6 <= next(iter(per_op["twice"])) / next(iter(per_op["once"])) <= 2.4
    same = next(c for c in run.comparisons if c.benchmark == "once" and c.metric == "sim-cycles_per_op")
    assert same.exact and same.verdict == "same"
    assert "simulated" in flat(proc)
