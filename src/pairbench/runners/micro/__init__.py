"""Kind "micro": a snippet or function timed in a loop inside each variant's own interpreter.

    runner.py       the Runner: one worker process per replicate, loop count calibrated once
    counted.py      the runner with `--measure instructions` (instructions per op)
    worker.py       a worker's protocol: the harness it runs, its answer
    metrics.py      the metrics a benchmark yields, by language
    process_plan.py the samples one process takes, warm-up and measured
    sample_plan.py  measured samples per process, planned from the run's variance components
    warmup.py       warm-up samples per process by default, by interpreter kind
    settle.py       the warning that a JIT has not settled within its processes
    clocks.py       which clock timed it; a warning when its op waits off the CPU
    python_spec.py  requires-python version specifiers
    ruby_batch.py   Ruby calibrations batched per file
    harness/        what runs inside the interpreter (Python and Ruby; a pyperf stand-in)
    options.py      the typed options
    kind.py         its metrics and runner for the kinds table

The names other layers use are importable from here; the runner itself is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pairbench.runners.micro.metrics import micro_metrics
from pairbench.runners.micro.options import MICRO_LANGUAGES, MicroOptions, parse_micro_options
from pairbench.runners.micro.python_spec import check_requires_python
from pairbench.runners.micro.settle import unsettled
from pairbench.runners.micro.worker import HARNESS_DIR, MARKER, PY_MIN_VERSION, WorkerResult, parse_answer

if TYPE_CHECKING:
    from pairbench.runners.micro.runner import MicroRunner

__all__ = [
    "MicroRunner",
    "MicroOptions",
    "parse_micro_options",
    "MICRO_LANGUAGES",
    "micro_metrics",
    "check_requires_python",
    "WorkerResult",
    "HARNESS_DIR",
    "MARKER",
    "unsettled",
    "parse_answer",
    "PY_MIN_VERSION",
]


def __getattr__(name: str) -> Any:
    # the runner (subprocess, the Ruby batches) on first use, so that the options stay light
    if name == "MicroRunner":
        from pairbench.runners.micro.runner import MicroRunner

        return MicroRunner
    raise AttributeError(name)
