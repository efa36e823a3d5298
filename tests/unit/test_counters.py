"""The counter set: names, sources, exactness and the figures derived from one counted run."""

from __future__ import annotations

import pytest

from pairbench.runners.counters import (COUNTER_NAMES, counted_values, counter_metrics, parse_cachegrind_events,
                                        parse_perf_events, perf_events, rusage_values)

# `perf stat -x, -e cycles:u,instructions:u,branch-misses:u,branches:u` as perf writes it (value,unit,event,...)
PERF_OUT = """# started on Wed Dec  2 12:00:00 2026

4017382,,cycles:u,1013210,100.00,,
8140112,,instructions:u,1013210,100.00,2.03,insn per cycle
3544,,branch-misses:u,1013210,100.00,0.17,of all branches
2031021,,branches:u,1013210,100.00,,
<not supported>,,cache-misses:u,0,100.00,,
"""

CACHEGRIND_OUT = """desc: I1 cache:         32768 B, 64 B, 8-way associative
cmd: ./loop 2000000
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim
fl=loop.c
summary: 1000 10 5 300 20 4 100 6 2 200 7 3 1
"""


def test_perf_output_is_read_by_event_and_unsupported_events_are_absent() -> None:
    events = parse_perf_events(PERF_OUT)
    assert events == {"cycles": 4017382, "instructions": 8140112, "branch-misses": 3544, "branches": 2031021}
    values = counted_values(("cycles", "instructions", "branch-misses", "cache-misses"), events, simulated=False)
    assert values["cycles"] == 4017382 and "cache-misses" not in values
    assert values["ipc"] == pytest.approx(8140112 / 4017382)
    assert values["branch-miss-rate"] == pytest.approx(3544 / 2031021)


def test_simulated_counters_sum_cachegrinds_events_and_are_named_sim() -> None:
    events = parse_cachegrind_events(CACHEGRIND_OUT)
    assert events["Ir"] == 1000 and events["Bim"] == 1
    values = counted_values(COUNTER_NAMES, events, simulated=True)
    assert values["instructions"] == 1000
    assert values["sim-L1-dcache-load-misses"] == 20
    assert values["sim-cache-misses"] == 5 + 4 + 2
    assert values["sim-branch-misses"] == 7 + 1
    # KCachegrind's estimate: Ir + 10 x (L1 misses + mispredicts) + 100 x last-level misses
    assert values["sim-cycles"] == 1000 + 10 * (10 + 20 + 6 + 7 + 1) + 100 * (5 + 4 + 2)
    assert values["branch-miss-rate"] == pytest.approx(8 / 203)
    assert "cycles" not in values and "page-faults" not in values  # rusage counters come from the timed run


def test_simulated_counts_are_exact_and_hardware_and_kernel_counts_are_tested() -> None:
    sim = {m.name: m for m in counter_metrics(COUNTER_NAMES, simulated=True)}
    hw = {m.name: m for m in counter_metrics(COUNTER_NAMES, simulated=False)}
    assert sim["sim-cycles"].exact and sim["instructions"].exact and sim["ipc"].exact
    assert "simulated" in sim["sim-cycles"].description
    assert not any(m.exact for m in hw.values()), hw  # a hardware count varies between identical runs
    assert not sim["page-faults"].exact and not sim["task-clock"].exact
    assert sim["task-clock"].unit == "s" and sim["ipc"].direction == "higher"
    assert set(hw) >= {"cycles", "cache-misses", "L1-dcache-load-misses"} and "sim-cycles" not in hw


def test_perf_is_asked_only_for_counted_events_and_rusage_only_for_its_own() -> None:
    assert perf_events(("page-faults", "cycles")) == ("cycles:u",)
    assert perf_events(("branch-misses",)) == ("branch-misses:u", "branches:u")
    assert rusage_values(("page-faults", "task-clock", "cycles"), 70, 2, 0.5) == {"page-faults": 70, "task-clock": 0.5}
