"""Differential profiles (analysis/profiles.py) on synthetic folded stacks with a known truth."""

from __future__ import annotations

import random

import pytest

from pairbench.analysis.profiles import (
    MIN_SAMPLES,
    clean_frame,
    difference,
    differential_stacks,
    format_folded,
    frame_times,
    parse_folded,
    profile_differences,
)
from pairbench.model import Benchmark, Metric, Profile, Run, Sample, Variant
from pairbench.store.runfile import dumps_run, loads_run


def _sampled(weights: dict[str, float], n: int, rng: random.Random) -> dict[str, float]:
    """n samples drawn from the stacks in proportion to `weights`: what a sampler sees."""
    stacks = list(weights)
    out: dict[str, float] = {}
    for stack in rng.choices(stacks, weights=[weights[s] for s in stacks], k=n):
        out[stack] = out.get(stack, 0) + 1
    return out


BASE = {"main;setup": 2.0, "main;work": 4.0, "main;work;helper": 2.0, "main": 2.0}
"""A run of 10 s: setup 2, work 4 (and 2 more in helper under it), main itself 2."""


def test_parse_folded_cleans_frames_and_drops_empty_stacks() -> None:
    text = ('process 7305:"sh -c python p.py";process 7307:"python p.py" 2\n'
            'process 7305:"sh -c python p.py";process 7307:"python p.py";<module> (/a/b/p.py);fast (/a/b/p.py) 4\n'
            '<module> (p.py);fast (p.py) 1\n'
            ' 3\n'
            'garbage line\n')
    assert parse_folded(text) == {"<module> (p.py);fast (p.py)": 5.0}
    assert clean_frame("work (/src/x/y.py)") == "work (y.py)"
    assert clean_frame("_find_and_load (<frozen importlib._bootstrap>)") == "_find_and_load (<frozen importlib._bootstrap>)"


def test_folded_text_round_trips() -> None:
    stacks = {"a;b": 3.0, "a": 1.5, "c": -2.0}
    assert parse_folded(format_folded({k: v for k, v in stacks.items() if v > 0})) == {"a;b": 3.0, "a": 1.5}
    assert format_folded(stacks).splitlines()[0] == "a;b 3"
    assert "c -2" in format_folded(stacks)


def test_frame_times_self_and_total_add_up() -> None:
    own, total = frame_times(BASE, 10.0)
    assert own == pytest.approx({"setup": 2.0, "work": 4.0, "helper": 2.0, "main": 2.0})
    assert total["main"] == pytest.approx(10.0)
    assert total["work"] == pytest.approx(6.0)
    assert sum(own.values()) == pytest.approx(10.0)


def test_recursion_counts_a_frame_once_per_stack() -> None:
    _, total = frame_times({"f;f;f": 1.0, "g": 1.0}, 2.0)
    assert total["f"] == pytest.approx(1.0)


def test_one_function_slower_takes_the_whole_difference() -> None:
    """Truth: the candidate spends 4 s more in `work` (10 s -> 14 s): work's share is 100%."""
    cand = {**BASE, "main;work": 8.0}
    frames = difference([BASE], [cand], 10.0, 14.0)
    assert frames[0].frame == "work"
    assert frames[0].self_s == pytest.approx(4.0)
    assert frames[0].self_share == pytest.approx(1.0)
    assert frames[0].total_share == pytest.approx(1.0)
    assert sum(f.self_s for f in frames) == pytest.approx(4.0)
    main = next(f for f in frames if f.frame == "main")
    assert main.total_share == pytest.approx(1.0) and main.self_s == pytest.approx(0.0)


def test_time_moved_between_functions_shows_both_with_signs() -> None:
    """Truth: helper +3 s, setup -1 s (10 s -> 12 s): shares +150% and -50%."""
    cand = {**BASE, "main;work;helper": 5.0, "main;setup": 1.0}
    frames = {f.frame: f for f in difference([BASE], [cand], 10.0, 12.0)}
    assert frames["helper"].self_share == pytest.approx(1.5)
    assert frames["setup"].self_share == pytest.approx(-0.5)
    assert frames["work"].total_share == pytest.approx(1.5)


