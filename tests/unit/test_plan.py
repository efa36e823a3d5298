import random
from collections import Counter

from pairbench.plan import block_order, plan_block


def test_every_block_runs_every_variant_once_for_every_benchmark():
    rng = random.Random(1)
    previous: dict[str, list[str]] = {}
    for block in range(12):
        steps = plan_block(["b1", "b2"], ["A", "B", "C"], block, rng, previous)
        counts = Counter((s.benchmark, s.variant) for s in steps)
        assert set(counts.values()) == {1}
        assert len(counts) == 6
        assert {s.block for s in steps} == {block}


def test_two_variants_are_counterbalanced_in_pairs_of_blocks():
    rng = random.Random(7)
    previous: dict[str, list[str]] = {}
    orders = []
    for block in range(20):
        steps = plan_block(["b"], ["A", "B"], block, rng, previous)
        orders.append([s.variant for s in steps])
    for i in range(0, 20, 2):
        assert orders[i + 1] == list(reversed(orders[i]))
    # the first block of each pair is random, so both orders appear
    assert {tuple(orders[i]) for i in range(0, 20, 2)} == {("A", "B"), ("B", "A")}


def test_many_variants_are_shuffled_not_fixed():
    rng = random.Random(3)
    firsts = Counter(block_order(["A", "B", "C", "D"], b, rng)[0] for b in range(200))
    assert set(firsts) == {"A", "B", "C", "D"}
    assert min(firsts.values()) > 25
