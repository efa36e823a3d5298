"""`pairbench micro DIR` on a Ruby benchmark directory, as benchmark-driver runs `benchmark/*.yml`.

The files are written here in the shapes of ruby/ruby's benchmark/ directory (benchmark_driver's
YAML, single-run .rb scripts, a lib/ folder of helpers), not copied from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pairbench.store.runfile import load_run
from tests.e2e.test_micro import flat, need, per_process, run_micro

FILES = {
    "string_upcase.yml": '''
prelude: |
  s = "hello world"
benchmark:
  upcase: s.upcase
  downcase: s.downcase
''',
    "array_sum.yml": '''
benchmark:
  - name: sum
    prelude: a = Array.new(50) { |i| i }
    script: a.sum
''',
    "app_count.rb": '''
n = 0
20_000.times { |i| n += i }
raise "wrong sum" unless n == 199_990_000
''',
    # fails for every Ruby: not valid YAML
    "broken.yml": "benchmark: [unclosed\n",
    # fails when it runs
    "vm_raises.rb": 'raise ArgumentError, "this script always fails"\n',
    # another benchmark_driver runner: refused by name
    "ractor_x.yml": "type: lib/benchmark_driver/runner/ractor\nbenchmark:\n  x: Object\nractor: 1\n",
    "README.md": "not a benchmark\n",
}
"""A benchmark directory: three good files (four benchmarks), two failing files, one refused."""

GOOD = {"string_upcase:upcase", "string_upcase:downcase", "array_sum:sum", "app_count"}
RUBIES = ["--ruby", "ruby", "--ruby", "ruby --yjit"]


def benchmark_dir(root: Path) -> Path:
    bench = root / "benchmark"
    (bench / "lib").mkdir(parents=True)
    for name, text in FILES.items():
        (bench / name).write_text(text)
    # ruby/ruby keeps helpers in benchmark/lib/: not benchmarks, and not run
    (bench / "lib" / "helper.rb").write_text('raise "a helper in lib/ was run as a benchmark"\n')
    return bench


@pytest.mark.slow
def test_a_directory_runs_every_yml_and_rb_file_with_a_suite_summary(run_cli: Any, tmp_path: Path) -> None:
    need("ruby")
    bench = benchmark_dir(tmp_path)
    proc, run = run_micro(run_cli, tmp_path, str(bench), *RUBIES, runs=2)
    text = flat(proc)
    assert {b.name for b in run.benchmarks} == GOOD | {"vm_raises"}, text
    for name in GOOD - {"app_count"}:
        for v in ("ruby", "ruby --yjit"):
            assert len(per_process(run, name, v)) == 2, (name, v, text)
    # a file that cannot load is one line; a refused runner is one line; the rest ran
    assert text.count("benchmark file broken.yml:") == 1, text
    assert text.count('ractor_x.yml: runner type "lib/benchmark_driver/runner/ractor" is not supported') == 1
    # a script that fails is shown with each variant's error, and measured nowhere
    for v in ("ruby", "ruby --yjit"):
        assert f"'vm_raises' on variant '{v}': ArgumentError: this script always fails (vm_raises.rb:1)" in text
        assert per_process(run, "vm_raises", v) == []
    assert "helper" not in text and "README" not in text
    # the suite summary: one row for the candidate, over the benchmarks measured on both
    (summary,) = run.summaries
    assert summary.candidate == "ruby --yjit" and summary.benchmarks == len(GOOD)
    assert summary.ci[0] <= summary.ratio <= summary.ci[1]
    assert "suite summary" in proc.stdout


@pytest.mark.slow
def test_a_quoted_glob_picks_the_files_it_matches(run_cli: Any, tmp_path: Path) -> None:
    need("ruby")
    bench = benchmark_dir(tmp_path)
    proc, run = run_micro(run_cli, tmp_path, str(bench / "s*.yml"), str(bench / "app_*.rb"), *RUBIES, runs=1)
    assert {b.name for b in run.benchmarks} == {"string_upcase:upcase", "string_upcase:downcase", "app_count"}
    assert "broken" not in flat(proc)


def test_a_glob_or_directory_without_ruby_files_is_one_line(run_cli: Any, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for target in (str(tmp_path / "empty" / "*.yml"), str(tmp_path / "empty")):
        proc = run_cli("micro", target, "--ruby", "ruby")
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
        assert str(tmp_path / "empty") in proc.stderr


# require.yml's shape: the prelude makes its data next to $0 unless it is there already
PREPARES_ONCE = '''
prelude: |
  data_dir = File.join(File.dirname($0), "bm_prep.data")
  made = File.directory?(data_dir) ? "reused" : "made"
  Dir.mkdir(data_dir) unless made == "reused"
  File.open(ENV.fetch("PB_PREP_LOG"), "a") { |f| f.puts(made) }
benchmark:
  present: File.directory?(data_dir) || raise("no data next to $0")
'''


@pytest.mark.slow
def test_data_a_prelude_makes_next_to_0_is_made_once_per_run(run_cli: Any, tmp_path: Path) -> None:
    need("ruby")
    (tmp_path / "prep.yml").write_text(PREPARES_ONCE)
    log = tmp_path / "prep.log"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = run_cli("micro", "prep.yml", *RUBIES, "--samples", "2", "--warmup-samples", "0", "--target-time",
                   "0.001", "--no-alloc", "--runs", "2", env={"PB_PREP_LOG": str(log), "TMPDIR": str(tmp)})
    assert proc.returncode == 0, flat(proc)
    # one calibration and 2 x 2 measuring workers: the first makes the data, the others find it, as
    # benchmark_driver's workers find it beside their script in one temporary directory
    assert sorted(log.read_text().split()) == ["made"] + ["reused"] * 4, flat(proc)
    assert list(tmp.iterdir()) == []  # the run's directory goes when the run ends



# realpath.yml's shape: one prelude, many benchmarks; the prelude logs the worker it runs in
MANY = '''
prelude: |
  File.open(ENV.fetch("PB_PREP_LOG"), "a") { |f| f.puts(Process.pid) }
  s = "pairbench"
benchmark:
  a: s.size
  b: s.upcase
  c: s.reverse
  d: s.hash
'''


@pytest.mark.slow
def test_the_benchmarks_of_one_file_are_calibrated_in_one_worker(run_cli: Any, tmp_path: Path) -> None:
    need("ruby")
    (tmp_path / "many.yml").write_text(MANY)
    log = tmp_path / "prep.log"
    out = tmp_path / "run.json"
    proc = run_cli("micro", "many.yml", *RUBIES, "--samples", "2", "--warmup-samples", "0", "--target-time",
                   "0.001", "--no-alloc", "--runs", "1", "--export-json", str(out), env={"PB_PREP_LOG": str(log)})
    assert proc.returncode == 0, flat(proc)
    run = load_run(out)
    assert all(b.options["loops"] >= 1 for b in run.benchmarks) and len(run.benchmarks) == 4
    # 4 benchmarks x 2 variants x 1 run measured, plus one worker calibrating all four (not four)
    assert len(set(log.read_text().split())) == 4 * 2 + 1, flat(proc)


# benchmark_driver's generated script loads nothing the benchmark does not: nor should a worker
LOADS_NOTHING = '''
prelude: |
  extra = $LOADED_FEATURES.grep(/psych|yaml|fileutils/)
  raise "the worker loaded #{extra.join(', ')}" unless extra.empty?
benchmark:
  clean: nil.to_a
'''


@pytest.mark.slow
def test_a_measuring_worker_does_not_load_yaml_or_fileutils(run_cli: Any, tmp_path: Path) -> None:
    need("ruby")
    (tmp_path / "clean.yml").write_text(LOADS_NOTHING)
    proc, run = run_micro(run_cli, tmp_path, "clean.yml", *RUBIES, runs=1)
    assert "failed" not in flat(proc), flat(proc)
    assert len(per_process(run, "clean", "ruby --yjit")) == 1


# so_mandelbrot.rb's shape: a script that prints a binary image (PBM) on standard output
PRINTS_BINARY = '''
print "P4\\n8 8\\n"
print([0x81, 0xff, 0x00, 0xfe].pack("C*") * 16)
STDOUT.write([0xc3, 0x28].pack("C*"))
'''


@pytest.mark.slow
def test_a_benchmark_that_prints_bytes_that_are_not_text_is_measured(run_cli: Any, tmp_path: Path) -> None:
    need("ruby")
    (tmp_path / "so_pbm.rb").write_text(PRINTS_BINARY)
    proc, run = run_micro(run_cli, tmp_path, "so_pbm.rb", *RUBIES, runs=2)
    assert "Traceback" not in proc.stderr, proc.stderr
    for v in ("ruby", "ruby --yjit"):
        assert len(per_process(run, "so_pbm", v)) == 2
