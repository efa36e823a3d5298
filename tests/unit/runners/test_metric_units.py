"""--metric units: a number printed as `1.09 sec` by one variant and `860 ms` by another is
compared in seconds, or refused; never as the raw numbers 1.09 and 860."""

import re

import pytest

from pairbench.errors import BenchmarkFailed, UserError
from pairbench.runners.command import BUILTIN_METRICS, parse_metric
from pairbench.runners.command.metric_spec import BUILTIN_NAMES, metric_value
from pairbench.runners.command.output import scan_output, to_base_unit, unit_scale


def _scan(tmp_path, text, spec):
    name, regex, _ = parse_metric(spec)
    path = tmp_path / "out"
    path.write_text(text)
    scan = scan_output(str(path), [(name, regex)])
    return scan.matches[name], scan.units[name], regex


def test_names_may_start_with_a_digit_and_carry_a_unit():
    name, regex, unit = parse_metric(r"2to3:ms=^2to3: ([\d.]+)")
    assert (name, unit) == ("2to3", "ms")
    assert regex.search("2to3: 12.5").group(1) == "12.5"
    assert parse_metric(r"pprint=^pprint: ([\d.]+)")[2] == ""


def test_an_unknown_unit_is_refused_with_the_known_ones():
    with pytest.raises(UserError, match=r"unknown unit 'fortnights'; known: ns, .*ms.*MiB"):
        parse_metric(r"x:fortnights=([\d.]+)")


@pytest.mark.parametrize("word, base, factor", [
    ("ns", "s", 1e-9), ("us", "s", 1e-6), ("µs", "s", 1e-6), ("ms", "s", 1e-3), ("sec", "s", 1.0),
    ("min", "s", 60.0), ("kB", "B", 1e3), ("M", "B", 1e6), ("GB", "B", 1e9), ("KiB", "B", 1024.0),
])
def test_unit_words_scale_to_seconds_or_bytes(word, base, factor):
    assert unit_scale(word) == (base, factor)
    assert to_base_unit(2.0, word) == (2.0 * factor, base)


def test_a_unit_group_normalises_sec_and_ms_to_seconds(tmp_path):
    spec = r"pprint=^pprint: ([\d.]+) (\w+)"
    found, word, regex = _scan(tmp_path, "warming up\npprint: 1.09 sec\n", spec)
    assert (found, word) == ("1.09", "sec")
    assert metric_value("pprint", regex, float(found), word, "") == pytest.approx(1.09)
    found, word, regex = _scan(tmp_path, "pprint: 860 ms\n", spec)
    assert metric_value("pprint", regex, float(found), word, "") == pytest.approx(0.860)
    # the faster one is faster: 0.86 s against 1.09 s, not 860 against 1.09
    named = r"pprint=^pprint: ([\d.]+) (?P<unit>\S+)"
    found, word, regex = _scan(tmp_path, "pprint: 3 µs\n", named)
    assert metric_value("pprint", regex, float(found), word, "") == pytest.approx(3e-6)


def test_without_a_unit_group_the_word_after_the_number_is_kept_for_the_check(tmp_path):
    found, word, regex = _scan(tmp_path, "pprint: 860 ms elapsed\n", r"pprint=^pprint: ([\d.]+)")
    assert (found, word) == ("860", "ms")
    found, word, _ = _scan(tmp_path, "count=12\n", r"n=count=(\d+)")
    assert word == ""


def test_a_declared_unit_scales_the_number_and_a_contradicting_word_is_refused():
    regex = re.compile(r"took ([\d.]+)")
    assert metric_value("t", regex, 250.0, "", "ms") == pytest.approx(0.25)
    assert metric_value("t", regex, 250.0, "ms", "ms") == pytest.approx(0.25)
    assert metric_value("mem", regex, 2.0, "", "MiB") == 2 * 1024 ** 2
    with pytest.raises(BenchmarkFailed, match="declared in ms but was printed in sec"):
        metric_value("t", regex, 1.09, "sec", "ms")


def test_a_captured_word_that_is_not_a_unit_is_refused():
    regex = re.compile(r"took ([\d.]+) (\w+)")
    with pytest.raises(BenchmarkFailed, match="unit group matched 'apples', not a unit"):
        metric_value("t", regex, 1.0, "apples", "")
    with pytest.raises(BenchmarkFailed, match="declared in s but was printed in MB"):
        metric_value("t", regex, 1.0, "MB", "s")


def test_the_names_refused_are_the_command_runners_own_metrics():
    assert BUILTIN_NAMES == {m.name for m in BUILTIN_METRICS}
    with pytest.raises(UserError, match="'rss' is a built-in metric"):
        parse_metric(r"rss=([\d.]+)")
