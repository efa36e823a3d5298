"""Typed options of kind "micro", parsed once from a mapping (a suite table, or flags)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

from pairbench.runners.counters import RUSAGE_COUNTERS
from pairbench.runners.instructions import MEASURES, measure_option
from pairbench.runners.option_fields import (
    Where,
    check_keys,
    read_bool,
    read_choice,
    read_int,
    read_number,
    read_string,
    read_strings,
)

__all__ = ["MicroOptions", "parse_micro_options", "MICRO_LANGUAGES"]


MICRO_MEASURES: tuple[str, ...] = tuple(n for n in MEASURES if n not in RUSAGE_COUNTERS)
"""What micro's --measure may name: a process's rusage (faults, switches) is not per operation."""


def micro_measures(names: tuple[str, ...]) -> tuple[str, ...]:
    """The names measured per operation: `counters` brings the rusage counters, which micro leaves out."""
    return tuple(n for n in names if n not in RUSAGE_COUNTERS)


@dataclass(frozen=True, slots=True)
class MicroOptions:
    """A snippet or function timed in a loop in each variant's interpreter (runners/micro/runner.py)."""

    language: str = "python"
    file: str | None = None
    """Benchmark file; absent for a SETUP/STMT snippet."""
    func: str | None = None
    """Python: the bench_* function of `file`."""
    index: int | None = None
    """Ruby: the position of the benchmark in the YAML file."""
    script: bool = False
    """Ruby: `file` is a whole .rb script, run once per process (one sample per replicate)."""
    param: int | None = None
    param_repr: str | None = None
    loop_count: int | None = None
    setup: str = ""
    stmt: str | None = None
    loops: int | None = None
    """A fixed loop count per sample (skips calibration)."""
    samples: int | None = None
    """Measured samples per process; unset: 5 in the first 3 blocks, then the number that narrows
    the interval fastest, from the spread within and between processes and their costs."""
    warmup: int | None = None
    """Warm-up samples per process, discarded; unset: by interpreter, 1 on CPython, 2 where a JIT
    warms up (PyPy, Ruby)."""
    target_time: float = 0.1
    """Seconds per sample the loop count is calibrated to."""
    clock: str = "auto"
    """auto (wall time for coroutines and pyperf benchmarks, CPU time otherwise), cpu or wall."""
    alloc: bool = True
    """Count allocations in a separate pass."""
    argv: tuple[str, ...] = ()
    """Python: the arguments a pyperf script is run with (pyperformance's `extra_opts`)."""
    requires_python: str | None = None
    """Python: the versions that may run it (`>=3.12`); other interpreters skip it, as pyperformance does."""
    requires_from: str | None = None
    """The file that gave requires_python, named when an interpreter skips the benchmark."""
    measure: tuple[str, ...] = ("time",)
    """`time` and/or `instructions` (per op, counted: runners/micro/counted.py); the first is primary."""


MICRO_LANGUAGES: tuple[str, ...] = ("python", "ruby")


def parse_micro_options(m: Mapping[str, Any], where: Where) -> MicroOptions:
    """Typed micro options: a file (with func or index) or a statement, and the sample plan."""
    check_keys(m, tuple(f.name for f in dataclasses.fields(MicroOptions)), where, "micro")
    opts = MicroOptions(
        language=read_choice(m, "language", where, MICRO_LANGUAGES),
        file=read_string(m, "file", where, None, empty=False),
        func=read_string(m, "func", where, None, empty=False),
        index=read_int(m, "index", where, None, 0),
        script=read_bool(m, "script", where, False),
        param=read_int(m, "param", where, None, 0),
        param_repr=read_string(m, "param_repr", where, None),
        loop_count=read_int(m, "loop_count", where, None, 1),
        setup=read_string(m, "setup", where, "") or "",
        stmt=read_string(m, "stmt", where, None, empty=False),
        loops=read_int(m, "loops", where, None, 1),
        samples=read_int(m, "samples", where, None, 2),
        warmup=read_int(m, "warmup", where, None, 0),
        target_time=read_number(m, "target_time", where, 0.1, positive=True) or 0.1,
        clock=read_choice(m, "clock", where, ("auto", "cpu", "wall")),
        alloc=read_bool(m, "alloc", where, True),
        argv=read_strings(m, "argv", where),
        requires_python=read_string(m, "requires_python", where, None, empty=False),
        requires_from=read_string(m, "requires_from", where, None),
        measure=micro_measures(measure_option(m, where, MICRO_MEASURES)),
    )
    if opts.requires_python is not None:
        from pairbench.runners.micro.python_spec import check_requires_python
        try:
            check_requires_python(opts.requires_python)
        except ValueError as exc:
            raise where.fail("requires_python", f"requires_python {opts.requires_python!r}: {exc}") from None
    if (opts.file is None) == (opts.stmt is None):
        raise where.fail(None, "a micro benchmark needs either stmt (with an optional setup) or file, exactly one")
    if opts.file is not None and opts.language == "python" and opts.func is None:
        raise where.fail(None, "a Python benchmark file needs func, the bench_* function to time")
    if opts.script and (opts.language != "ruby" or opts.file is None):
        raise where.fail("script", "a script benchmark is a Ruby .rb file: it needs language ruby and file")
    if opts.script and "instructions" in opts.measure:
        raise where.fail("measure", "a whole Ruby script runs once per process, so it has no count per "
                         "operation; count it with `pairbench cmd --measure instructions 'ruby FILE'`")
    if opts.file is not None and opts.language == "ruby" and opts.index is None and not opts.script:
        raise where.fail(None, "a Ruby benchmark file needs index, the position of the benchmark in it")
    return opts
