# mypy: ignore-errors
# (part of the standalone Python worker: standard library only, no annotations, Python 3.8+)
"""pyperf's Runner API, as pairbench's Python micro worker provides it.

The worker puts its own directory first on sys.path, so `import pyperf` in a benchmark finds this
module whether or not pyperf is installed in the variant's interpreter. An installed pyperf is
shadowed on purpose: its Runner parses the process's argv, spawns its own worker processes and
prints its own results, while pairbench hands each benchmark to its own calibrated loop, with the
same code in every variant whatever each one has installed.

Each `bench_*` call describes a benchmark as a `Task` and passes it to the worker's handler, which
lists it, or (for the benchmark the worker was asked for) calibrates or times it right there,
while the script's own set-up is alive, as pyperf's worker does; the call then returns None, as
pyperf's does in a worker for a benchmark it is not running. The semantics follow
pyperf/_runner.py: a value is dt / (loops * inner_loops); `bench_time_func(name, f, *args)`
times `f(loops, *args)`, which returns seconds; `bench_func` calls `func(*args)` `loops` times;
`bench_async_func` awaits `func(*args)` `loops` times in an event loop; `bench_command` runs a
command `loops` times and times the whole process.
"""

import argparse
import platform
import sys
import time

__all__ = ["Runner", "perf_counter", "python_implementation", "python_has_jit"]

PAIRBENCH = True
"""Marks this module as pairbench's, so the worker can tell it from an installed pyperf."""

perf_counter = time.perf_counter
"""The clock benchmarks time themselves with; the worker sets it to the run's clock."""

_handler = None


def python_implementation():
    """'cpython', 'pypy', ... as pyperf spells it (lower case)."""
    return platform.python_implementation().lower()


def python_has_jit():
    """True on PyPy (with its JIT enabled), as pyperf says."""
    if python_implementation() == "pypy":
        return bool(getattr(sys, "pypy_translation_info", {}).get("translation.jit", True))
    return False


class ArgumentError(Exception):
    """A benchmark's own options did not parse (argparse would exit)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise ArgumentError("%s: %s" % (self.prog, message))

    def exit(self, status=0, message=None):
        raise ArgumentError(message or "%s exited with status %s" % (self.prog, status))


class Task(object):
    """One benchmark a script registers: what the worker needs to time it."""

    def __init__(self, name, kind, func, args=(), inner_loops=None, metadata=None, **extra):
        self.name = name
        self.kind = kind  # "time" | "func" | "async" | "command" | "stmt"
        self.func = func
        self.args = tuple(args)
        self.inner_loops = inner_loops or 1
        self.metadata = dict(metadata or {})
        self.extra = extra


def _pyperf_options(parser, min_time):
    """pyperf's own options that a script may read or receive; pairbench uses none of them."""
    parser.add_argument("--rigorous", action="store_true")
    parser.add_argument("--fast", action="store_true")
    parser.add_argument("--debug-single-value", action="store_true")
    parser.add_argument("-p", "--processes", type=int)
    parser.add_argument("-n", "--values", type=int)
    parser.add_argument("-w", "--warmups", type=int)
    parser.add_argument("-l", "--loops", type=int, default=0)
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("-q", "--quiet", action="store_true")
    parser.add_argument("-o", "--output")
    parser.add_argument("--append")
    parser.add_argument("--min-time", type=float, default=min_time)
    parser.add_argument("--timeout")
    parser.add_argument("--worker", action="store_true")
    parser.add_argument("--worker-task", type=int)
    parser.add_argument("--in-process", action="store_true")
    parser.add_argument("--inherit-environ")
    parser.add_argument("--copy-env", action="store_true")
    parser.add_argument("--no-locale", action="store_true")
    parser.add_argument("--affinity")
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("--track-memory", action="store_true")
    parser.add_argument("--profile")
    parser.add_argument("--hook", action="append", default=[])


class Runner(object):
    """pyperf.Runner's interface; sample counts, processes and loops are pairbench's to choose."""

    def __init__(self, values=None, processes=None, loops=0, min_time=0.1, metadata=None,
                 show_name=True, program_args=None, add_cmdline_args=None, _argparser=None,
                 warmups=1, hooks=None):
        self.metadata = metadata if metadata is not None else {}
        self.args = None
        self._names = set()
        parser = _argparser if _argparser is not None else _Parser(
            prog=(sys.argv[0] if sys.argv else "benchmark"), description="pyperf benchmark run by pairbench")
        _pyperf_options(parser, min_time)
        self.argparser = parser

    def parse_args(self, args=None):
        """The script's options, from the arguments pairbench gives it (pyperformance's extra_opts)."""
        if self.args is None:
            self.args = self.argparser.parse_args(args)
        return self.args

    def _submit(self, task):
        if task.name in self._names:
            raise ValueError("duplicated benchmark name: %r" % task.name)
        self._names.add(task.name)
        self.parse_args()
        if _handler is None:
            raise RuntimeError("this pyperf is pairbench's: its benchmarks run under `pairbench micro`")
        return _handler(task)

    def bench_time_func(self, name, time_func, *args, inner_loops=None, metadata=None):
        """Time `time_func(loops, *args)`, which returns the seconds `loops` iterations took."""
        return self._submit(Task(name, "time", time_func, args, inner_loops, metadata))

    def bench_func(self, name, func, *args, inner_loops=None, metadata=None):
        """Time `func(*args)` called `loops` times."""
        return self._submit(Task(name, "func", func, args, inner_loops, metadata))

    def bench_async_func(self, name, func, *args, inner_loops=None, metadata=None, loop_factory=None):
        """Time `await func(*args)` `loops` times in one event loop (from `loop_factory` if given)."""
        return self._submit(Task(name, "async", func, args, inner_loops, metadata, loop_factory=loop_factory))

    def bench_command(self, name, command):
        """Time running `command` (a list of arguments) as a whole process, wall clock."""
        return self._submit(Task(name, "command", None, (), None, None, command=list(command)))

    def timeit(self, name, stmt=None, setup="pass", teardown="pass", inner_loops=None, duplicate=None,
               metadata=None, globals=None):
        """Time `stmt` after `setup`, timeit style (teardown, duplicate and globals unsupported)."""
        if globals is not None or duplicate or (teardown or "pass") != "pass":
            raise ValueError("Runner.timeit under pairbench takes no globals, duplicate or teardown")
        return self._submit(Task(name, "stmt", None, (), inner_loops, metadata, stmt=stmt or "pass",
                                 setup=setup or "pass"))


def _install(handler, clock):
    """Called by the worker before it runs a script: where tasks go, and the clock to time with."""
    global _handler, perf_counter
    _handler = handler
    perf_counter = clock


def __getattr__(name):
    raise AttributeError("pyperf.%s: pairbench runs pyperf benchmarks with its own pyperf, which "
                         "provides %s" % (name, ", ".join(__all__)))

