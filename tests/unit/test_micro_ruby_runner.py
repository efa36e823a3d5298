"""MicroRunner's Ruby side with a scripted worker: no processes are started."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from pairbench.model import Benchmark, Variant
from pairbench.runners.micro import MicroRunner, micro_metrics
from tests.unit.test_micro_runner import FakeWorkers, answer

RA = Variant("ruby", command="ruby", baseline=True)
RB = Variant("yjit", command="ruby --yjit")


def ruby_bench(name: str, index: int, **options: Any) -> Benchmark:
    return Benchmark(name, "micro", micro_metrics("ruby"),
                     {"language": "ruby", "file": "/b/many.yml", "index": index, "target_time": 0.01, **options})


def ruby_answer(request: dict[str, Any]) -> str:
    if request["mode"] == "time":
        loops = request["loops"]
        return answer(loops=loops, warmup=[], samples=[1e-6 * loops] * request["samples"], overhead=0.0)
    return answer(loops=1000, time=0.01)


def test_ruby_workers_share_one_run_directory_that_close_removes(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seen: list[bool] = []

    def script(argv: list[str], request: dict[str, Any]) -> str:
        seen.append(os.path.isdir(request["run_dir"]))
        return ruby_answer(request)

    workers = FakeWorkers(script)
    runner = MicroRunner(samples=2, warmup=0, spawn=workers)
    bench = ruby_bench("a", 0)
    runner.prepare(bench, [RA, RB])
    for v in (RA, RB, RA):
        runner.measure(bench, v, 0, False, lambda _: None)
    dirs = {req["run_dir"] for _, req in workers.calls}
    assert len(dirs) == 1 and all(seen) and len(seen) == len(workers.calls) >= 5
    (run_dir,) = dirs
    assert Path(run_dir).parent == tmp_path
    runner.close()
    assert not os.path.exists(run_dir)
    assert list(tmp_path.iterdir()) == []


def batch_script(argv: list[str], request: dict[str, Any]) -> str:
    if request["mode"] == "calibrate" and "indexes" in request:
        items = [{"index": i, "loops": 100 * (i + 1), "time": 0.01} if i != 1 else {"index": i, "error": "boom"}
                 for i in request["indexes"]]
        return answer(calibrations=items)
    return ruby_answer(request)


def test_the_benchmarks_of_one_ruby_file_are_calibrated_in_one_worker_on_the_baseline() -> None:
    workers = FakeWorkers(batch_script)
    runner = MicroRunner(samples=2, warmup=0, spawn=workers)
    benches = [ruby_bench(name, i) for i, name in enumerate("abc")]
    alone = Benchmark("other", "micro", micro_metrics("ruby"),
                      {"language": "ruby", "file": "/b/other.yml", "index": 0})
    fixed = ruby_bench("fixed", 3, loops=7)
    runner.calibrate_files([*benches, alone, fixed], [RA, RB])
    batches = [(argv, req) for argv, req in workers.calls if req["mode"] == "calibrate"]
    assert len(batches) == 1
    argv, req = batches[0]
    assert argv[0] == "ruby" and req["indexes"] == [0, 1, 2] and req["file"] == "/b/many.yml"
    assert req["target"] == 0.01 and "index" not in req
    assert runner.loops(benches[0]) == 100 and runner.loops(benches[2]) == 300
    # what failed in the batch is calibrated alone (and reports its own error there); the rest is done
    before = len(workers.calls)
    for b in [*benches, alone, fixed]:
        runner.prepare(b, [RA, RB])
    alone_calls = [req for _, req in workers.calls[before:] if req["mode"] == "calibrate"]
    assert [(r.get("index"), r["file"]) for r in alone_calls] == [(1, "/b/many.yml"), (0, "/b/other.yml")]
    assert runner.loops(benches[1]) == 1000 and runner.loops(fixed) == 7


def test_no_batch_when_the_baseline_cannot_run() -> None:
    def script(argv: list[str], request: dict[str, Any]) -> str:
        if argv[0] == "ruby" and "--yjit" not in argv:
            return answer(ok=False, error="broken ruby")
        return batch_script(argv, request)

    workers = FakeWorkers(script)
    runner = MicroRunner(samples=2, warmup=0, spawn=workers)
    runner.calibrate_files([ruby_bench(n, i) for i, n in enumerate("ab")], [RA, RB])
    assert [req["mode"] for _, req in workers.calls] == ["probe"]


def test_a_ruby_script_worker_may_run_for_minutes_and_then_as_long_as_the_longest_seen() -> None:
    timeouts: list[float] = []

    def spawn(argv: list[str], stdin: str, env: Any, cwd: Any, timeout: float) -> tuple[int, str, str]:
        timeouts.append(timeout)
        return 0, answer(loops=1, warmup=[], samples=[40.0], overhead=0.0), ""

    runner = MicroRunner(samples=2, warmup=0, spawn=spawn)
    script = Benchmark("app_aobench", "micro", micro_metrics("ruby"),
                       {"language": "ruby", "file": "/b/app_aobench.rb", "script": True, "loops": 1,
                        "target_time": 0.001})
    runner.prepare(script, [RA])
    rep = runner.measure(script, RA, 0, False, lambda _: None)
    assert not rep.failed
    runner.measure(script, RA, 1, False, lambda _: None)
    # the first: 10 minutes, not the minute a calibrated 1 ms sample gets; then sized by the 40 s seen
    assert timeouts[1] >= 600 and timeouts[2] >= 30 * 40


def test_the_code_a_ruby_listing_read_is_handed_to_later_workers() -> None:
    source = {"prelude": "s = 'x'", "items": [{"name": "a", "script": "s.size"}], "teardown": ""}

    def script(argv: list[str], request: dict[str, Any]) -> str:
        if request["mode"] == "list":
            return answer(benchmarks=[{"name": "a", "index": 0}], source=source)
        return ruby_answer(request)

    workers = FakeWorkers(script)
    runner = MicroRunner(samples=2, warmup=0, spawn=workers)
    items, error = runner.list_benchmarks("/b/many.yml", "ruby", [RA, RB])
    assert error == "" and [i["name"] for i in items] == ["a"]
    bench = ruby_bench("a", 0)
    runner.prepare(bench, [RA, RB])
    runner.measure(bench, RB, 0, False, lambda _: None)
    later = [req for _, req in workers.calls if req["mode"] in ("calibrate", "time")]
    assert len(later) == 2 and all(req["source"] == source for req in later)
    # another file's workers read their own file
    other = Benchmark("o", "micro", micro_metrics("ruby"), {"language": "ruby", "file": "/b/other.yml", "index": 0})
    runner.prepare(other, [RA])
    assert "source" not in workers.calls[-1][1]


def test_a_ruby_prelude_that_prepares_data_for_a_minute_is_not_killed() -> None:
    # so_reverse_complement.yml's prelude writes a 25 MB fasta file first: over a minute here
    timeouts: dict[str, list[float]] = {}

    def spawn(argv: list[str], stdin: str, env: Any, cwd: Any, timeout: float) -> tuple[int, str, str]:
        request = json.loads(stdin)
        timeouts.setdefault(request["mode"], []).append(timeout)
        if request["mode"] == "calibrate":
            return 0, answer(loops=10, time=0.001, setup=100.0), ""
        return 0, ruby_answer(request), ""

    runner = MicroRunner(samples=2, warmup=0, spawn=spawn)
    bench = ruby_bench("so_reverse_complement", 0, target_time=0.001)
    runner.prepare(bench, [RA, RB])
    runner.measure(bench, RB, 0, False, lambda _: None)
    assert timeouts["calibrate"][0] >= 600
    # each measuring worker runs the prelude again: its time is part of the worker's allowance
    assert timeouts["time"][0] >= 60 + 2 * 100
