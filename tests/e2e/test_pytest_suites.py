"""`pairbench pytest` on real pytest-benchmark suites: real interpreters, real pytest processes."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pairbench.model import Run
from pairbench.store.runfile import load_run

# CPU time: blind to the other processes of a shared machine, where wall time swung 2x between processes
FAST = ["--samples", "3", "--warmup-samples", "1", "--target-time", "0.01", "--clock", "cpu", "--seed", "1", "--no-progress"]

SUITE = '''
import os
import pytest

SLOW = os.environ.get("PB_SLOW") == "1"
BROKEN = os.environ.get("PB_BROKEN") == "1"
DATA = [None] * 3000


def work(times):
    for _ in range(times * (2 if SLOW else 1)):
        for _ in DATA:
            pass
    return times


def test_fast(benchmark):
    assert benchmark(work, 1) == 1


@pytest.mark.parametrize("n", [10, 1000])
def test_param(benchmark, n):
    benchmark.extra_info["n"] = n
    benchmark.group = "sums"
    assert benchmark(sum, range(n)) == sum(range(n))


@pytest.mark.benchmark(group="pedantic", min_rounds=3)
def test_pedantic(benchmark):
    assert benchmark.pedantic(work, setup=lambda: ((1,), {}), rounds=5, iterations=1) == 1


def test_broken(benchmark):
    if BROKEN:
        raise ValueError("broken under this variant")
    benchmark(work, 1)


@pytest.mark.benchmark
def test_whole_test_codspeed_style():
    work(1)


def test_not_a_benchmark():
    assert work(1) == 1
'''


def write_suite(where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    (where / "test_bench.py").write_text(SUITE, encoding="utf-8")
    # a project that skips its benchmarks in ordinary test runs: pytest-benchmark's option must still parse
    (where / "pytest.ini").write_text("[pytest]\naddopts = --benchmark-skip\n", encoding="utf-8")
    return where


def flat(proc: Any) -> str:
    return " ".join((proc.stdout + proc.stderr).split())


def time_ratio(run: Run, bench: str) -> float:
    """The time per op's ratio, candidate over baseline. The slowed variants do twice the work, so it
    is above 1.3 under any load; a verdict at 6 blocks can stay open on a loaded machine (one block
    of the 6 disturbed is enough), so the tests here read the ratio, and the verdict rules are tested
    on synthetic data with known truth."""
    ratio = next(c.ratio for c in run.comparisons if c.benchmark == bench and c.metric == "time_per_op")
    assert ratio is not None, bench
    return ratio


def measured(run: Run, bench: str, variant: str) -> int:
    return sum(1 for s in run.samples if s.benchmark == bench and s.variant == variant
               and s.metric == "time_per_op" and not s.warmup)


@pytest.mark.slow
def test_a_suite_runs_unchanged_across_two_environments(run_cli: Any, tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "proj")
    out = tmp_path / "run.json"
    md = tmp_path / "report.md"
    proc = run_cli("pytest", "test_bench.py", "--python", sys.executable, "--env", "",
                   "--env", "PB_SLOW=1 PB_BROKEN=1", "-n", "base", "-n", "slow", "--runs", "6", *FAST,
                   "--fail-on-regression", "--export-json", str(out), "--export-markdown", str(md), cwd=suite,
                   timeout=600)
    assert proc.returncode == 3, proc.stdout + proc.stderr  # test_fast doubles: a regression
    run = load_run(out)
    names = [b.name for b in run.benchmarks]
    assert names == ["test_bench.py::test_fast", "test_bench.py::test_param[10]", "test_bench.py::test_param[1000]",
                     "test_bench.py::test_pedantic", "test_bench.py::test_broken",
                     "test_bench.py::test_whole_test_codspeed_style"]
    assert time_ratio(run, "test_bench.py::test_fast") > 1.3
    assert time_ratio(run, "test_bench.py::test_pedantic") > 1.3
    assert time_ratio(run, "test_bench.py::test_whole_test_codspeed_style") > 1.3
    # the failing test is reported with its error once; its baseline and every other test are measured
    text = flat(proc)
    assert "test_bench.py::test_broken" in text and "ValueError: broken under this variant" in text
    failed = [n for n in run.notices if n.kind == "benchmark-failed"]
    assert [(n.benchmark, n.variant) for n in failed] == [("test_bench.py::test_broken", "slow")]
    assert measured(run, "test_bench.py::test_broken", "base") == 6 * 3
    assert measured(run, "test_bench.py::test_broken", "slow") == 0
    for name in names[:4] + names[5:]:
        assert measured(run, name, "slow") == 6 * 3
    assert run.metadata["pytest"]["skipped"] == 1
    assert "1 of 7 tests collected do not use the benchmark fixture" in text
    assert "test_bench.py::test_fast" in md.read_text(encoding="utf-8")


@pytest.mark.slow
def test_pytest_args_after_dashes_select_the_tests(run_cli: Any, tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "proj")
    out = tmp_path / "run.json"
    proc = run_cli("pytest", "test_bench.py", "--env", "", "--env", "PB_SLOW=1", "--runs", "3", *FAST,
                   "--export-json", str(out), "--", "-k", "param", cwd=suite, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [b.name for b in load_run(out).benchmarks] == ["test_bench.py::test_param[10]",
                                                          "test_bench.py::test_param[1000]"]


@pytest.mark.slow
def test_a_suite_that_cannot_be_collected_is_one_error(run_cli: Any, tmp_path: Path) -> None:
    (tmp_path / "test_bad.py").write_text("def test_x(benchmark:\n    pass\n", encoding="utf-8")
    proc = run_cli("pytest", "test_bad.py", "--env", "", "--env", "X=1", *FAST, "--no-history")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.startswith("error: pytest cannot collect test_bad.py under the baseline"), proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_suite_without_benchmarks_says_what_a_benchmark_is(run_cli: Any, tmp_path: Path) -> None:
    """No test at all (`-k` selects none), an asv directory without benchmarks, and the asv project's
    root given in place of its benchmark_dir: each one error that says what was looked for."""
    (tmp_path / "test_plain.py").write_text("def test_x():\n    pass\n", encoding="utf-8")
    proc = run_cli("pytest", "test_plain.py", *FAST, "--no-history", "--", "-k", "nothing")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.startswith("error: no pytest benchmark to run: pytest collected no test"), proc.stderr
    assert "0 tests collected" not in proc.stderr
    proc = run_cli("pytest", "test_plain.py", *FAST, "--no-history")  # a test, but not a benchmark
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert " ".join(proc.stderr.split()) == ("error: no pytest benchmark to run: the 1 test collected does not use "
                                             "the benchmark fixture; a benchmark is a test that uses the benchmark "
                                             "fixture or is marked @pytest.mark.benchmark"), proc.stderr
    project = tmp_path / "proj"
    (project / "benchmarks").mkdir(parents=True)
    (project / "benchmarks" / "bench_x.py").write_text("def time_x():\n    pass\n", encoding="utf-8")
    (project / "asv.conf.json").write_text('{"version": 1, "benchmark_dir": "benchmarks"}', encoding="utf-8")
    (project / "empty").mkdir()
    for where, said in (("empty", "no asv benchmark to run: no function or method named time_"),
                        (".", ". holds asv.conf.json, whose benchmark_dir is 'benchmarks': pairbench asv benchmarks")):
        proc = run_cli("asv", where, *FAST, "--no-history", cwd=project)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        text = " ".join(proc.stderr.split())
        assert said in text and "no output" not in text and "Traceback" not in text, text
    proc = run_cli("asv", "benchmarks", "-b", "nomatch", *FAST, "--no-history", cwd=project)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert " ".join(proc.stderr.split()) == ("error: no asv benchmark to run: the 1 benchmark collected does not match -b "
                                             "nomatch (bench_x.time_x)"), proc.stderr


def test_a_suite_no_candidate_can_collect_is_one_error_before_measuring(run_cli: Any, tmp_path: Path) -> None:
    """The candidate's interpreter does not exist: nothing can be compared, so nothing is measured,
    and the reason is said once (it was said for the collection, then again for every test)."""
    suite = write_suite(tmp_path / "proj")
    proc = run_cli("pytest", "test_bench.py", "--python", sys.executable, "--python", str(tmp_path / "nopython"),
                   "-r", "2", *FAST, "--no-history", cwd=suite)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    text = flat(proc)
    assert "nothing to compare" in text and text.count("not found") == 1, text
    assert "run file" not in text and "Traceback" not in text


def test_a_skipped_or_expected_to_fail_benchmark_says_why_in_one_line(run_cli: Any, tmp_path: Path) -> None:
    """pytest.skip's reason once ('skipped: Skipped: ...' said it twice), and an xfail test's error
    line (its whole traceback, fixture repr and all, was the message)."""
    (tmp_path / "test_odd.py").write_text(textwrap.dedent("""
        import pytest

        def test_skipped(benchmark):
            pytest.skip("not here")

        @pytest.mark.xfail
        def test_xfail(benchmark):
            benchmark(lambda: 1 / 0)
        """), encoding="utf-8")
    proc = run_cli("pytest", "test_odd.py", "--env", "", "--env", "X=1", "-r", "2", *FAST, "--no-history")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "skipped: not here" in proc.stderr and "Skipped: not here" not in proc.stderr, proc.stderr
    assert "expected to fail (xfail): ZeroDivisionError: division by zero" in proc.stderr, proc.stderr
    assert "BenchmarkFixture object" not in proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr


def test_a_track_benchmark_that_returns_no_number_says_what_it_returned(run_cli: Any, tmp_path: Path) -> None:
    """It said "TypeError: float() argument must be a string or a real number, not 'NoneType'"."""
    bench = tmp_path / "benchmarks"
    bench.mkdir()
    (bench / "bench_t.py").write_text("def track_none():\n    return None\n\n\ndef track_text():\n    return 'abc'\n\n\n"
                                      "def time_ok():\n    sum(range(10))\n", encoding="utf-8")
    proc = run_cli("asv", "benchmarks", "--env", "", "--env", "X=1", "-r", "2", *FAST, "--no-history")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = flat(proc)
    assert "bench_t.track_none' on variant 'X=1': ValueError: track_none returned None, not a number" in text, text
    assert "track_text returned 'abc', not a number" in text, text
    assert "float()" not in text and "could not convert" not in text, text


def test_git_refs_outside_a_repository_name_the_flag_to_fix(run_cli: Any, tmp_path: Path) -> None:
    """It said 'fix git.repo in the suite', and there is no suite: the refs are --repo's."""
    suite = write_suite(tmp_path / "proj")
    for extra, said in (((), f"{suite} is not a git repository: --git takes refs of --repo DIR"),
                        (("--repo", str(tmp_path / "nowhere")), f"--repo {tmp_path / 'nowhere'}: no such folder")):
        proc = run_cli("pytest", "test_bench.py", "--git", "HEAD", "--git", "HEAD~1", *extra, *FAST, "--no-history",
                       cwd=suite, env={"GIT_CEILING_DIRECTORIES": str(tmp_path)})
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert said in proc.stderr and "suite" not in proc.stderr, proc.stderr


