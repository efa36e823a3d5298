# mypy: ignore-errors
# (a standalone worker script for CPython 3.8+ and PyPy, kept free of annotations on purpose)
"""pairbench micro-benchmark worker for Python (CPython 3.8+ and PyPy 3.9+), standard library only.

pairbench runs this file *with the variant's own interpreter* (`EXE [FLAGS] py_harness.py`), writes
one JSON request on stdin and reads one JSON document from the last stdout line that starts with
MARKER. The benchmark's own prints go to stderr so they cannot corrupt the answer.

Requests (`mode`):
  list       {"file"}                     -> {"benchmarks": [{"name", "func", "params": [repr...]}]}
  calibrate  {spec, "target"}             -> {"loops", "time"}: loops for about `target` s per sample
  time       {spec, "loops", "warmup", "samples", "batches", "alloc"}
             -> {"warmup": [s...], "samples": [s...], "overhead": s per loop iteration, "alloc": {...},
                 "batches": [[s...] per sample, warm-up first], "batch_loops": [loops per batch]}:
             each sample's loop is timed in `batches` near-equal batches, the sample being their sum
  count      {spec, "loops", "empty_loops"} -> {"loops", "inner_loops"}: `loops` ops then `empty_loops`
             empty ones, untimed, for an instruction counter outside the process (--measure instructions)
A spec is {"file", "func", "param"} (a `bench_*` function) or {"setup", "stmt"} (timeit style).
Failures answer {"ok": false, "stage", "error"} instead of raising.

Benchmark file convention (no decorators, nothing to import):
  def bench_NAME([arg]):  the operation; called once per loop iteration.
  def setup_NAME([param]): optional; runs once per process, its return value is `arg`.
  params_NAME = [...] or bench_NAME.params = [...]: optional; one benchmark per value, passed to
      setup_NAME (or to bench_NAME directly when there is no setup).
"""

import gc
import inspect
import itertools
import json
import os
import platform
import sys
import time

# The worker's own modules (and its pyperf) come first, even under `python -I` or `-P`.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from py_async import aempty0, aempty1, async_parts, event_loop, refuse_unrun  # noqa: E402
from py_alloc import ALLOC_OPS, ALLOC_SLOWDOWN, _alloc_pass, alloc_plan  # noqa: E402,F401
from py_base import BenchError, _describe, _empty0, _empty1, _indent  # noqa: E402
from py_pyperf import is_pyperf_script, run_script, task_parts  # noqa: E402

MARKER = "@@pairbench@@ "
MIN_VERSION = (3, 8)
# Below this duration a calibration probe is too short to scale from (timer resolution, noise).
CALIBRATE_MIN_TIME = 0.01


def _read(path):
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise BenchError("load", "cannot read %s: %s" % (path, exc))


def _load_module(path):
    source = _read(path)
    namespace = {"__name__": "__pairbench__", "__file__": path}
    try:
        code = compile(source, path, "exec")
        exec(code, namespace)
    except BaseException as exc:  # a SystemExit in a benchmark file is a failure too
        raise BenchError("load", _describe(exc))
    return namespace


def _params_of(namespace, func_name):
    short = func_name[len("bench_"):]
    params = namespace.get("params_" + short)
    if params is None:
        params = getattr(namespace[func_name], "params", None)
    return list(params) if params is not None else None


def do_list(request):
    source = _read(request["file"])
    if is_pyperf_script(source):
        return _list_pyperf(request, source)
    namespace = _load_module(request["file"])
    out = []
    for name, obj in list(namespace.items()):
        if name.startswith("bench_") and callable(obj):
            params = _params_of(namespace, name)
            out.append({
                "name": name[len("bench_"):],
                "func": name,
                "params": [repr(p) for p in params] if params is not None else None,
            })
    if not out:
        raise BenchError("load", "no bench_* functions in %s" % request["file"])
    return {"benchmarks": out}


def _list_pyperf(request, source):
    """The benchmarks a pyperf script registers, by the names it gives them (none is run)."""
    tasks = []
    run_script(request["file"], source, request.get("argv") or [], lambda task: tasks.append(task),
               time.perf_counter)
    if not tasks:
        raise BenchError("load", "%s registers no benchmark with pyperf's Runner (given %s)"
                         % (request["file"], " ".join(request.get("argv") or []) or "no options"))
    return {"benchmarks": [{"name": t.name, "func": t.name, "params": None, "pyperf": True, "kind": t.kind}
                           for t in tasks]}


