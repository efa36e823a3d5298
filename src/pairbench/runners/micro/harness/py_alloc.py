# mypy: ignore-errors
# (part of the standalone Python worker: standard library only, no annotations, Python 3.8+)
"""The allocation pass of the Python micro worker: net tracemalloc blocks and bytes per op, the
peak of one op, and cyclic-GC runs, counted after timing so that counting never disturbs it."""

import gc
import itertools
import platform
import time

from py_base import BenchError, _describe, _empty0, _indent

# Operations in the allocation pass: enough that per-process constants vanish in the division,
# few enough that tracemalloc's slowdown (10x or more) stays bounded.
ALLOC_OPS = 20000
# How much slower an op runs under tracemalloc (measured 8-10x on a 134 ms op): sizes the pass
# before the op is timed under it (pyperformance's unpack_sequence runs ~500x slower: measured).
ALLOC_SLOWDOWN = 10.0


def _gc_collections():
    try:
        return sum(s.get("collections", 0) for s in gc.get_stats())
    except AttributeError:
        return None


def _stmt_ops(setup, stmt):
    """Zero-argument callables running the statement once (and its empty twin) after one setup.

    The statement runs as a closure over the setup's names, as in timeit's template; a statement
    that rebinds a setup name cannot, and falls back to exec() in a shared namespace."""
    src = "def _make():\n%s\n    def _op():\n%s\n    return _op\n" % (
        _indent(setup or "pass", 4), _indent(stmt or "pass", 8))
    ns = {}
    try:
        exec(compile(src, "<pairbench alloc>", "exec"), ns)
        op = ns["_make"]()
        op()
        return op, _empty0
    except UnboundLocalError:
        pass
    scope = {}
    exec(compile(setup or "pass", "<setup>", "exec"), scope)
    stmt_code = compile(stmt or "pass", "<stmt>", "exec")
    empty_code = compile("pass", "<stmt>", "exec")
    return (lambda: exec(stmt_code, scope)), (lambda: exec(empty_code, scope))


def alloc_plan(loops, per_op, budget, traced_s=None):
    """(n, single ops for the peak, warm-up calls, single) for a pass that fits `budget` seconds.

    `traced_s`: one op's measured time under tracemalloc, when known; else per_op × ALLOC_SLOWDOWN.

    Why: the pass counts n and 2n ops under tracemalloc, then 7 single ops for the peak; for a
    134 ms op that was 10-15 s a worker, against ~1 s of timing. With the op's time and a budget
    the counts shrink; when even n = 1 (1 + 2 ops) does not fit, `single` counts one op against
    one empty op instead (the empty op carries the same constants of the measurement).
    """
    n = min(max(1, loops // 10), ALLOC_OPS)
    peaks, warm, single = 7, 3, False
    if per_op and budget:
        affordable = int(budget / max(per_op * ALLOC_SLOWDOWN, traced_s or 0.0))
        n = max(1, min(n, (affordable - peaks) // 3))
        peaks = max(1, min(peaks, affordable - 3 * n))
        single = affordable < 3 * n + peaks
        warm = 3 if affordable >= 3 * n + peaks + 3 else 1
    return n, peaks, warm, single


def _alloc_pass(op, stmt_spec, empty_op, loops, per_op=None, budget=None):
    """Net tracemalloc blocks/bytes per op, peak transient bytes of one op, GC runs per 1000 ops."""
    if platform.python_implementation() != "CPython":
        return {"unavailable": "%s gives no allocation counters (no tracemalloc, no gc.get_stats)"
                % platform.python_implementation()}
    import tracemalloc

    def traced(fn, n, peaks=None):
        """(blocks, bytes) still allocated after n ops, relative to before them; their peak into `peaks`."""
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        b0 = sum(s.count for s in before.statistics("filename"))
        del before
        m0 = tracemalloc.get_traced_memory()[0]
        if peaks is not None and hasattr(tracemalloc, "reset_peak"):
            tracemalloc.reset_peak()
        for _ in itertools.repeat(None, n):
            fn()
        m1 = tracemalloc.get_traced_memory()[0]
        if peaks is not None and hasattr(tracemalloc, "reset_peak"):
            peaks.append(tracemalloc.get_traced_memory()[1] - m0)
        after = tracemalloc.take_snapshot()
        b1 = sum(s.count for s in after.statistics("filename"))
        del after
        tracemalloc.stop()
        return b1 - b0, m1 - m0

    n, n_peaks, n_warm, single = alloc_plan(loops, per_op, budget)

    def peak_of(fn):
        """Median over a few single ops of the peak traced memory above the level before it."""
        if not hasattr(tracemalloc, "reset_peak"):  # Python 3.8
            return None
        tracemalloc.start()
        peaks = []
        for _ in range(n_peaks):
            cur = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            fn()
            peaks.append(tracemalloc.get_traced_memory()[1] - cur)
        tracemalloc.stop()
        peaks.sort()
        return peaks[len(peaks) // 2]

    try:
        if op is None:
            op, empty_op = _stmt_ops(*stmt_spec)
        warmed = 0
        if per_op and budget and not single:
            # the first warm-up call runs under tracemalloc and times the slowdown, which varies
            # by two orders of magnitude with the op: the plan is sized by what it measured
            tracemalloc.start()
            t0 = time.perf_counter()
            op()
            traced_s = time.perf_counter() - t0
            tracemalloc.stop()
            warmed = 1
            n, n_peaks, n_warm, single = alloc_plan(loops, per_op, budget, traced_s)
        for _ in range(n_warm - warmed):
            op()  # first calls fill caches (interned strings, method caches, free lists)
        # Counting n and 2n ops and taking the difference cancels what the measurement itself
        # leaves behind (snapshot objects, caches), so only the ops' own net allocations remain.
        if single:  # one op against one empty op, each giving its peak too: one traced op in all
            found = []
            blocks1, bytes1 = traced(empty_op, 1, found)
            blocks2, bytes2 = traced(op, 1, found)
            epeak, peak = (found[0], found[1]) if len(found) == 2 else (None, None)
        else:
            blocks1, bytes1 = traced(op, n)
            blocks2, bytes2 = traced(op, 2 * n)
            peak = peak_of(op)
            epeak = peak_of(empty_op)
        gc.collect()
        g0 = _gc_collections()
        for _ in itertools.repeat(None, n):
            op()
        g1 = _gc_collections()
    except Exception as exc:
        raise BenchError("run", _describe(exc))
    blocks = (blocks2 - blocks1) / float(n)
    nbytes = (bytes2 - bytes1) / float(n)
    gcs = None if g0 is None else (g1 - g0) * 1000.0 / n
    out = {
        "mem_blocks_per_op": round(blocks, 4) + 0.0,
        "mem_bytes_per_op": round(nbytes, 2) + 0.0,
    }
    if peak is not None:
        out["peak_bytes_per_op"] = max(0, peak - (epeak or 0))
    if gcs is not None:
        out["gc_per_1k_ops"] = round(gcs, 4)
    return out
