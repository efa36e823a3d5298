"""A profiled worker of a micro benchmark (`--profile`): one timing process, as a measured
replicate runs it (the calibrated loops, no allocation pass), under the sampler
runners/samplers.py chooses for the interpreter, its samples not kept.

The profile's shares are of the whole worker (interpreter start-up, imports and the harness
beside the loop), scaled to the time per operation: the loop dominates a worker sized to the
target time, so a difference in the operation shows where it is; a fixed cost that differs
between interpreters (start-up) shows too, at a share that overstates it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pairbench.model import Benchmark, Notice, Profile, Variant
from pairbench.runners.base import Profiled
from pairbench.runners.samplers import STACKPROF_INSTALL, Sampler, SamplerMissing, choose_sampler

if TYPE_CHECKING:
    from pairbench.runners.micro.runner import MicroRunner

__all__ = ["MicroProfiler"]


class MicroProfiler:
    """The sampler of each micro benchmark, chosen on first use from its interpreter, and its profiled workers."""

    def __init__(self) -> None:
        self._samplers: dict[str, Sampler | SamplerMissing] = {}

    def profile(self, runner: MicroRunner, benchmark: Benchmark, variant: Variant, block: int) -> Profiled:
        loops = runner.loops(benchmark)
        if loops is None or (benchmark.name, variant.name) in runner._failed:
            return Profiled()  # the failure was said where it happened
        language = runner.language(benchmark)
        chosen = self._samplers.get(benchmark.name)
        first = chosen is None
        if chosen is None:
            chosen = self._samplers[benchmark.name] = choose_sampler([runner._argv(variant, language)[0]])
        if isinstance(chosen, SamplerMissing):
            return Profiled(notice=Notice("profile", f"no profile: {chosen.reason}", chosen.hint, benchmark.name),
                            stop=True)
        plan = runner.process(benchmark, variant)
        nsamples, target = plan.samples, plan.target
        request = {"mode": "time", "loops": loops, "warmup": 0, "samples": nsamples, "alloc": False,
                   "alloc_budget": 0.0, "alloc_op_s": target / max(loops, 1), **runner._spec(benchmark)}
        timeout = 120.0 + 100 * nsamples * max(target, runner._sample_s.get(benchmark.name, 0.0))
        result = runner.call(variant, language, request, timeout, wrap=chosen.wrap)
        if not result.ok:
            return Profiled(notice=Notice("profile", f"no profile: {chosen.name} failed on {variant.name!r}: "
                                          f"{' '.join(result.error.split())[:300]}", "", benchmark.name), stop=True)
        try:
            stacks = chosen.read()
        except (OSError, ValueError) as exc:
            return Profiled(notice=Notice("profile", f"no profile: {chosen.name}: {exc}", "", benchmark.name), stop=True)
        note = getattr(chosen, "note", "")
        return Profiled(profile=Profile(benchmark.name, variant.name, block, chosen.name, chosen.unit,
                                        tuple(sorted(stacks.items()))),
                        notice=Notice("profile", note, f"install it: {STACKPROF_INSTALL}", benchmark.name)
                        if first and note else None)

    def close(self) -> None:
        samplers, self._samplers = self._samplers, {}
        for s in samplers.values():
            if not isinstance(s, SamplerMissing):
                s.close()