def _with_parts(request, answer):
    """answer(parts) for the benchmark `request` names, parts as _build gives them.

    A pyperf script is run as a whole and its benchmark timed when the script registers it, while
    the script's own set-up (temporary files, open sockets) is still alive, as in pyperf."""
    path = request.get("file")
    source = _read(path) if path else b""
    if not (path and is_pyperf_script(source)):
        return answer(_build(request))
    _set_clock(request, "wall")
    target, found, names = request.get("func"), [], []
    tools = {"func_timer": _func_timer, "stmt_timer": _stmt_timer, "empty0": _empty0}

    def handler(task):
        names.append(task.name)
        if task.name == target and not found:
            found.append(answer(task_parts(task, _clock, tools)))

    run_script(path, source, request.get("argv") or [], handler, _clock)
    if not found:
        raise BenchError("load", "%s registers no benchmark %r (it registers: %s)"
                         % (path, target, ", ".join(names) or "none"))
    return found[0]


def _argcount(func):
    code = getattr(func, "__code__", None)
    if code is None:
        return 1
    count = code.co_argcount
    if getattr(func, "__self__", None) is not None:
        count -= 1
    return count


# The clock: "cpu" (this process's CPU time) by default, because on a shared machine wall time
# also counts the time slices given to other processes, which is noise for a single-threaded
# snippet; "wall" (perf_counter) when the operation sleeps, waits or uses other threads.
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
_clock = CLOCKS["cpu"]
_clock_name = "cpu"


def _func_timer(func, with_arg, arg):
    """A function(loops) -> seconds timing `loops` calls; repeat() keeps the loop itself cheap."""
    perf = _clock
    repeat = itertools.repeat
    if with_arg:
        def timed(loops):
            it = repeat(None, loops)
            t0 = perf()
            for _ in it:
                func(arg)
            return perf() - t0
    else:
        def timed(loops):
            it = repeat(None, loops)
            t0 = perf()
            for _ in it:
                func()
            return perf() - t0
    return timed


def _func_op(func, with_arg, arg):
    if with_arg:
        return lambda: func(arg)
    return func


_STMT_TEMPLATE = """
def inner(_sizes, _timer, _repeat):
{setup}
    _out = []
    for _n in _sizes:
        _it = _repeat(None, _n)
        _t0 = _timer()
        for _i in _it:
{stmt}
        _t1 = _timer()
        _out.append(_t1 - _t0)
    return _out
"""


def _stmt_timer(setup, stmt, name):
    """timeit's template: setup runs before each sample, outside the timed loop."""
    src = _STMT_TEMPLATE.format(setup=_indent(setup or "pass", 4), stmt=_indent(stmt or "pass", 12))
    namespace = {}
    try:
        # Compile setup and statement apart first so a syntax error names the right one.
        compile(setup or "pass", "<setup>", "exec")
        compile(stmt or "pass", "<stmt>", "exec")
        exec(compile(src, name, "exec"), namespace)
    except SyntaxError as exc:
        raise BenchError("load", _describe(exc))
    inner = namespace["inner"]
    perf = _clock

    def timed(loops):
        return inner([loops], perf, itertools.repeat)[0]

    # the batches of one sample share its one setup, as timeit's loop does
    timed.batches = lambda sizes: inner(sizes, perf, itertools.repeat)
    return timed