def test_sampled_blocks_recover_the_truth_within_ten_points() -> None:
    """Sampling noise, 5 blocks of 400 samples: work's share is within 10 points of 100%, and the
    frames that did not change have intervals that hold zero."""
    rng = random.Random(20261202)
    cand = {**BASE, "main;work": 9.0}  # +5 s on 10 s: +50% of the run in one function
    b = [_sampled(BASE, 400, rng) for _ in range(5)]
    c = [_sampled(cand, 400, rng) for _ in range(5)]
    frames = difference(b, c, 10.0, 15.0)
    assert frames[0].frame == "work"
    assert frames[0].self_share == pytest.approx(1.0, abs=0.10)
    assert not frames[0].noise
    unchanged = [f for f in frames if f.frame in ("setup", "helper", "main")]
    assert sum(f.noise for f in unchanged) >= 2


def test_no_difference_has_no_shares() -> None:
    frames = difference([BASE], [BASE], 10.0, 10.0)
    assert all(f.self_share is None for f in frames)


def test_differential_stacks_sum_to_the_difference() -> None:
    cand = {**BASE, "main;work": 8.0}
    diff = differential_stacks([BASE], [cand], 10.0, 14.0)
    assert diff == pytest.approx({"main;work": 4.0})


def _run(with_short: bool = False) -> Run:
    metric = Metric("time", "s", "lower")
    run = Run(metadata={}, variants=[Variant("A", baseline=True), Variant("B")],
              benchmarks=[Benchmark("b", "command", (metric,))])
    for block in range(4):
        run.samples.append(Sample("b", "A", "time", 10.0, block))
        run.samples.append(Sample("b", "B", "time", 14.0, block))
    scale = 0.1 if with_short else 10.0
    cand = {**BASE, "main;work": 8.0}
    for block in range(3):
        run.profiles.append(Profile("b", "A", block, "fake", "samples",
                                    tuple((k, v * scale) for k, v in BASE.items())))
        run.profiles.append(Profile("b", "B", block, "fake", "samples",
                                    tuple((k, v * scale) for k, v in cand.items())))
    return run


def test_profile_differences_of_a_run_and_its_file() -> None:
    run = loads_run(dumps_run(_run()))
    (diff,) = profile_differences(run)
    assert (diff.baseline, diff.candidate, diff.blocks) == ("A", "B", 3)
    assert diff.difference_s == pytest.approx(4.0)
    assert diff.added()[0].frame == "work" and diff.added()[0].self_share == pytest.approx(1.0)
    assert not diff.too_short


def test_too_few_samples_is_said() -> None:
    (diff,) = profile_differences(_run(with_short=True))
    assert sum(diff.samples) < 2 * MIN_SAMPLES and diff.too_short


def test_a_run_without_profiles_keeps_its_file_as_before() -> None:
    run = _run()
    run.profiles.clear()
    assert '"profiles"' not in dumps_run(run)
    assert profile_differences(run) == []


def test_a_kind_without_a_profiler_gets_one_notice_and_its_verdict() -> None:
    """The session's profiling blocks: a runner without `profile` is said once, never fails the run."""
    from pairbench.runners.fake import FakeRunner
    from pairbench.session import RunOptions, execute

    class Plain:
        def __init__(self) -> None:
            self.inner = FakeRunner(positional=(1.0, 1.5))

        def prepare(self, benchmark, variants):
            return self.inner.prepare(benchmark, variants)

        def measure(self, benchmark, variant, block, warmup, progress):
            return self.inner.measure(benchmark, variant, block, warmup, progress)

        def close(self) -> None:
            self.inner.close()

    import tempfile

    metric = Metric("time", "s", "lower")
    run = Run(metadata={}, variants=[Variant("A", baseline=True), Variant("B")],
              benchmarks=[Benchmark("b", "fake", (metric,))])
    with tempfile.TemporaryDirectory() as tmp:
        execute(run, {"fake": Plain()}, RunOptions(runs=6, profile=3, export_json=f"{tmp}/r.json",
                                                   record_history=False))
    assert [n.kind for n in run.notices].count("profile") == 1
    assert not run.profiles and run.comparisons[0].verdict == "slower"


