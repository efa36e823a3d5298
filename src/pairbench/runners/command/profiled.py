"""A profiled run of a benchmark's command (`--profile`): the same command line as a timed run,
under the sampler runners/samplers.py chooses for the benchmark, not timed.

What can go wrong becomes one notice and stops profiling that benchmark (runners/base.py
`Profiled`): no sampler installed (the command that installs one), ptrace not permitted (how
to allow it), the sampler failing (its last words).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pairbench.model import Benchmark, Notice, Profile, Variant
from pairbench.runners.base import Profiled
from pairbench.runners.command.invocation import expand_command
from pairbench.runners.command.shells import executable_word

if TYPE_CHECKING:
    from pairbench.runners.samplers import Sampler, SamplerMissing
    from pairbench.runners.command.runner import CommandRunner

__all__ = ["CommandProfiler", "PROFILED_TIMEOUT_FACTOR", "profiled_executables"]

PROFILED_TIMEOUT_FACTOR = 100
"""A profiled run may take this many times --timeout (callgrind runs programs 20-60x slower)."""

SHORT_RUN_S = 0.2
"""A run shorter than this gives a 250 Hz sampler under 50 samples, or ends before py-spy attaches."""
_GONE_WORDS = ("No python processes found", "Failed to find python version")
"""py-spy's words for a process that ended before it attached."""
_PTRACE_WORDS = ("Operation not permitted", "Permission denied", "ptrace")


def profiled_executables(benchmark: Benchmark, variants: list[Variant]) -> list[str]:
    """The program each variant's command line runs, which decides the sampler.

    The benchmark's command as expanded, not the variant's own: a suite's `python3 x.py {variant}`
    with variants `base` and `slower` is a Python program. The variant's resolved executable
    (its run file's `meta`) stands for its first word when the line starts with it.
    """
    template = str(benchmark.options.get("command", "{variant}"))
    out = []
    for v in variants:
        command = expand_command(template, v)
        word = executable_word(command) or (command.split() or [""])[0]
        own = executable_word(v.command or "")
        out.append(str(v.meta.get("executable") or word) if word == own else word)
    return out


class CommandProfiler:
    """The samplers of a command runner's benchmarks, chosen on first use, and their profiled runs."""

    def __init__(self) -> None:
        self._samplers: dict[str, Sampler | SamplerMissing] = {}
        self._executables: dict[str, list[str]] = {}

    def prepare(self, benchmark: Benchmark, variants: list[Variant]) -> None:
        self._executables[benchmark.name] = profiled_executables(benchmark, variants)

    def profile(self, runner: CommandRunner, benchmark: Benchmark, variant: Variant, block: int) -> Profiled:
        """Run `variant`'s command once under the benchmark's sampler."""
        # the samplers load only when --profile asks for them (a timed run's start-up stays light)
        from pairbench.runners.samplers import PTRACE_HINT, STACKPROF_INSTALL, SamplerMissing, choose_sampler

        chosen = self._samplers.get(benchmark.name)
        first = chosen is None
        if chosen is None:
            chosen = self._samplers[benchmark.name] = choose_sampler(self._executables.get(benchmark.name, []))
        if isinstance(chosen, SamplerMissing):
            return Profiled(notice=Notice("profile", f"no profile: {chosen.reason}", chosen.hint, benchmark.name),
                            stop=True)
        opts = benchmark.options
        command = expand_command(str(opts.get("command", "{variant}")), variant)
        prepare = variant.meta.get("prepare") or opts.get("prepare")
        if prepare:
            runner._run_hook("prepare", expand_command(str(prepare), variant), variant, benchmark)
        run_command, path_first = runner._shims.get((benchmark.name, variant.name), (command, ""))
        timeout = opts.get("timeout")
        outcome = runner._run(run_command, variant, shell=runner._shell_for(benchmark, variant),
                              timeout=float(timeout) * PROFILED_TIMEOUT_FACTOR if timeout else None,
                              path_first=path_first, keep_stdout=False, counter=chosen)
        conclude = variant.meta.get("conclude") or opts.get("conclude")
        if conclude:
            runner._run_hook("conclude", expand_command(str(conclude), variant), variant, benchmark)
        tail = " ".join((outcome.stderr.tail or "").split("Stack backtrace")[0].split())[-300:]
        try:
            stacks = chosen.read()
        except (OSError, ValueError) as exc:
            if (outcome.wall < SHORT_RUN_S and outcome.exit_code == 0) or any(w in tail for w in _GONE_WORDS):
                return Profiled(notice=Notice(
                    "profile", f"no profile: `{command}` ended before {chosen.name} could sample it: "
                    "the program is too short to sample",
                    f"make each run longer ({SHORT_RUN_S:g} s or more), e.g. a larger input or a loop", benchmark.name),
                    stop=True)
            if any(w in tail for w in _PTRACE_WORDS) and chosen.name == "py-spy":
                return Profiled(notice=Notice("profile", f"no profile: py-spy may not attach to `{command}` "
                                              f"(ptrace not permitted): {tail}", PTRACE_HINT, benchmark.name), stop=True)
            return Profiled(notice=Notice("profile", f"no profile: {chosen.name} failed on `{command}`: "
                                          f"{tail or exc}", "", benchmark.name), stop=True)
        note = getattr(chosen, "note", "")
        return Profiled(profile=Profile(benchmark.name, variant.name, block, chosen.name, chosen.unit,
                                        tuple(sorted(stacks.items())), seconds=outcome.wall),
                        notice=Notice("profile", note, f"install it: {STACKPROF_INSTALL}", benchmark.name)
                        if first and note else None)

    def describe(self, benchmark: str) -> str:
        """Which sampler profiled `benchmark`, and why that one."""
        chosen = self._samplers.get(benchmark)
        why = getattr(chosen, "why", "")
        return f"{getattr(chosen, 'name', '')}" + (f" ({why})" if why else "")

    def close(self) -> None:
        samplers, self._samplers = self._samplers, {}
        for s in samplers.values():
            if hasattr(s, "close"):  # a SamplerMissing has nothing to close
                s.close()