def _build(request):
    """(timed, empty_timed, op or None, empty op, stmt spec): the timing function, its empty twin
    for loop overhead, and zero-argument callables (the op and its empty twin) for the allocation
    pass."""
    if request.get("file"):
        namespace = _load_module(request["file"])
        func_name = request["func"]
        func = namespace.get(func_name)
        if not callable(func):
            raise BenchError("load", "%s has no function %s" % (request["file"], func_name))
        short = func_name[len("bench_"):]
        params = _params_of(namespace, func_name)
        setup = namespace.get("setup_" + short)
        index = request.get("param")
        has_param = params is not None and index is not None
        arg = None
        try:
            if setup is not None:
                arg = setup(params[index]) if has_param else setup()
            elif has_param:
                arg = params[index]
        except Exception as exc:
            raise BenchError("setup", _describe(exc))
        with_arg = _argcount(func) >= 1
        if inspect.iscoroutinefunction(func):
            _set_clock(request, "wall")
            call = _func_op(func, with_arg, arg)
            empty_call = _func_op(aempty1 if with_arg else aempty0, with_arg, arg)
            return async_parts(call, empty_call, event_loop(), _clock) + (None, None, 1)
        _set_clock(request, "cpu")
        op = _func_op(func, with_arg, arg)
        refuse_unrun(func_name, func, op, "make %s itself `async def` (pairbench awaits coroutine "
                      "functions in an event loop) or await inside it" % func_name)
        timed = _func_timer(func, with_arg, arg)
        empty = _func_timer(_empty1 if with_arg else _empty0, with_arg, arg)
        return timed, empty, op, _empty0, None, None, 1
    _set_clock(request, "cpu")
    setup = request.get("setup") or ""
    stmt = request.get("stmt") or "pass"
    timed = _stmt_timer(setup, stmt, "<pairbench stmt>")
    empty = _stmt_timer(setup, "pass", "<pairbench empty>")
    return timed, empty, None, _empty0, (setup, stmt), None, 1


def _set_clock(request, natural):
    """The request's clock; "auto" picks `natural`: wall time where an op waits (coroutines, pyperf
    benchmarks, which pyperf times with perf_counter), CPU time otherwise."""
    global _clock, _clock_name
    clock = request.get("clock") or "cpu"
    if clock == "auto":
        clock = natural
    if clock not in CLOCKS:
        raise BenchError("request", "unknown clock %r; valid: auto, cpu, wall" % (clock,))
    _clock = CLOCKS[clock]
    _clock_name = clock


def _both_clocks(run_all):
    """run_all() under both clocks: (its value, {"clock": the one timing, "wall": s, "cpu": s}),
    so that an op timed by CPU time that mostly waits (time.sleep) can be told; four reads."""
    w0, c0 = time.perf_counter(), time.process_time()
    value = run_all()
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return value, {"clock": _clock_name, "wall": wall, "cpu": cpu}


def _run(timed, loops):
    try:
        return timed(loops)
    except BenchError:
        raise
    except Exception as exc:
        raise BenchError("run", _describe(exc))


def do_calibrate(request):
    return _with_parts(request, lambda parts: _calibrate(parts[0], request))


def _calibrate(timed, request):
    target = float(request.get("target", 0.1))
    loops = 1
    # Grow geometrically until one sample lasts long enough to scale from (timeit.autorange).
    while True:
        t = _run(timed, loops)
        if t >= CALIBRATE_MIN_TIME or loops >= 10 ** 12:
            break
        loops *= 10 if t < CALIBRATE_MIN_TIME / 20 else 2
    if loops == 1 and t >= target:
        # One loop already outlasts a sample (pyperformance's asyncio_tcp, bpe_tokeniser: seconds
        # per op): the count can only be 1, and rerunning it would triple calibration, as pyperf
        # avoids (its calibration stops at the first value over min_time).
        return {"loops": 1, "time": t}
    # One pass at the scaled count, then a final scale: JITs speed up during the first passes.
    for _ in range(2):
        loops = max(1, int(round(loops * target / max(t, 1e-9))))
        t, clocks = _both_clocks(lambda: _run(timed, loops))
    clocks["loops"] = loops
    loops = max(1, int(round(loops * target / max(t, 1e-9))))
    return {"loops": _round2(loops), "time": t, "clocks": clocks}


def _round2(n):
    """Two significant digits, so loop counts read well (120000, not 118734)."""
    if n < 100:
        return n
    digits = len(str(n)) - 2
    return int(round(n / 10 ** digits)) * 10 ** digits