def test_ruby_is_sampled_by_stackprof_when_it_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    from pairbench.runners import samplers

    monkeypatch.setattr(samplers, "_stackprof", lambda: "/usr/bin/stackprof")
    chosen = samplers.choose_sampler(["/usr/bin/ruby", "ruby3.1"])
    assert chosen.name == "stackprof"
    argv, env = chosen.wrap(["ruby", "x.rb"], {"RUBYOPT": "-W0"})
    assert argv == ["ruby", "x.rb"] and env["RUBYOPT"].startswith("-W0 -r")
    chosen.close()


def test_ruby_without_a_ruby_sampler_says_what_is_shown_instead(monkeypatch: pytest.MonkeyPatch) -> None:
    """No stackprof: the interpreter is profiled as a native program, and one line says so."""
    from pairbench.runners import samplers

    monkeypatch.setattr(samplers, "_stackprof", lambda: None)
    monkeypatch.setattr(samplers, "_perf_records", lambda: "")
    chosen = samplers.choose_sampler(["ruby"])
    assert chosen.name == "perf"
    assert chosen.note == samplers.RUBY_NO_SAMPLER
    assert "no Ruby-level sampler" in chosen.note and "C frames" in chosen.note and "\n" not in chosen.note
    assert getattr(samplers.choose_sampler(["/usr/bin/python3"]), "note", "") == ""


def test_the_differences_are_stored_in_the_run_file() -> None:
    run = _run()
    run.profile_differences = profile_differences(run)
    text = dumps_run(run)
    assert '"profile_differences"' in text
    back = loads_run(text)
    assert back.profile_differences == run.profile_differences
    (d,) = back.profile_differences
    assert d.added()[0].frame == "work" and isinstance(d.added()[0].noise, bool)


def test_the_reports_read_the_stored_differences_and_recompute_nothing() -> None:
    """A stored figure is what every report shows, even one the stacks would not give."""
    import dataclasses

    from pairbench.report.flamegraph import profiles_html
    from pairbench.report.profiles import where_markdown

    run = _run()
    (d,) = profile_differences(run)
    frames = tuple(dataclasses.replace(f, frame="stored-" + f.frame) for f in d.frames)
    run.profile_differences = [dataclasses.replace(d, frames=frames)]
    md = "\n".join(where_markdown(run, lambda s: s))
    assert "stored-work" in md and "| work |" not in md
    assert "stored-work" in profiles_html(run, "b")
    run.profile_differences = []
    assert where_markdown(run, lambda s: s) == []


def test_a_file_written_before_they_were_stored_gets_them_once_at_load(tmp_path) -> None:
    """Migration: a run file with profiles but no `profile_differences` is analysed when it is read."""
    import json

    from pairbench.flows.saved import load_results, load_run

    run = _run()
    run.status = "complete"
    doc = json.loads(dumps_run(run))
    assert "profile_differences" not in doc or not doc["profile_differences"]
    doc.pop("profile_differences", None)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    for loaded in (load_run(str(path)), load_results(str(path))):
        (d,) = loaded.profile_differences
        assert d.added()[0].frame == "work" and d.added()[0].self_share == pytest.approx(1.0)


@pytest.mark.parametrize(("value", "flags", "blocks"), [
    ("true", [], 3), ("5", [], 5), ("false", [], 0), ("false", ["--profile"], 3), ("5", ["--profile-blocks", "2"], 2),
    ("5", ["--profile"], 5),
])
def test_a_suite_file_asks_for_profile_in_its_defaults(value: str, flags: list[str], blocks: int) -> None:
    """`[defaults] profile = true | N`: the flags win (--profile-blocks N; --profile keeps the suite's count)."""
    import argparse

    from pairbench.commands.common import add_run_options, options_from_args
    from pairbench.flows.builders.suite import suite_defaults
    from pairbench.suite import parse_suite

    suite = parse_suite(f"[defaults]\nprofile = {value}\n[variants.a]\ncommand = 'true'\n[variants.b]\n"
                        "command = 'true'\n[benchmarks.x]\ncommand = '{variant}'\n")
    parser = argparse.ArgumentParser()
    add_run_options(parser)
    assert options_from_args(parser.parse_args(flags), **suite_defaults(suite)).profile == blocks


