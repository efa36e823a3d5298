# mypy: ignore-errors
# (part of the standalone Python worker: standard library only, no annotations, Python 3.8+)
"""pyperf benchmark scripts (pyperformance's run_benchmark.py) in the Python micro worker.

A file that imports pyperf is a script: it runs as `__main__`, with its own directory first on
sys.path and `sys.argv[1:]` = the arguments pairbench was given for it (pyperformance's
`extra_opts`), against pairbench's pyperf (harness/pyperf). Each Runner.bench_* call becomes a
Task; `task_parts` turns one into the worker's timing parts.
"""

import builtins
import functools
import inspect
import numbers
import os
import re
import subprocess
import sys
import time
import types

from py_async import aempty0, async_parts, event_loop, refuse_unrun
from py_base import BenchError, _describe

_IMPORTS_PYPERF = re.compile(r"^[ \t]*(import[ \t]+pyperf\b|from[ \t]+pyperf\b)", re.M)


def is_pyperf_script(source):
    """True when the file's source (bytes) imports pyperf at the start of a line."""
    return bool(_IMPORTS_PYPERF.search(source.decode("utf-8", "replace")))


def run_script(path, source, argv, handler, clock):
    """Run the script as __main__ with `handler` receiving each registered Task."""
    import pyperf
    if not getattr(pyperf, "PAIRBENCH", False):
        raise BenchError("load", "`import pyperf` found %s instead of pairbench's own" % pyperf.__file__)
    pyperf._install(handler, clock)
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = builtins
    saved = (sys.argv, list(sys.path), sys.modules.get("__main__"))
    sys.argv = [path] + [str(a) for a in argv]
    sys.path.insert(0, os.path.dirname(path))
    sys.modules["__main__"] = module  # so pickle and multiprocessing find the script's classes
    try:
        exec(compile(source, path, "exec"), module.__dict__)
    except BenchError:
        raise
    except pyperf.ArgumentError as exc:
        raise BenchError("load", "%s: its options %s: %s" % (path, " ".join(sys.argv[1:]) or "(none)", exc))
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise BenchError("load", "%s exited with %r while registering its benchmarks" % (path, exc.code))
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise BenchError("load", _describe(exc))
    finally:
        sys.argv, sys.path[:] = saved[0], saved[1]
        if saved[2] is not None:
            sys.modules["__main__"] = saved[2]


def _no_loop(loops):
    return 0.0


def _checked_seconds(name, value):
    """`value` as bench_time_func's seconds, or the one-line reason it is not."""
    if inspect.isawaitable(value):
        if inspect.iscoroutine(value):
            value.close()
        raise BenchError("run", "%s: bench_time_func's function returned an awaitable that nothing awaits; "
                         "register a coroutine function with runner.bench_async_func" % name)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise BenchError("run", "%s: bench_time_func's function must return the seconds its loops took, "
                         "not %r" % (name, value))
    return value


def _time_parts(task, perf, tools):
    f, args, name = task.func, task.args, task.name

    def timed(loops):
        # Every return is checked, as pyperf checks each value, instead of a probe call first:
        # one loop of bpe_tokeniser or mdp lasts 15-25 s, and a probe would add one per process.
        try:
            value = f(loops, *args)
        except Exception as exc:
            raise BenchError("run", _describe(exc))
        return _checked_seconds(name, value)

    # The script's own loop is all it times, as in pyperf: no empty loop to subtract.
    return timed, _no_loop, lambda: f(1, *args), tools["empty0"], None, None


def _func_parts(task, perf, tools):
    func = task.func
    call = functools.partial(func, *task.args) if task.args else func
    hint = "register it with runner.bench_async_func, which awaits it"
    if inspect.iscoroutinefunction(func):
        raise BenchError("load", "%s: bench_func was given a coroutine function; %s" % (task.name, hint))
    refuse_unrun(task.name, func, call, hint)
    timed = tools["func_timer"](call, False, None)
    empty = tools["func_timer"](tools["empty0"], False, None)
    return timed, empty, call, tools["empty0"], None, None


def _async_parts(task, perf, tools):
    func = task.func
    call = functools.partial(func, *task.args) if task.args else func
    loop = event_loop(task.extra.get("loop_factory"))
    if inspect.isasyncgenfunction(func):
        refuse_unrun(task.name, func, call, "")
    if not inspect.iscoroutinefunction(func):
        probe = call()
        if not inspect.isawaitable(probe):
            raise BenchError("load", "%s: bench_async_func needs a coroutine function, got %r returning %r"
                             % (task.name, func, type(probe).__name__))
        loop.run_until_complete(probe)
    return async_parts(call, aempty0, loop, perf) + (None, None)


def _command_parts(task, perf, tools):
    command = task.extra["command"]

    def timed(loops):
        # wall time, whatever the run's clock: the work is another process's
        total = 0.0
        for _ in range(loops):
            t0 = time.perf_counter()
            try:
                proc = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE)
            except OSError as exc:
                raise BenchError("run", "%s: cannot run %s: %s" % (task.name, command[0], exc))
            total += time.perf_counter() - t0
            if proc.returncode != 0:
                tail = (proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1]
                raise BenchError("run", "%s: command %s exited with code %d: %s"
                                 % (task.name, " ".join(command), proc.returncode, tail[:200]))
        return total

    return timed, _no_loop, None, None, None, "a command's allocations happen in another process"


def _stmt_parts(task, perf, tools):
    setup, stmt = task.extra["setup"], task.extra["stmt"]
    timed = tools["stmt_timer"](setup, stmt, "<%s>" % task.name)
    empty = tools["stmt_timer"](setup, "pass", "<%s empty>" % task.name)
    return timed, empty, None, tools["empty0"], (setup, stmt), None


_KINDS = {"time": _time_parts, "func": _func_parts, "async": _async_parts, "command": _command_parts,
          "stmt": _stmt_parts}


def task_parts(task, perf, tools):
    """(timed, empty timed, op, empty op, stmt spec, why no allocations, inner loops) for one Task.

    Timers return the seconds `loops` iterations took, each iteration `inner loops` operations
    (pyperf's value is dt / (loops * inner_loops)): calibration needs the real seconds, and the
    runner divides. `tools` holds the worker's timers: func_timer(func, with_arg, arg),
    stmt_timer(setup, stmt, name) and empty0."""
    return _KINDS[task.kind](task, perf, tools) + (task.inner_loops,)
