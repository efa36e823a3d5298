"""micro's allocation pass fits a share of the worker's time (it took 10-15 s for a 134 ms op)."""

import pytest

from pairbench.runners.micro.harness import py_harness
from pairbench.runners.micro.harness.py_harness import ALLOC_OPS, _alloc_pass, alloc_plan


def test_fast_ops_keep_the_full_pass():
    assert alloc_plan(10**6, 1e-7, 0.5) == (ALLOC_OPS, 7, 3, False)
    assert alloc_plan(1000, None, None) == (100, 7, 3, False)  # no budget: as before


def test_a_slow_op_is_counted_once_against_the_empty_op():
    assert alloc_plan(1, 0.134, 0.5) == (1, 1, 1, True)


def test_the_slow_op_runs_three_times_in_the_pass_instead_of_fourteen():
    calls = []

    def op():
        calls.append(1)
        return [len(calls)]

    if py_harness.platform.python_implementation() != "CPython":
        pytest.skip("tracemalloc counts are CPython's")
    out = _alloc_pass(op, None, lambda: None, 1, 0.134, 0.5)
    assert len(calls) == 3  # one warm-up call, one counted under tracemalloc, one for the GC count
    assert {"mem_blocks_per_op", "mem_bytes_per_op", "peak_bytes_per_op"} <= set(out)
    calls.clear()
    _alloc_pass(op, None, lambda: None, 1)
    assert len(calls) == 14  # without a budget: 3 + (1 + 2) + 7 + 1


def test_the_pass_is_sized_by_the_measured_traced_time_not_an_assumed_slowdown():
    # pyperformance's unpack_sequence runs ~500x slower under tracemalloc, not 10x: the pass took
    # 8 s a process for a 0.5 s budget until the traced op's time was measured
    if py_harness.platform.python_implementation() != "CPython":
        pytest.skip("tracemalloc counts are CPython's")
    import time
    import tracemalloc

    calls = []

    def op():
        calls.append(1)
        if tracemalloc.is_tracing():
            time.sleep(0.005)  # 5 ms traced, nothing untraced
        return [len(calls)]

    started = time.perf_counter()
    _alloc_pass(op, None, lambda: None, 10**5, 1e-6, 0.1)
    # the 0.1 s budget, not 3 * 10**4 traced ops (150 s); 5 s of margin for a loaded machine (0.5 s failed
    # once with eight test runs beside it)
    assert time.perf_counter() - started < 5.0