@pytest.fixture(scope="module")
def pytest_only_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with pytest and nothing else (no pytest-benchmark); PyPI must be reachable."""
    venv = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "pytest"],
                         capture_output=True, text=True, timeout=600)
    if pip.returncode != 0:
        pytest.skip(f"cannot install pytest from the package index: {pip.stderr.strip()[-300:]}")
    return venv


@pytest.mark.slow
def test_a_virtual_environment_with_pytest_only_runs_the_suite(run_cli: Any, tmp_path: Path,
                                                               pytest_only_venv: Path) -> None:
    python = pytest_only_venv / "bin" / "python"
    has = subprocess.run([str(python), "-c", "import pytest_benchmark"], capture_output=True)
    assert has.returncode != 0  # the fixture is pairbench's own
    suite = write_suite(tmp_path / "proj")
    out = tmp_path / "run.json"
    env_dir = os.path.relpath(pytest_only_venv, suite)  # a virtual environment's directory stands for its Python
    proc = run_cli("pytest", "test_bench.py", "--python", env_dir, "--env", "", "--env", "PB_SLOW=1",
                   "--runs", "8", *FAST, "--export-json", str(out), "-b", "test_fast", cwd=suite, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = load_run(out)
    assert [b.name for b in run.benchmarks] == ["test_bench.py::test_fast"]
    assert time_ratio(run, "test_bench.py::test_fast") > 1.3
    assert all(v.command.endswith("/bin/python") for v in run.variants)


ASV_COMMON = '''
import os
FACTOR = 2 if os.environ.get("PB_SLOW") == "1" else 1
DATA = [None] * 2000
'''

ASV_BENCH = '''
from .common import DATA, FACTOR


class TimeSuite:
    params = [[1, 3], ["a"]]
    param_names = ["times", "s"]

    def setup(self, times, s):
        self.data = DATA * times * FACTOR

    def teardown(self, times, s):
        del self.data

    def time_loop(self, times, s):
        for _ in self.data:
            pass

    def track_size(self, times, s):
        return len(self.data)

    track_size.unit = "items"


class Cached:
    number = 10
    repeat = 3

    def setup_cache(self):
        return DATA

    def time_cached(self, data):
        for _ in range(FACTOR):
            for _ in data:
                pass

    def peakmem_copy(self, data):
        list(data)


def time_plain():
    for _ in range(FACTOR):
        for _ in DATA:
            pass


class NotForSlow:
    def setup(self):
        if FACTOR == 2:
            raise NotImplementedError("not on this variant")

    def time_nothing(self):
        pass
'''


@pytest.mark.slow
def test_an_asv_suite_runs_unchanged_across_two_environments(run_cli: Any, tmp_path: Path) -> None:
    bench = tmp_path / "proj" / "benchmarks"
    bench.mkdir(parents=True)
    (bench / "__init__.py").write_text("", encoding="utf-8")
    (bench / "common.py").write_text(ASV_COMMON, encoding="utf-8")
    (bench / "bench_loops.py").write_text(ASV_BENCH, encoding="utf-8")
    out = tmp_path / "run.json"
    proc = run_cli("asv", "benchmarks", "--env", "", "--env", "PB_SLOW=1", "-n", "base", "-n", "slow",
                   "--runs", "6", *FAST, "--export-json", str(out), cwd=bench.parent, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = load_run(out)
    names = [b.name for b in run.benchmarks]
    assert names == ["bench_loops.Cached.peakmem_copy", "bench_loops.Cached.time_cached", "bench_loops.NotForSlow.time_nothing",
                     "bench_loops.TimeSuite.time_loop(1, 'a')", "bench_loops.TimeSuite.time_loop(3, 'a')",
                     "bench_loops.TimeSuite.track_size(1, 'a')", "bench_loops.TimeSuite.track_size(3, 'a')",
                     "bench_loops.time_plain"]
    assert {b.kind for b in run.benchmarks} == {"asv"}
    for name in ("bench_loops.Cached.time_cached", "bench_loops.TimeSuite.time_loop(3, 'a')", "bench_loops.time_plain"):
        assert time_ratio(run, name) > 1.3, name
    failed = [(n.benchmark, n.variant) for n in run.notices if n.kind == "benchmark-failed"]
    assert failed == [("bench_loops.NotForSlow.time_nothing", "slow")]
    assert "setup raised NotImplementedError" in flat(proc)
    assert run.metadata["asv"]["skipped"] == 0
    # track_*: the number it returns, once per process, compared like a time (larger is worse)
    sizes = {(s.variant, s.value) for s in run.samples if s.benchmark == "bench_loops.TimeSuite.track_size(3, 'a')"}
    assert sizes == {("base", 6000.0), ("slow", 12000.0)}
    track = run.benchmark("bench_loops.TimeSuite.track_size(3, 'a')")
    assert [(m.name, m.unit) for m in track.metrics] == [("value", "items")]
    assert next(c.verdict for c in run.comparisons if c.benchmark == track.name) == "slower"


LIB_V1 = "DATA = [None] * 3000\n\n\ndef work():\n    for _ in DATA:\n        pass\n    return 1\n"
LIB_V2 = LIB_V1.replace("for _ in DATA:", "for _ in DATA * 2:")  # twice the work: >= 30% slower
PYPROJECT = ('[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n'
             '[project]\nname = "fastlib"\nversion = "1.0"\n')


def git_project(where: Path) -> Path:
    """A git repository of a small installable project: `main` has fastlib.work, HEAD makes it twice as slow."""
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(where), *args], check=True, capture_output=True, timeout=60)

    (where / "src" / "fastlib").mkdir(parents=True)
    (where / "bench").mkdir()
    (where / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (where / "src" / "fastlib" / "__init__.py").write_text(LIB_V1, encoding="utf-8")
    (where / "bench" / "test_lib.py").write_text(
        "from fastlib import work\n\n\ndef test_work(benchmark):\n    assert benchmark(work) == 1\n", encoding="utf-8")
    git("init", "-q", "-b", "main")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "fast")
    git("checkout", "-q", "-b", "slower")
    (where / "src" / "fastlib" / "__init__.py").write_text(LIB_V2, encoding="utf-8")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "slow")
    return where


@pytest.mark.slow
def test_git_refs_are_built_into_their_own_environments(run_cli: Any, tmp_path: Path) -> None:
    repo = git_project(tmp_path / "proj")
    out = tmp_path / "run.json"
    proc = run_cli("pytest", "bench", "--git", "main", "--git", "HEAD", "--cache-dir", str(tmp_path / "cache"),
                   "--runs", "6", *FAST, "--export-json", str(out), cwd=repo, timeout=600)
    if proc.returncode == 1 and "satisfies the requirement setuptools" in proc.stderr:
        pytest.skip("pip cannot reach the package index for the build's setuptools")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = load_run(out)
    assert [v.name for v in run.variants] == ["main", "HEAD"]
    heads = {v.name: v.meta["git_commit"] for v in run.variants}
    assert heads["main"] != heads["HEAD"]
    # each ref's own environment, with the project installed from that ref (not the checkout's src/)
    assert all(shlex.split(v.command)[0].endswith("/src/.pairbench-env/bin/python") for v in run.variants)
    assert "building main" in proc.stderr and "building HEAD" in proc.stderr
    assert time_ratio(run, "bench/test_lib.py::test_work") > 1.3


ASV_KINDS = '''
import os
import time

FACTOR = 2 if os.environ.get("PB_SLOW") == "1" else 1
CALLS = []


def setup(*params):
    CALLS.append("module")  # asv: a module-level setup runs before each benchmark's own


def timeraw_import():
    # asv: the returned code runs in a fresh interpreter; its time (not the interpreter's start-up) is the sample
    return "import os\\nfor _ in range(40000 * %d): pass" % FACTOR


def timeraw_with_setup():
    return "for _ in data: pass", "data = [None] * (40000 * %d)" % FACTOR


def peakmem_list():
    [0] * (4000000 * FACTOR)  # 32 MB, 64 MB on the slow variant


def mem_list():
    return [0] * (1000 * FACTOR)


def time_sleeps_past_its_timeout():
    time.sleep(1.0)


time_sleeps_past_its_timeout.timeout = 0.3


def time_plain():
    assert CALLS and CALLS[-1] == "own", CALLS  # both setups ran, the module's first
    for _ in range(2000 * FACTOR):
        pass


def _own():
    CALLS.append("own")


time_plain.setup = _own


def time_not_this_one():
    pass


time_not_this_one.skip_benchmark = True  # asv_runner's @skip_benchmark


def renamed():
    for _ in range(2000 * FACTOR):
        pass


renamed.benchmark_name = "bench_kinds.time_renamed"  # asv: the name, and its last part the kind


class WithObjects:
    params = [[(object(),)]]  # named without its address, as asv names it: the same name in every process

    def time_nothing(self, obj):
        pass


class Popping:
    """asv: with `number` given, setup runs before each repeat and `number` calls are timed."""
    number = 1
    params = [1, 2]
    param_names = ["k"]

    def setup(self, k):
        self.data = list(range(3000 * FACTOR))

    def time_sort_in_place(self, k):
        self.data.sort(reverse=True)
        self.data.pop()  # fails once the 3000 items are gone: the setup must run again
'''


@pytest.mark.slow
def test_asv_timeraw_peakmem_mem_number_and_timeout(run_cli: Any, tmp_path: Path) -> None:
    bench = tmp_path / "proj" / "benchmarks"
    bench.mkdir(parents=True)
    (bench / "bench_kinds.py").write_text(ASV_KINDS, encoding="utf-8")
    out = tmp_path / "run.json"
    proc = run_cli("asv", "benchmarks", "--env", "", "--env", "PB_SLOW=1", "-n", "base", "-n", "slow",
                   "--runs", "6", *FAST, "--export-json", str(out), cwd=bench.parent, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = load_run(out)
    names = [b.name for b in run.benchmarks]
    assert names == ["bench_kinds.Popping.time_sort_in_place(1)", "bench_kinds.Popping.time_sort_in_place(2)",
                     "bench_kinds.WithObjects.time_nothing((<object object>,))",
                     "bench_kinds.mem_list", "bench_kinds.peakmem_list", "bench_kinds.time_renamed",
                     "bench_kinds.time_plain",
                     "bench_kinds.time_sleeps_past_its_timeout", "bench_kinds.timeraw_import",
                     "bench_kinds.timeraw_with_setup"]
    assert run.metadata["asv"]["skipped"] == 0
    failed = [(n.benchmark, n.variant) for n in run.notices if n.kind == "benchmark-failed"]
    assert failed == [("bench_kinds.time_sleeps_past_its_timeout", "base"),
                      ("bench_kinds.time_sleeps_past_its_timeout", "slow")]
    assert "timed out after 0.3 s (its timeout)" in flat(proc)
    for name in ("bench_kinds.Popping.time_sort_in_place(1)", "bench_kinds.time_plain", "bench_kinds.time_renamed", "bench_kinds.timeraw_import",
                 "bench_kinds.timeraw_with_setup", "bench_kinds.mem_list", "bench_kinds.peakmem_list"):
        assert next(c.verdict for c in run.comparisons if c.benchmark == name) == "slower", name
    assert run.benchmark("bench_kinds.Popping.time_sort_in_place(1)").options["loops"] == 1  # its number
    assert run.benchmark("bench_kinds.timeraw_import").options["loops"] == 1  # asv's default number for timeraw_
    for name in ("bench_kinds.mem_list", "bench_kinds.peakmem_list"):
        assert [(m.name, m.unit) for m in run.benchmark(name).metrics] == [("value", "bytes")]
    peak = {s.variant: s.value for s in run.samples if s.benchmark == "bench_kinds.peakmem_list"}
    assert 32e6 < peak["base"] < peak["slow"] - 25e6  # the process's peak resident size, in bytes
    sizes = {s.variant: s.value for s in run.samples if s.benchmark == "bench_kinds.mem_list"}
    assert 8000 <= sizes["base"] < 9000 and 16000 <= sizes["slow"] < 17000  # asv's size of a copy of the object


OPTIONS_SUITE = '''
import gc
import time

import pytest

SEEN = set()


def record_gc():
    SEEN.add(gc.isenabled())
    return 1


@pytest.mark.benchmark(disable_gc=True, min_rounds=5, group="gc")
def test_disable_gc_is_honoured(benchmark):
    SEEN.clear()
    assert benchmark(record_gc) == 1
    assert SEEN == {False}, SEEN
    assert gc.isenabled()


@pytest.mark.benchmark(timer=time.process_time)
def test_timer_is_honoured(benchmark):
    benchmark(time.sleep, 0.005)  # asleep, the process's CPU clock barely moves


def test_pedantic_warmup_rounds(benchmark):
    calls = []
    benchmark.pedantic(calls.append, args=(1,), rounds=3, iterations=1, warmup_rounds=2)
    assert len(calls) >= 1 + 2


def test_codspeed_decorator_style(benchmark):
    @benchmark
    def result():
        return sum(range(100))

    assert result == 4950
'''


@pytest.mark.slow
def test_marker_options_required_plugins_and_codspeed_style(run_cli: Any, tmp_path: Path) -> None:
    suite = tmp_path / "proj"
    suite.mkdir()
    (suite / "test_options.py").write_text(OPTIONS_SUITE, encoding="utf-8")
    # a project that requires pytest-benchmark: pairbench stands in for it, the run must not stop there
    (suite / "pytest.ini").write_text("[pytest]\nrequired_plugins = pytest-benchmark>=4\naddopts = --benchmark-disable-gc\n",
                                      encoding="utf-8")
    out = tmp_path / "run.json"
    proc = run_cli("pytest", "test_options.py", "--env", "", "--env", "X=1", "--runs", "2", "--samples", "3",
                   "--loops", "20", "--clock", "wall", "--seed", "1", "--no-progress", "--export-json", str(out), cwd=suite, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = load_run(out)
    assert [n.message for n in run.notices if n.kind == "benchmark-failed"] == []
    assert len(run.benchmarks) == 4
    per_op = [s.value for s in run.samples if s.benchmark == "test_options.py::test_timer_is_honoured"
              and s.metric == "time_per_op"]
    assert per_op and max(per_op) < 0.002  # the wall clock would read >= 5 ms per call


@pytest.mark.slow
def test_asv_benchmarks_beside_a_checkout_use_the_installed_project(run_cli: Any, tmp_path: Path) -> None:
    """An sdist's layout (`benchmarks/` next to `mylib/`): the variant's installed mylib is measured, not the source."""
    proj = tmp_path / "proj"
    for where, version in ((proj, 0), (tmp_path / "inst1", 1), (tmp_path / "inst2", 2)):
        (where / "mylib").mkdir(parents=True)
        (where / "mylib" / "__init__.py").write_text(f"VERSION = {version}\n", encoding="utf-8")
    (proj / "benchmarks").mkdir()
    (proj / "benchmarks" / "__init__.py").write_text("", encoding="utf-8")
    (proj / "benchmarks" / "bench_version.py").write_text(
        "import mylib\n\n\ndef track_version():\n    return mylib.VERSION\n", encoding="utf-8")
    out = tmp_path / "run.json"
    proc = run_cli("asv", "benchmarks", "--env", f"PYTHONPATH={tmp_path / 'inst1'}", "--env",
                   f"PYTHONPATH={tmp_path / 'inst2'}", "-n", "one", "-n", "two", "--runs", "1", *FAST,
                   "--export-json", str(out), cwd=proj, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert {(s.variant, s.value) for s in load_run(out).samples} == {("one", 1.0), ("two", 2.0)}
