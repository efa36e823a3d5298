"""The one interface every runner kind implements."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

from pairbench.model import Benchmark, Notice, Sample, Variant

__all__ = ["Runner", "Replicate", "ProgressFn"]

ProgressFn = Callable[[str], None]
"""Called by runners with a short live status (for example current req/s)."""


@dataclass(slots=True)
class Replicate:
    """What one measurement of a variant returned: its samples and anything worth a warning."""

    samples: list[Sample] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    failed: bool = False
    """True when this replicate could not be measured (its notices say why); others go on."""


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
