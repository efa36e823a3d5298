from pairbench.report.format import format_percent, format_ratio, format_value


def test_times_pick_a_readable_unit():
    assert format_value(0.01234, "s") == "12.34 ms"
    assert format_value(2.5e-7, "s") == "250.0 ns"
    assert format_value(14.018874, "s") == "14.02 s"


def test_bytes_use_binary_prefixes_and_rates_use_si():
    assert format_value(3 * 2**20, "B") == "3.000 MiB"
    assert format_value(4.886e6, "op/s") == "4.886M op/s"


def test_percent_and_ratio():
    assert format_percent(-0.074) == "−7.4%"
    assert format_percent(0.004) == "+0.4%"
    assert format_ratio(0.92612) == "0.926"
    assert format_value(None, "s") == "–"


def test_one_percent_rule_for_every_size_of_change():
    assert format_percent(0.0004) == "+0.04%"  # a real shift never reads 0.0%
    assert format_percent(1.5) == "+150%"
    assert format_percent(None) == "–"



def test_counts_read_alike_at_every_size():
    """One row showed `12` beside `10.00 count` (Go's allocs/op, the candidate a geometric mean a hair
    off 10) and `Δ +619894` beside `Δ +125.5M count`: a count is a plain number, whole when it is."""
    assert format_value(12.0, "count") == "12"
    assert format_value(12 * (10 / 12), "count") == "10"
    assert format_value(3.5, "count") == "3.500"
    for value in (619894.0, 125.5e6, 3.673e6, 10.000000001, 3.5, 2e4 + 0.5):
        assert "count" not in format_value(value, "count"), value
    assert format_value(125.5e6, "count") == "125.5M"
