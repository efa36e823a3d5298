"""The one interface every runner kind implements."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

from pairbench.model import Benchmark, Notice, ProcessSeries, Profile, Sample, Variant

__all__ = ["Runner", "Replicate", "Profiled", "ProgressFn"]

ProgressFn = Callable[[str], None]
"""Called by runners with a short live status (for example current req/s)."""


@dataclass(slots=True)
class Replicate:
    """What one measurement of a variant returned: its samples and anything worth a warning."""

    samples: list[Sample] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    failed: bool = False
    """True when this replicate could not be measured (its notices say why); others go on."""
    series: ProcessSeries | None = None
    """The process's per-batch times (micro), which its steady state is classified from."""


@dataclass(frozen=True, slots=True)
class Profiled:
    """What one profiled run returned (`--profile`): its stacks, or why there are none.

    A runner that can profile has a method `profile(benchmark, variant, block, progress) ->
    Profiled` beside the protocol's three (runners/profiling.py calls it); a problem is a notice,
    never an exception, so the timed verdict is never lost to a profiler.
    """

    profile: Profile | None = None
    notice: Notice | None = None
    stop: bool = False
    """Profiling this benchmark cannot work (no sampler, not permitted): do not ask again."""


class Runner(Protocol):
    """Measures one benchmark kind.

    A runner may set `batched = True` when the first replicate it is asked for in a block measures
    that variant's other benchmarks too (runners/pytest: one pytest process per variant and
    block); the session then sizes --max-time by whole blocks, not by single steps.
    """

    def prepare(self, benchmark: Benchmark, variants: list[Variant]) -> list[Notice]:
        """Check and set up before anything is measured (raise UserError for bad input).

        Calibration that must be shared by all variants (loop counts, shell overhead) happens here.
        """
        ...

    def measure(
        self, benchmark: Benchmark, variant: Variant, block: int, warmup: bool, progress: ProgressFn
    ) -> Replicate:
        """Measure one replicate (one process, one server start) and return its samples."""
        ...

    def close(self) -> None:
        """Release everything (stop servers, kill children); safe to call twice."""
        ...
