"""A log-bucketed latency histogram (HDR style): bounded memory, mergeable, percentiles.

Values are integer nanoseconds. Values below 2·M (M = 2**SUB_BITS) get one bucket each; above,
each power of two is split into M equal buckets, so a bucket's width is at most 1/M of its lower
bound (M = 128: under 0.8%, reported at the bucket middle, so within 0.4%). The bucket index is
the HdrHistogram layout (Tene, HdrHistogram) with one fixed precision; counts live in a dict, so
an hour of requests at 1 ms..10 s costs a few kilobytes. Merging adds counts
(as locust's `StatsEntry.extend` does for its rounded buckets).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any, Iterable, Sequence

__all__ = ["Histogram", "SUB_BITS"]

SUB_BITS = 7
_M = 1 << SUB_BITS
_TWO_M = 2 * _M


def bucket_index(value_ns: int) -> int:
    """The bucket holding `value_ns` (negative values count as 0)."""
    if value_ns < _TWO_M:
        return value_ns if value_ns > 0 else 0
    shift = value_ns.bit_length() - SUB_BITS - 1
    return shift * _M + (value_ns >> shift)


def bucket_bounds(index: int) -> tuple[int, int]:
    """Lowest and highest value (inclusive, ns) that fall in bucket `index`."""
    if index < _TWO_M:
        return index, index
    shift = index // _M - 1
    mantissa = index - shift * _M
    return mantissa << shift, ((mantissa + 1) << shift) - 1


class Histogram:
    """Counts of latencies in log buckets, with exact count, sum, min and max."""

    __slots__ = ("counts", "count", "total_ns", "min_ns", "max_ns")

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}
        self.count = 0
        self.total_ns = 0
        self.min_ns = 0
        self.max_ns = 0

    def record(self, value_ns: int) -> None:
        """Add one latency in nanoseconds."""
        if value_ns < 0:
            value_ns = 0
        if value_ns < _TWO_M:
            i = value_ns
        else:
            shift = value_ns.bit_length() - SUB_BITS - 1
            i = shift * _M + (value_ns >> shift)
        counts = self.counts
        counts[i] = counts.get(i, 0) + 1
        if self.count == 0 or value_ns < self.min_ns:
            self.min_ns = value_ns
        if value_ns > self.max_ns:
            self.max_ns = value_ns
        self.count += 1
        self.total_ns += value_ns

    def record_many(self, values_ns: Iterable[int]) -> None:
        for v in values_ns:
            self.record(v)

    def record_values(self, values_ns: Sequence[int]) -> None:
        """Add many latencies at once, as `record` would one by one: sorted, then counted a bucket
        at a time (one bisect per occupied bucket), so the per-value work is C's sort, not Python."""
        if not values_ns:
            return
        s = sorted(values_ns)
        lowest = s[0] if s[0] > 0 else 0
        if self.count == 0 or lowest < self.min_ns:
            self.min_ns = lowest
        if s[-1] > self.max_ns:
            self.max_ns = s[-1]
        self.count += len(s)
        self.total_ns += sum(s)
        counts = self.counts
        n = len(s)
        pos = bisect_right(s, 0)  # negative values count as 0, in bucket 0
        if pos:
            self.total_ns -= sum(s[:pos])
            counts[0] = counts.get(0, 0) + pos
        while pos < n:
            i = bucket_index(s[pos])
            end = bisect_right(s, bucket_bounds(i)[1], pos)
            counts[i] = counts.get(i, 0) + end - pos
            pos = end

    def merge(self, other: Histogram) -> None:
        """Add every count of `other` into this histogram."""
        if other.count == 0:
            return
        counts = self.counts
        for i, c in other.counts.items():
            counts[i] = counts.get(i, 0) + c
        if self.count == 0 or other.min_ns < self.min_ns:
            self.min_ns = other.min_ns
        self.max_ns = max(self.max_ns, other.max_ns)
        self.count += other.count
        self.total_ns += other.total_ns

    @property
    def mean_s(self) -> float:
        """Exact mean in seconds (0 when empty)."""
        return self.total_ns / self.count / 1e9 if self.count else 0.0

    def percentile_s(self, q: float) -> float:
        """The q-th percentile (0..100) in seconds: the smallest recorded value with at least q% of
        the counts at or below it, read at its bucket's middle; q = 100 is the exact maximum and
        q = 0 the exact minimum."""
        return self.percentiles_s([q])[0]

    def percentiles_s(self, qs: Iterable[float]) -> list[float]:
        """Several percentiles at once (one pass over the sorted buckets)."""
        qs = list(qs)
        if self.count == 0:
            return [0.0 for _ in qs]
        order = sorted(range(len(qs)), key=lambda k: qs[k])
        out = [0.0] * len(qs)
        items = sorted(self.counts.items())
        pos = 0
        seen = 0
        for k in order:
            q = qs[k]
            if not 0.0 <= q <= 100.0:
                raise ValueError(f"percentile {q} is not within 0..100")
            if q >= 100.0:
                out[k] = self.max_ns / 1e9
                continue
            if q <= 0.0:
                out[k] = self.min_ns / 1e9
                continue
            # Rank of the q-th percentile: ceil(q/100 * count), at least 1 (nearest-rank method).
            rank = max(1, -(-int(round(q * self.count * 1000)) // 100000))
            while pos < len(items) and seen + items[pos][1] < rank:
                seen += items[pos][1]
                pos += 1
            index = items[min(pos, len(items) - 1)][0]
            lo, hi = bucket_bounds(index)
            value = (lo + hi) / 2
            out[k] = min(max(value, self.min_ns), self.max_ns) / 1e9
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form (bucket counts as [index, count] pairs) for moving between processes."""
        return {
            "sub_bits": SUB_BITS,
            "counts": sorted([i, c] for i, c in self.counts.items()),
            "count": self.count,
            "total_ns": self.total_ns,
            "min_ns": self.min_ns,
            "max_ns": self.max_ns,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Histogram:
        if d.get("sub_bits") != SUB_BITS:
            raise ValueError(f"histogram precision {d.get('sub_bits')} is not {SUB_BITS}")
        h = cls()
        h.counts = {int(i): int(c) for i, c in d["counts"]}
        h.count = int(d["count"])
        h.total_ns = int(d["total_ns"])
        h.min_ns = int(d["min_ns"])
        h.max_ns = int(d["max_ns"])
        return h
