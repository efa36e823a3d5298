"""MicroRunner's Ruby side with a scripted worker: no processes are started."""

from __future__ import annotations

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
