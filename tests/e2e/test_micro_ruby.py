"""`pairbench micro` on the shapes of ruby/ruby's benchmark directory, with the real Ruby.

The files are written here in the shapes of ruby/ruby's benchmark/*.yml and *.rb (benchmark_driver's
format), not copied from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import pairbench
from pairbench.store.runfile import load_run
from tests.e2e.test_micro import FAST, flat, geo_ratio, need, per_process, run_micro

PACKAGE = Path(pairbench.__file__).resolve().parent

FIB_SCRIPT = '''
def fib(n)
  n < 2 ? n : fib(n - 1) + fib(n - 2)
end

puts fib(Integer(ENV.fetch("PB_FIB")))
'''


def samples_per_process(run: Any, bench: str, variant: str) -> list[int]:
    counts: dict[tuple[int, int], int] = {}
    for s in run.samples:
        if s.benchmark == bench and s.variant == variant and s.metric == "time_per_op" and not s.warmup:
            counts[(s.block, s.replicate)] = counts.get((s.block, s.replicate), 0) + 1
    return list(counts.values())


@pytest.mark.slow
def test_a_rb_file_is_a_script_run_once_per_process_in_each_ruby(run_cli: Any, tmp_path: Path) -> None:
    need("ruby")
    path = tmp_path / "app_fib.rb"
    path.write_text(FIB_SCRIPT)
    proc, run = run_micro(run_cli, tmp_path, str(path), "--ruby", "env PB_FIB=19 ruby", "--ruby",
                          "env PB_FIB=23 ruby", "--name", "small", "--name", "large", runs=4)
    (bench,) = run.benchmarks
    assert bench.name == "app_fib"
    assert bench.options["script"] is True and bench.options["loops"] == 1
    for v in ("small", "large"):
        # one run of the script is one sample of one process, as benchmark_driver counts it
        assert samples_per_process(run, "app_fib", v) == [1, 1, 1, 1], v
    # fib(23) makes 1.618^4 = 6.9 times the calls of fib(19): each variant ran its own script
    assert geo_ratio(run, "app_fib", "large", "small") > 3
    assert "failed" not in flat(proc)


WRITES_NEXT_TO_0 = '''
prelude: |
  data_dir = File.join(File.dirname($0), "bm_require.data")
  Dir.mkdir(data_dir) unless File.directory?(data_dir)
  30.times { |i| File.write(File.join(data_dir, "pb_c#{i}.rb"), "class PbC#{i}; end\\n") }
  $:.push(data_dir)
benchmark:
  require: |
    30.times { |i| require "pb_c#{i}" }
  beside_file: File.directory?(File.join(File.dirname(__FILE__), "bm_require.data")) || raise("not beside __FILE__")
'''

SCRIPT_WRITES_NEXT_TO_0 = '''
out = File.join(File.dirname($0), "scratch.dat")
File.write(out, "x" * 100_000)
raise "__FILE__ and $0 differ" unless File.expand_path(__FILE__) == File.expand_path($0)
raise "not beside __dir__" unless File.exist?(File.join(__dir__, "scratch.dat"))
'''


def package_listing() -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(PACKAGE)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in PACKAGE.rglob("*") if "__pycache__" not in p.parts}


@pytest.mark.slow
def test_benchmarks_that_write_next_to_0_write_into_a_run_directory_not_the_package(
        run_cli: Any, tmp_path: Path) -> None:
    need("ruby")
    (tmp_path / "require.yml").write_text(WRITES_NEXT_TO_0)
    (tmp_path / "scratch.rb").write_text(SCRIPT_WRITES_NEXT_TO_0)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    before = package_listing()
    out = tmp_path / "run.json"
    proc = run_cli("micro", "require.yml", "scratch.rb", "--ruby", "ruby", "--ruby", "ruby --yjit", *FAST,
                   "--runs", "2", "--export-json", str(out), env={"TMPDIR": str(tmp)})
    assert proc.returncode == 0, flat(proc)
    assert "failed" not in flat(proc), flat(proc)
    run = load_run(out)
    for bench in ("require:require", "require:beside_file", "scratch"):
        for v in ("ruby", "ruby --yjit"):
            assert len(per_process(run, bench, v)) == 2, (bench, v)
    assert package_listing() == before
    # each worker's run directory is removed when it exits
    assert list(tmp.iterdir()) == []


POPS_A_BATCH = '''
prelude: |
  batches = Array.new(40) { [1, 2] }
benchmark:
  pop_batch: batches.pop.each { |x| x }
loop_count: 5
'''

TEARDOWN = '''
prelude: |
  Dir.mkdir("made_by_prelude") unless File.directory?("made_by_prelude")
teardown: |
  Dir.rmdir("made_by_prelude")
benchmark:
  made: File.directory?("made_by_prelude") || raise("no directory")
'''

RACTOR = '''
type: lib/benchmark_driver/runner/ractor
benchmark:
  ractor_const: Object
ractor: 1
'''

# the shape of a runner's own file: no `benchmark` key at all
MJIT_EXEC = '''
type: lib/benchmark_driver/runner/mjit_exec
num_methods: [1]
loop_count: 1000
'''

BREAKS_ON_ONE = '''
benchmark:
  - name: fine
    script: nil.nil?
  - name: breaks
    script: 'raise ArgumentError, "broken in this variant" if ENV["PB_BREAK"]'
'''


@pytest.mark.slow
def test_loop_count_teardown_other_runners_and_a_failure_on_one_variant(run_cli: Any, tmp_path: Path) -> None:
    need("ruby")
    for name, text in {"io_pop.yml": POPS_A_BATCH, "realpath.yml": TEARDOWN, "ractor_const.yml": RACTOR,
                       "mjit_exec.yml": MJIT_EXEC, "mixed.yml": BREAKS_ON_ONE}.items():
        (tmp_path / name).write_text(text)
    variants = ["--ruby", "ruby", "--ruby", "env PB_BREAK=1 ruby", "--name", "base", "--name", "broken"]
    proc, run = run_micro(run_cli, tmp_path, "io_pop.yml", "realpath.yml", "ractor_const.yml", "mjit_exec.yml",
                          "mixed.yml",
                          *variants, "--loops", "file", runs=3)
    text = flat(proc)
    # loop_count honoured: 40 batches last 5 ops a sample; a calibrated count would pop them all
    assert run.benchmark("io_pop:pop_batch").options["loops"] == 5
    assert len(per_process(run, "io_pop:pop_batch", "broken")) == 3, text
    # teardown ran: the prelude's directory is gone
    assert len(per_process(run, "realpath:made", "base")) == 3, text
    assert not (tmp_path / "made_by_prelude").exists()
    # another runner type is refused by name instead of being timed with the default loop
    assert 'ractor_const.yml: runner type "lib/benchmark_driver/runner/ractor" is not supported' in text
    assert 'mjit_exec.yml: runner type "lib/benchmark_driver/runner/mjit_exec" is not supported' in text
    assert not any(b.name.startswith(("ractor_const", "mjit_exec")) for b in run.benchmarks)
    # a benchmark that fails on one variant: that variant's error, the rest of the file still runs
    assert "'mixed:breaks' on variant 'broken': ArgumentError: broken in this variant" in text
    assert len(per_process(run, "mixed:breaks", "base")) == 3
    assert len(per_process(run, "mixed:fine", "broken")) == 3
    # alone, the refused file is one error line
    alone = run_cli("micro", "ractor_const.yml", "--ruby", "ruby", "--runs", "2")
    assert alone.returncode == 1 and alone.stderr.count("\n") == 1 and "is not supported" in alone.stderr
    assert "Traceback" not in alone.stderr


def test_loops_file_is_for_ruby_files_and_bad_counts_are_one_line(run_cli: Any, tmp_path: Path) -> None:
    proc = run_cli("micro", "pass", "--python", "python3", "--loops", "file")
    assert proc.returncode == 1 and "--loops file reads loop_count from benchmark_driver" in proc.stderr
    proc = run_cli("micro", "pass", "--loops", "often")
    assert proc.returncode != 0 and "'often': give a whole number >= 1, or 'file'" in proc.stderr
    assert "Traceback" not in proc.stderr


ONCE_ONLY = '''
loop_count: 1
benchmark:
  require_once: |
    unless $pb_done
      t = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
      nil while Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - t < 0.05
      $pb_done = true
    end
'''


@pytest.mark.slow
def test_a_loop_count_of_one_is_run_once_per_process_as_benchmark_driver_does(run_cli: Any, tmp_path: Path) -> None:
    # require.yml's shape: the work happens once per process (a second `require` does nothing),
    # so a second sample, a warm-up sample or a calibrated loop in the same process would time nothing
    need("ruby")
    path = tmp_path / "once.yml"
    path.write_text(ONCE_ONLY)
    proc, run = run_micro(run_cli, tmp_path, str(path), "--ruby", "ruby", "--ruby", "ruby --yjit", runs=3)
    (bench,) = run.benchmarks
    for v in ("ruby", "ruby --yjit"):
        assert samples_per_process(run, bench.name, v) == [1, 1, 1], v
    times = [s.value for s in run.samples if s.metric == "time_per_op" and not s.warmup]
    assert len(times) == 6 and min(times) > 0.04, times  # every sample did the 50 ms of CPU work
