"""--time-unit, --sort and --style as hyperfine reads them (report/display.py, report/format.py)."""

from __future__ import annotations

from pairbench.model import Benchmark, Metric, Run, Sample, Variant
from pairbench.report.display import console_kwargs, shows_progress, sorted_view
from pairbench.report.format import fixed_time_unit, format_value


def test_a_fixed_time_unit_writes_every_time_in_it() -> None:
    assert format_value(2.5, "s") == "2.500 s" and format_value(0.0012, "s") == "1.200 ms"
    with fixed_time_unit("millisecond"):
        assert format_value(2.5, "s") == "2500 ms"
        assert format_value(0.0012, "s") == "1.200 ms"
        assert format_value(3.0, "B") == "3.000 B"  # only times change
    with fixed_time_unit("microsecond"):
        assert format_value(0.0012, "s") == "1200 µs"
    with fixed_time_unit("nanosecond"):
        assert format_value(2e-6, "s") == "2000 ns"
    assert format_value(2.5, "s") == "2.500 s"  # the block ended


def _run(direction: str = "lower") -> Run:
    values = {"slow": 3.0, "fast": 1.0, "mid": 2.0}
    return Run(metadata={}, variants=[Variant("slow", baseline=True), Variant("fast"), Variant("mid")],
               benchmarks=[Benchmark("b", "command", (Metric("time", "s", direction),))],
               samples=[Sample("b", v, "time", t + 0.01 * i, i) for i in range(4) for v, t in values.items()]
               + [Sample("b", "slow", "time", 0.001, -1, warmup=True)])


def test_sort_by_mean_time_orders_the_fastest_first_and_keeps_the_baseline() -> None:
    view = sorted_view(_run(), "mean-time")
    assert [v.name for v in view.variants] == ["fast", "mid", "slow"]
    assert view.baseline.name == "slow"
    assert [v.name for v in sorted_view(_run(), "command").variants] == ["slow", "fast", "mid"]
    assert [v.name for v in sorted_view(_run(), "auto").variants] == ["slow", "fast", "mid"]
    assert [v.name for v in sorted_view(_run("higher"), "mean-time").variants] == ["slow", "mid", "fast"]


def test_styles_set_colour_and_the_live_bar() -> None:
    assert console_kwargs("basic")["no_color"] is True and console_kwargs("nocolor")["no_color"] is True
    assert console_kwargs("color")["force_terminal"] is True and console_kwargs("full")["no_color"] is False
    assert console_kwargs("auto") == {}
    assert "file" in console_kwargs("none")
    assert shows_progress("full", is_terminal=False)
    assert shows_progress("auto", is_terminal=True) and not shows_progress("auto", is_terminal=False)
    assert shows_progress("nocolor", is_terminal=True)
    assert not any(shows_progress(s, is_terminal=True) for s in ("basic", "color", "none"))