def test_a_bad_profile_in_a_suite_file_is_one_error() -> None:
    from pairbench.errors import UserError
    from pairbench.suite import parse_suite

    with pytest.raises(UserError, match="profile"):
        parse_suite("[defaults]\nprofile = 'yes'\n[variants.a]\ncommand = 'true'\n[benchmarks.x]\ncommand = '{variant}'\n")


def test_profiling_blocks_are_outside_the_max_time_budget_and_the_note_says_their_time() -> None:
    """Timed steps cost 1 s and profiled runs 30 s on the run's clock: --max-time 20 still gets its
    timed blocks (2 steps each, ~9 more after the first), and the stop note gives the profiling time apart."""
    import tempfile

    from pairbench.runners.fake import FakeRunner
    from pairbench.session import RunOptions, execute

    now = [0.0]

    class Timed:
        def __init__(self) -> None:
            self.inner = FakeRunner(positional=(1.0, 1.5))

        def prepare(self, benchmark, variants):
            return self.inner.prepare(benchmark, variants)

        def measure(self, benchmark, variant, block, warmup, progress):
            now[0] += 1.0
            return self.inner.measure(benchmark, variant, block, warmup, progress)

        def profile(self, benchmark, variant, block, progress):
            now[0] += 30.0
            return self.inner.profile(benchmark, variant, block, progress)

        def close(self) -> None:
            self.inner.close()

    metric = Metric("time", "s", "lower")
    run = Run(metadata={}, variants=[Variant("A", baseline=True), Variant("B")],
              benchmarks=[Benchmark("b", "fake", (metric,))])
    with tempfile.TemporaryDirectory() as tmp:
        execute(run, {"fake": Timed()}, RunOptions(runs=3, warmup=0, max_time=20.0, profile=3, stop_early=False,
                                                   export_json=f"{tmp}/r.json", record_history=False),
                clock=lambda: now[0])
    assert run.metadata["blocks"] >= 8  # without the profiling blocks' 180 s the budget holds ~10 blocks
    assert len(run.profiles) == 6
    (note,) = [n.message for n in run.notices if n.kind == "budget"]
    assert "profiling" in note and "180 s" in note, note


def test_a_ruby_server_is_attached_to_by_perf_with_the_line_saying_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """stackprof starts inside the program, so it cannot attach to a running server (`http`)."""
    from pairbench.runners import samplers

    monkeypatch.setattr(samplers, "_stackprof", lambda: "/usr/bin/stackprof")
    monkeypatch.setattr(samplers, "_perf_records", lambda: "")
    chosen = samplers.choose_sampler(["ruby"], attaching=True)
    assert chosen.name == "perf" and hasattr(chosen, "attach")
    assert "C frames" in chosen.note and "cannot attach" in chosen.note


def test_two_scripts_share_their_frames() -> None:
    """`cmd 'python old.py' 'python new.py' --profile` keyed every frame by its script, so an unchanged
    `g` showed as +3 s in new.py and -3 s in old.py: the variants' own scripts are one file."""
    metric = Metric("time", "s", "lower")
    run = Run(metadata={}, variants=[Variant("old", "python /src/old.py", baseline=True), Variant("new", "python new.py")],
              benchmarks=[Benchmark("b", "command", (metric,))])
    for block in range(4):
        run.samples.append(Sample("b", "old", "time", 10.0, block))
        run.samples.append(Sample("b", "new", "time", 14.0, block))
    old = {"<module> (old.py);f (old.py)": 40.0, "<module> (old.py);g (old.py)": 30.0, "load (json/decoder.py)": 30.0}
    new = {k.replace("old.py", "new.py"): v for k, v in old.items()}
    new["<module> (new.py);f (new.py)"] += 40.0
    for block in range(3):
        run.profiles.append(Profile("b", "old", block, "py-spy", "samples", tuple(old.items())))
        run.profiles.append(Profile("b", "new", block, "py-spy", "samples", tuple(new.items())))
    (diff,) = profile_differences(run)
    [f] = [x for x in diff.frames if x.frame.startswith("f (")]
    assert "old.py" in f.frame and "new.py" in f.frame
    assert f.self_share == pytest.approx(1.0, abs=0.15)
    assert all(abs(x.self_s) < 0.5 for x in diff.frames if not x.frame.startswith("f ("))
