"""Finding a recorded run again by a metadata tag, and reading its samples back (bisect's reuse)."""

from __future__ import annotations

from pathlib import Path

from pairbench.model import Benchmark, Metric, Run, Sample, Variant
from pairbench.store.history import open_history


def _run(tag: str, status: str = "complete", value: float = 1.0) -> Run:
    samples = [Sample("b", "v", "time", value + i, i, time=float(i)) for i in range(3)]
    samples.append(Sample("b", "v", "time", 9.0, -1, warmup=True))
    return Run(metadata={"bisect_step": tag, "hostname": "h"}, variants=[Variant("v", baseline=True)],
               benchmarks=[Benchmark("b", "command", (Metric("time"),))], samples=samples, status=status)


def test_find_run_by_tag_newest_complete_first(tmp_path: Path) -> None:
    with open_history(str(tmp_path / "h.sqlite")) as history:
        history.record(_run("abc", value=1.0))
        newest, _ = history.record(_run("abc", value=2.0))
        history.record(_run("abc", status="interrupted", value=3.0))  # a stopped step is measured again
        history.record(_run("abcd", value=4.0))  # a tag that merely starts the same is another step
        found = history.find_run("bisect_step", "abc")
        assert found is not None and found[0] == newest and found[1]["bisect_step"] == "abc"
        assert history.find_run("bisect_step", "ab") is None
        samples = history.samples(newest)
        assert [s.value for s in samples if not s.warmup] == [2.0, 3.0, 4.0]
        assert [s.value for s in samples if s.warmup] == [9.0]
        assert {(s.benchmark, s.variant, s.metric) for s in samples} == {("b", "v", "time")}
