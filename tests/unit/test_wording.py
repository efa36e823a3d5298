"""Golden sentences: METHOD's target output, word for word, and the throughput/memory/exact forms."""

from __future__ import annotations

from pairbench.model import Comparison, Metric
from pairbench.report.format import format_percent, format_value
from pairbench.report.wording import verdict_sentence

TIME = Metric("time", "s", "lower")
RATE = Metric("req_per_s", "req/s", "higher")
RSS = Metric("rss", "B", "lower")
ALLOCS = Metric("allocs", "count", "lower", exact=True)


def comp(**kw) -> Comparison:
    base = dict(benchmark="b", metric="time", baseline="A", candidate="B", ratio=1.0, ci=(0.99, 1.01),
                p_value=0.5, n=20, significant=False, meaningful=False, verdict="same", more_runs=None)
    base.update(kw)
    return Comparison(**base)


def test_meaningful_faster_matches_method_target():
    c = comp(ratio=0.926, ci=(0.912, 0.941), significant=True, meaningful=True, verdict="faster")
    assert verdict_sentence(c, TIME) == (
        "B is 7.4% faster than A (ratio 0.926, 95% CI [0.912, 0.941]); significant; exceeds the ±1% noise band; "
        "n = 20 paired blocks")


def test_inconclusive_matches_method_target():
    c = comp(ratio=0.972, ci=(0.940, 1.004), verdict="inconclusive", more_runs=43)
    assert verdict_sentence(c, TIME) == (
        "inconclusive: 95% CI [−6.0%, +0.4%] (n = 20) spans 0 and the −1% band edge; about 43 more blocks "
        "(63 in all) should settle whether B is more than 1% faster at the current noise")


def test_same_matches_method_target():
    c = comp(ratio=0.999, ci=(0.994, 1.004), verdict="same")
    assert verdict_sentence(c, TIME) == "no meaningful difference: 95% CI [−0.6%, +0.4%] lies within ±1%"


def test_same_but_significant_mentions_negligible_shift():
    c = comp(ratio=1.003, ci=(1.001, 1.005), significant=True, verdict="same")
    assert verdict_sentence(c, TIME) == (
        "no meaningful difference: 95% CI [+0.1%, +0.5%] lies within ±1%; a real but negligible +0.3% shift "
        "(B slower)")


def test_significant_but_maybe_below_band():
    c = comp(ratio=1.012, ci=(1.004, 1.020), significant=True, verdict="slower")
    assert verdict_sentence(c, TIME) == (
        "B is 1.2% slower than A (ratio 1.012, 95% CI [1.004, 1.020]); significant, but may be below the ±1% "
        "noise band; n = 20 paired blocks")


def test_throughput_reads_in_its_direction():
    c = comp(metric="req_per_s", ratio=1.074, ci=(1.05, 1.10), significant=True, meaningful=True,
             verdict="faster")
    assert verdict_sentence(c, RATE).startswith("B has 7.4% higher throughput than A (ratio 1.074, 95% CI")
    c = comp(metric="req_per_s", ratio=0.95, ci=(0.90, 1.02), verdict="inconclusive", more_runs=10)
    assert verdict_sentence(c, RATE).endswith(
        "about 10 more blocks (30 in all) should settle whether B has more than 1% lower throughput at the "
        "current noise")


def test_memory_and_unresolvable():
    c = comp(metric="rss", ratio=0.988, ci=(0.96, 1.017), verdict="inconclusive", more_runs=None)
    assert verdict_sentence(c, RSS) == (
        "inconclusive: 95% CI [−4.0%, +1.7%] (n = 20) spans 0 and both band edges (±1%); the estimate sits near "
        "the band edge, so more blocks are unlikely to settle whether B uses more than 1% less memory within budget")


def test_insufficient_and_exact():
    c = comp(ratio=0.95, ci=(0.8, 1.1), n=4, verdict="insufficient", more_runs=2)
    assert verdict_sentence(c, TIME) == "no verdict: only 4 paired blocks (at least 6 needed); ratio 0.950 so far"
    c = comp(metric="allocs", ratio=1.02, ci=None, delta=20.0, verdict="exact", significant=True)
    assert verdict_sentence(c, ALLOCS) == "B vs A: +20 (+2.0%); exact, no test"


def test_adjusted_ci_is_named_and_used():
    c = comp(ratio=0.999, ci=(0.994, 1.004), adjusted_ci=(0.992, 1.006), verdict="same")
    assert verdict_sentence(c, TIME) == (
        "no meaningful difference: 95% CI adjusted for multiple comparisons [−0.8%, +0.6%] lies within ±1%")


def test_unit_aware_formatting():
    assert format_percent(0.074) == "+7.4%"
    assert format_percent(-0.0003) == "−0.03%"
    assert format_percent(0.0) == "0.0%"
    assert format_value(0.0123, "s") == "12.30 ms"
    assert format_value(5e6, "B") == "4.768 MiB"
    assert format_value(4.89e6, "op/s") == "4.890M op/s"
    assert format_value(1234, "count") == "1234"


def test_same_and_inconclusive_state_the_smallest_change_the_run_could_have_seen():
    c = comp(ratio=0.999, ci=(0.994, 1.004), verdict="same", mde=0.0071)
    assert verdict_sentence(c, TIME) == (
        "no meaningful difference: 95% CI [−0.6%, +0.4%] lies within ±1%; the smallest change this run could have "
        "seen is 0.7% (80% power)")
    c = comp(ratio=0.972, ci=(0.940, 1.004), verdict="inconclusive", more_runs=43, mde=0.046)
    assert verdict_sentence(c, TIME).endswith(
        "at the current noise; the smallest change this run could have seen is 4.6% (80% power)")
    # a faster/slower verdict found its change: no MDE is said
    c = comp(ratio=0.926, ci=(0.912, 0.941), significant=True, meaningful=True, verdict="faster", mde=0.01)
    assert "could have seen" not in verdict_sentence(c, TIME)


def test_too_few_blocks_say_the_interval_at_the_level_they_reach():
    """Below the blocks a level needs: the ratio and the interval at the level reached, and how
    many blocks the level asked needs; never the asked level beside an interval that does not reach it."""
    c = comp(ratio=1.04, ci=(0.95, 1.14), n=3, verdict="insufficient", more_runs=3,
             reached_ci=(1.01, 1.07), reached_confidence=0.75)
    text = verdict_sentence(c, TIME)
    assert text == ("no verdict: ratio 1.040, 75% interval [1.010, 1.070]; 3 blocks are too few for a 95% "
                    "verdict: run 6 or more")
    assert "95% CI" not in text and "[0.950" not in text
    c = comp(ratio=0.9, ci=(0.8, 1.0), n=2, verdict="insufficient", more_runs=2, paired=False,
             reached_ci=(0.85, 0.95), reached_confidence=2 / 3)
    assert verdict_sentence(c, TIME) == ("no verdict: ratio 0.900, 66.6% interval [0.850, 0.950]; 2 runs per "
                                         "side are too few for a 95% verdict: run 4 or more per side")


def test_the_ci_cell_of_too_few_blocks_names_its_level():
    from pairbench.report.summary import ci_text

    c = comp(ratio=1.04, ci=(0.95, 1.14), n=3, verdict="insufficient", more_runs=3,
             reached_ci=(1.01, 1.07), reached_confidence=0.75)
    assert ci_text(c) == "[1.010, 1.070] at 75%"
    old = comp(ratio=1.04, ci=(0.95, 1.14), n=3, verdict="insufficient", more_runs=3)  # a run file from before
    assert ci_text(old) == "[0.950, 1.140]"
