"""The pytest runner without processes: a scripted worker reads the request and answers per test."""

from __future__ import annotations

import json
from typing import Any, Mapping

from pairbench.model import Benchmark, Variant
from pairbench.runners.pytest import PYTEST_METRICS
from pairbench.runners.pytest.runner import PytestRunner

IDS = ("t.py::test_a", "t.py::test_b")
VARIANTS = [Variant(name="base", command="python3", baseline=True), Variant(name="new", command="python3")]


def bench(nodeid: str) -> Benchmark:
    return Benchmark(nodeid, "pytest", PYTEST_METRICS, {"nodeid": nodeid, "paths": ["t.py"], "args": [],
                                                         "samples": 3, "warmup": 1, "target_time": 0.1})


class Worker:
    """Answers like the plugin: test_b fails under variant `new` (told by its env)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, list[str]]] = []

    def __call__(self, argv: list[str], env: Mapping[str, str], cwd: str | None, timeout: float) -> tuple[int, str, str]:
        with open(env["PAIRBENCH_PYTEST_REQUEST"], encoding="utf-8") as f:
            req = json.load(f)
        self.calls.append((req["mode"], env.get("WHO", ""), sorted(req.get("tests", {}))))
        lines: list[dict[str, Any]] = []
        for nodeid, spec in req.get("tests", {}).items():
            if nodeid == IDS[1] and env.get("WHO") == "new":
                lines.append({"nodeid": nodeid, "ok": False, "error": "AssertionError: assert 1 == 2"})
            elif req["mode"] == "calibrate":
                lines.append({"nodeid": nodeid, "ok": True, "loops": 100, "time": 0.1})
            else:
                per_op = 2e-6 if env.get("WHO") == "new" else 1e-6
                lines.append({"nodeid": nodeid, "ok": True, "loops": spec["loops"], "warmup": [per_op * 100],
                              "samples": [per_op * 100] * req["samples"]})
        with open(req["answer"], "w", encoding="utf-8") as f:
            f.writelines(json.dumps(line) + "\n" for line in lines)
        return (1 if any(not line["ok"] for line in lines) else 0), "", ""


def test_one_worker_per_variant_and_block_runs_every_test_and_a_failure_stays_with_its_variant() -> None:
    worker = Worker()
    runner = PytestRunner(seed=1, spawn=worker)
    variants = [Variant(name=v.name, command=v.command, baseline=v.baseline, env={"WHO": v.name}) for v in VARIANTS]
    benchmarks = [bench(i) for i in IDS]
    assert runner.calibrate(benchmarks, variants) == []
    assert [runner.loops(b) for b in benchmarks] == [100, 100]
    assert worker.calls == [("calibrate", "base", sorted(IDS))]
    reps = {(b.name, v.name, block): runner.measure(b, v, block, False, lambda _: None)
            for block in range(2) for b in benchmarks for v in variants}
    timed = [c for c in worker.calls if c[0] == "time"]
    assert timed == [("time", "base", sorted(IDS)), ("time", "new", sorted(IDS)),
                     ("time", "base", sorted(IDS)), ("time", "new", [IDS[0]])]  # the failed test is not run again
    a_new = reps[(IDS[0], "new", 0)]
    values = [s.value for s in a_new.samples if s.metric == "time_per_op" and not s.warmup]
    assert values == [2e-6] * 3
    b_new = [reps[(IDS[1], "new", block)] for block in range(2)]
    assert all(r.failed for r in b_new)
    assert [n.message for r in b_new for n in r.notices] == [
        "pytest benchmark 't.py::test_b' on variant 'new': AssertionError: assert 1 == 2"]
    assert not reps[(IDS[1], "base", 1)].failed
