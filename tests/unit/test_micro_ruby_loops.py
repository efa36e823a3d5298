"""A Ruby benchmark with a loop_count that fails while calibrating is pointed at --loops file."""

from __future__ import annotations

import json
from typing import Any, Mapping

from pairbench.model import Benchmark, Variant
from pairbench.runners.micro import MARKER, MicroRunner, micro_metrics


def failing_calibration(argv: list[str], stdin: str, env: Mapping[str, str], cwd: str | None,
                        timeout: float) -> tuple[int, str, str]:
    request = json.loads(stdin)
    data: dict[str, Any] = {"ok": True, "implementation": "ruby", "version": "3.1.2"}
    if request["mode"] == "calibrate":
        data = {"ok": False, "stage": "run", "error": "NoMethodError: undefined method `each' for nil:NilClass"}
    return 0, MARKER + json.dumps(data) + "\n", ""


def bench(**options: Any) -> Benchmark:
    return Benchmark("io_close", "micro", micro_metrics("ruby"),
                     {"language": "ruby", "file": "/b/io_close.yml", "index": 0, **options})


def test_a_calibration_failure_of_a_benchmark_with_loop_count_suggests_loops_file() -> None:
    runner = MicroRunner(spawn=failing_calibration)
    (notice,) = runner.prepare(bench(loop_count=100), [Variant("ruby", command="ruby", baseline=True)])
    assert "undefined method `each' for nil" in notice.message
    assert "loop_count: 100" in notice.hint and "--loops file" in notice.hint


def test_without_loop_count_the_hint_is_the_usual_one() -> None:
    runner = MicroRunner(spawn=failing_calibration)
    (notice,) = runner.prepare(bench(), [Variant("ruby", command="ruby", baseline=True)])
    assert "--loops file" not in notice.hint
