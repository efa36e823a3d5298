from __future__ import annotations

import random

import pytest

from pairbench.runners.http.histogram import SUB_BITS, Histogram, bucket_bounds, bucket_index


def test_every_value_falls_inside_its_bucket_and_buckets_are_narrow() -> None:
    rng = random.Random(1)
    for v in [0, 1, 255, 256, 257, 10**6, 2**40 + 12345] + [rng.randrange(1, 10**11) for _ in range(2000)]:
        lo, hi = bucket_bounds(bucket_index(v))
        assert lo <= v <= hi
        assert (hi - lo) <= max(1, lo) / (1 << SUB_BITS)


def test_buckets_are_contiguous() -> None:
    previous_hi = -1
    for i in range(0, 40 * (1 << SUB_BITS)):
        lo, hi = bucket_bounds(i)
        assert lo == previous_hi + 1
        previous_hi = hi


def _exact(values: list[int], q: float) -> float:
    s = sorted(values)
    k = max(1, -(-int(q * len(s)) // 100)) if q < 100 else len(s)
    return s[k - 1] / 1e9


@pytest.mark.parametrize("q", [1, 50, 66, 75, 90, 99, 99.9, 100])
def test_percentiles_within_half_a_percent_of_exact(q: float) -> None:
    rng = random.Random(7)
    values = [int(rng.lognormvariate(13, 1.0)) for _ in range(20000)]  # ~0.4 ms median, long tail
    h = Histogram()
    h.record_many(values)
    assert h.percentile_s(q) == pytest.approx(_exact(values, q), rel=0.005)
    assert h.mean_s == pytest.approx(sum(values) / len(values) / 1e9)
    assert h.max_ns == max(values) and h.min_ns == min(values)


def test_merge_equals_recording_everything_in_one() -> None:
    rng = random.Random(3)
    a_vals = [rng.randrange(10**4, 10**9) for _ in range(3000)]
    b_vals = [rng.randrange(10**5, 10**10) for _ in range(2000)]
    a, b, both = Histogram(), Histogram(), Histogram()
    a.record_many(a_vals)
    b.record_many(b_vals)
    both.record_many(a_vals + b_vals)
    a.merge(b)
    assert a.to_dict() == both.to_dict()
    assert Histogram.from_dict(a.to_dict()).to_dict() == both.to_dict()


def test_memory_is_bounded_for_a_million_requests() -> None:
    rng = random.Random(5)
    h = Histogram()
    for _ in range(200_000):
        h.record(rng.randrange(10**3, 10**11))  # 1 µs .. 100 s
    # 27 powers of two × 128 sub-buckets at most, whatever the count.
    assert len(h.counts) < 27 * (1 << SUB_BITS) + 256


def test_empty_histogram_and_bad_percentile() -> None:
    h = Histogram()
    assert h.percentiles_s([50, 100]) == [0.0, 0.0]
    h.record(1000)
    with pytest.raises(ValueError):
        h.percentile_s(101)


def test_values_booked_at_once_give_the_histogram_that_recording_each_gives() -> None:
    rng = random.Random(7)
    values = ([0, 0, -5, 1, 255, 256, 257, 511, 512, 2**40 + 1]
              + [int(10 ** rng.uniform(2, 10)) for _ in range(20000)] + [123456] * 50)
    one_by_one, at_once = Histogram(), Histogram()
    for v in values:
        one_by_one.record(v)
    half = len(values) // 2
    at_once.record_values(values[:half])
    at_once.record_values(values[half:])
    at_once.record_values([])
    assert at_once.to_dict() == one_by_one.to_dict()
    qs = [0, 1, 50, 90, 99, 99.9, 100]
    assert at_once.percentiles_s(qs) == one_by_one.percentiles_s(qs)
