# mypy: ignore-errors
# (part of the standalone Python worker: standard library only, no annotations, Python 3.8+)
"""Coroutine benchmarks for the Python micro worker: awaited in one event loop per process, and
refused, in one line, when calling them would run nothing."""

import inspect
import itertools

from py_base import BenchError, _describe


async def aempty0():
    pass


async def aempty1(arg):
    pass


def async_timer(call, loop, perf):
    """A function(loops) -> seconds awaiting `loops` calls of the zero-argument `call` in `loop`."""
    repeat = itertools.repeat

    async def main(loops):
        t0 = perf()
        for _ in repeat(None, loops):
            await call()
        return perf() - t0

    return lambda loops: loop.run_until_complete(main(loops))


_LOOP = []


def event_loop(factory=None):
    """The worker's event loop, made once per process (pyperf makes one per sample; a worker
    times one benchmark, so one loop serves all its samples)."""
    if _LOOP:
        return _LOOP[0]
    import asyncio
    loop = factory() if factory is not None else asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    _LOOP.append(loop)
    return loop


def async_parts(call, empty_call, loop, perf):
    """(timed, empty timed, op, empty op) for zero-argument coroutine functions `call`, `empty_call`."""
    return (async_timer(call, loop, perf), async_timer(empty_call, loop, perf),
            lambda: loop.run_until_complete(call()), lambda: loop.run_until_complete(empty_call()))


def refuse_unrun(name, func, op, hint):
    """Why: calling a coroutine or async generator function runs none of its body, so timing the
    call would time creating an object (1 us) instead of the benchmark (221 ms in pyperformance's
    async_generators). Refuse what would never run; `op` is called once to see what it returns."""
    if inspect.isasyncgenfunction(func):
        raise BenchError("load", "%s is an async generator function: calling it runs none of its "
                         "body; iterate it inside an `async def` benchmark" % name)
    try:
        result = op()
    except Exception as exc:
        raise BenchError("run", _describe(exc))
    if inspect.isawaitable(result) or inspect.isasyncgen(result):
        if inspect.iscoroutine(result):
            result.close()  # no "never awaited" warning on stderr
            what = "a coroutine"
        else:
            what = "an awaitable %s" % type(result).__name__
        raise BenchError("run", "%s returned %s that nothing awaits, so its work never runs; %s"
                         % (name, what, hint))
