"""Work units: cut from a Run, carried as JSON, merged back with each sample's machine."""

from __future__ import annotations

import json

from pairbench.cluster.units import merge_unit, split_units, unit_from_payload, unit_payload
from pairbench.model import Benchmark, Metric, Notice, ProcessSeries, Run, Sample, Variant


def _run() -> Run:
    variants = [Variant("base", "python3", baseline=True), Variant("more", "python3", env={"WORK": "13"})]
    benches = [Benchmark(name, "command", (Metric("time", "s"),), options={"command": f"{{variant}} {name}.py"})
               for name in ("a", "b", "c")]
    return Run(metadata={}, variants=variants, benchmarks=benches, suite={"path": "s.toml"})


def test_each_benchmark_is_one_unit_with_every_variant_and_its_own_seed() -> None:
    units = split_units(_run(), seed=100)
    assert [(u.benchmark.name, [v.name for v in u.variants], u.seed) for u in units] == [
        ("a", ["base", "more"], 100), ("b", ["base", "more"], 101), ("c", ["base", "more"], 102)]


def test_a_unit_survives_its_json_round_trip() -> None:
    unit = split_units(_run(), seed=7)[1]
    doc = json.loads(json.dumps(unit_payload(unit, {"runs": 5}, (1.0, 1.3), "/cache")))
    back = unit_from_payload(doc)
    assert back == unit
    assert doc["options"] == {"runs": 5} and doc["fake"] == [1.0, 1.3] and doc["cache_dir"] == "/cache"


def test_merging_stamps_the_machine_and_says_machine_notices_once_per_machine() -> None:
    run = _run()
    for bench, machine in (("a", "w1"), ("b", "w1"), ("c", "w2")):
        unit_run = Run(metadata={"hostname": machine, "seed": 1, "stop": "fixed", "blocks": 2},
                       variants=run.variants, benchmarks=[run.benchmark(bench)],
                       samples=[Sample(bench, v, "time", 1.0, block) for v in ("base", "more") for block in (0, 1)],
                       notices=[Notice("load", "load average 3 on 2 cores"), Notice("stop", "fixed: 2 blocks"),
                                Notice("noisy", "varies", benchmark=bench)])
        merged = merge_unit(run, unit_run, machine)
        assert {s.machine for s in merged.samples} == {machine}
    assert {(s.benchmark, s.machine) for s in run.samples} == {("a", "w1"), ("b", "w1"), ("c", "w2")}
    assert len(run.samples) == 12
    messages = sorted(n.message for n in run.notices if n.kind == "load")
    assert messages == ["w1: load average 3 on 2 cores", "w2: load average 3 on 2 cores"]
    assert not [n for n in run.notices if n.kind == "stop"]  # each unit's stop is told in the machines note
    assert sorted(n.benchmark for n in run.notices if n.kind == "noisy") == ["a", "b", "c"]
    assert {m: e["benchmarks"] for m, e in run.metadata["machines"].items()} == {"w1": ["a", "b"], "w2": ["c"]}
    assert run.metadata["unit_stops"]["c"]["stop"] == "fixed"


def _cmp(bench: str, verdict: str, candidate: str = "more"):
    from pairbench.model import Comparison

    ratio = {"slower": 1.3, "faster": 0.7}.get(verdict, 1.0)
    return Comparison(benchmark=bench, metric="time", baseline="base", candidate=candidate, ratio=ratio,
                      ci=(ratio * 0.9, ratio * 1.1), p_value=0.001, n=10, significant=verdict != "inconclusive",
                      meaningful=verdict != "inconclusive", verdict=verdict, more_runs=None)


def test_machines_that_disagree_are_said_so_and_agreement_is_counted() -> None:
    from pairbench.cluster.units import agreement_notices, per_machine_name

    origin = {per_machine_name(b, m): (b, m) for b in ("x", "y", "z") for m in ("w1", "w2")}
    comparisons = [_cmp("x @ w1", "slower"), _cmp("x @ w2", "faster"),
                   _cmp("y @ w1", "slower"), _cmp("y @ w2", "slower"),
                   _cmp("z @ w1", "slower"), _cmp("z @ w2", "inconclusive")]
    notices = agreement_notices(comparisons, origin)
    disagree = [n for n in notices if n.kind == "machines-disagree"]
    assert [(n.benchmark, n.message) for n in disagree] == [
        ("x", "more vs the baseline, time: the machines disagree — slower on w1; faster on w2")]
    agree = [n for n in notices if n.kind == "machines-agree"]
    assert len(agree) == 1 and "1 comparison: y (time, more): slower" in agree[0].message
    assert "z" not in agree[0].message  # an inconclusive machine is neither agreement nor contradiction


def test_a_benchmark_measured_on_every_machine_is_compared_per_machine() -> None:
    run = _run()
    bench = run.benchmark("a")
    for machine in ("w1", "w2"):
        unit_run = Run(metadata={}, variants=run.variants, benchmarks=[bench],
                       samples=[Sample("a", v, "time", 1.0, 0) for v in ("base", "more")],
                       notices=[Notice("noisy", "varies", benchmark="a")],
                       series=[ProcessSeries("a", "more", 0, 0, "time", 2, (1.0,) * 14)])
        merge_unit(run, unit_run, machine, per_machine=True)
    assert {(s.benchmark, s.machine) for s in run.samples} == {("a @ w1", "w1"), ("a @ w2", "w2")}
    assert [b.name for b in run.benchmarks][-2:] == ["a @ w1", "a @ w2"]
    assert sorted(n.benchmark for n in run.notices if n.kind == "noisy") == ["a @ w1", "a @ w2"]
    assert [x.benchmark for x in run.series] == ["a @ w1", "a @ w2"], "each process's batches are kept"


def test_a_unit_stopped_mid_run_says_so_with_the_blocks_it_finished() -> None:
    run = _run()
    unit_run = Run(metadata={"hostname": "w1", "blocks": 3}, variants=run.variants, benchmarks=[run.benchmark("a")],
                   samples=[Sample("a", v, "time", 1.0, block) for v in ("base", "more") for block in (0, 1, 2)],
                   status="interrupted")
    merge_unit(run, unit_run, "w1")
    assert run.metadata["unit_stops"]["a"] == {"stop": "interrupted", "blocks": 3, "elapsed_s": None}
    assert len(run.samples) == 6


def test_a_units_profiles_reach_the_merged_run() -> None:
    """`--profile` (or a suite's `profile`) travels in the unit's options; its stacks come back merged."""
    from pairbench.model import Profile

    run = _run()
    unit = split_units(run, seed=3)[0]
    assert json.loads(json.dumps(unit_payload(unit, {"profile": 3}, None, None)))["options"]["profile"] == 3
    for machine, per_machine in (("w1", False), ("w2", True)):
        unit_run = Run(metadata={}, variants=run.variants, benchmarks=[run.benchmark("a")],
                       samples=[Sample("a", v, "time", 1.0, 0) for v in ("base", "more")],
                       profiles=[Profile("a", v, 0, "fake", "samples", (("main;work", 5.0),)) for v in ("base", "more")])
        merge_unit(run, unit_run, machine, per_machine=per_machine)
    assert sorted((p.benchmark, p.variant) for p in run.profiles) == [
        ("a", "base"), ("a", "more"), ("a @ w2", "base"), ("a @ w2", "more")]