def _batch_sizes(loops, batches):
    """`loops` split in `batches` near-equal parts (fewer when there are fewer loops)."""
    k = max(1, min(int(batches), loops))
    return [loops // k + (1 if i < loops % k else 0) for i in range(k)]


def _timed_batches(timed, sizes):
    """One sample's loop timed batch by batch: a list of times, whose sum is the sample."""
    batched = getattr(timed, "batches", None)
    if batched is None:
        return [_run(timed, n) for n in sizes]
    try:
        return batched(sizes)
    except BenchError:
        raise
    except Exception as exc:
        raise BenchError("run", _describe(exc))


def _overhead(empty, loops):
    """Seconds per loop iteration of the empty loop: the minimum of a few short runs (a floor)."""
    n = max(1, loops // 10)
    best = None
    for _ in range(5):
        t = empty(n) / n
        if best is None or t < best:
            best = t
    return best


def do_time(request):
    return _with_parts(request, lambda parts: _time(parts, request))


def _time(parts, request):
    timed, empty, op, empty_op, stmt_spec, no_alloc, inner = parts
    loops = int(request["loops"])
    sizes = _batch_sizes(loops, request.get("batches", 1))
    warm = [_timed_batches(timed, sizes) for _ in range(int(request.get("warmup", 1)))]
    overhead = _overhead(empty, loops)
    samples, clocks = _both_clocks(lambda: [_timed_batches(timed, sizes) for _ in range(int(request.get("samples", 5)))])
    clocks["loops"] = loops * len(samples)
    out = {"loops": loops, "warmup": [sum(b) for b in warm], "samples": [sum(b) for b in samples],
           "overhead": overhead, "clocks": clocks}
    if len(sizes) > 1:  # each sample's batches, warm-up samples first (the steady state is classified on them)
        out["batches"], out["batch_loops"] = warm + samples, sizes
    if inner != 1:
        out["inner_loops"] = inner  # each loop iteration is `inner` operations (pyperf's inner_loops)
    if request.get("alloc", True) and no_alloc:
        out["alloc"] = {"unavailable": no_alloc}
    elif request.get("alloc", True):
        # the op's time from the shared loop count, not this variant's samples: every variant
        # gets the same plan, so the counts compare like with like
        out["alloc"] = _per_inner(_alloc_pass(op, stmt_spec, empty_op, loops, request.get("alloc_op_s"),
                                              request.get("alloc_budget")), inner)
    return out


def do_count(request):
    return _with_parts(request, lambda parts: _count(parts, request))


def _count(parts, request):
    """`loops` ops, then `empty_loops` iterations of the empty op. The caller counts a process with
    (N, N) and one with (2N, 0): the difference is N ops less N empty iterations, so start-up,
    imports, set-up and the loop itself cancel exactly."""
    timed, empty, inner = parts[0], parts[1], parts[6]
    _run(timed, int(request["loops"]))
    _run(empty, int(request.get("empty_loops", 0)))
    return {"loops": int(request["loops"]), "inner_loops": inner}


def _per_inner(alloc, inner):
    """Counts per loop iteration -> per operation; the peak stays that of one iteration."""
    if inner == 1 or "unavailable" in alloc:
        return alloc
    for key in ("mem_blocks_per_op", "mem_bytes_per_op", "gc_per_1k_ops"):
        if key in alloc:
            alloc[key] = round(alloc[key] / float(inner), 6)
    return alloc


def _info():
    return {
        "implementation": platform.python_implementation(),
        "version": platform.python_version(),
        "executable": sys.executable,
    }


def main():
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # the benchmark's prints must not reach the answer channel
    try:
        if sys.version_info < MIN_VERSION:
            answer = {"ok": False, "stage": "probe",
                      "error": "Python %s is too old: the micro harness needs 3.8 or newer"
                      % platform.python_version()}
        else:
            request = json.loads(sys.stdin.read() or "{}")
            mode = request.get("mode")
            handler = {"list": do_list, "calibrate": do_calibrate, "time": do_time,
                       "count": do_count, "probe": lambda r: {}}.get(mode)
            if handler is None:
                answer = {"ok": False, "stage": "request", "error": "unknown mode %r" % (mode,)}
            else:
                answer = handler(request)
                answer["ok"] = True
    except BenchError as exc:
        answer = {"ok": False, "stage": exc.stage, "error": exc.message}
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        answer = {"ok": False, "stage": "harness", "error": _describe(exc)}
    answer.update(_info())
    real_stdout.write("\n" + MARKER + json.dumps(answer) + "\n")
    real_stdout.flush()


if __name__ == "__main__":
    main()
