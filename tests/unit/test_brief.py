"""The short report's rules on notes and warnings (report/brief.py)."""

from __future__ import annotations

from pairbench.model import Notice
from pairbench.report.brief import merged_notices, reading_note


def test_the_same_warning_per_variant_is_one_line_with_the_range_of_its_figures():
    notices = [Notice("stats:noise", "time: replicate values vary by 16.8% (CV)", "close other programs", "cmd", "a"),
               Notice("stats:noise", "time: replicate values vary by 23.3% (CV)", "close other programs", "cmd", "b"),
               Notice("machine-busy", "load average 5.00 on 2 cores when the run started", "")]
    merged = merged_notices(notices)
    assert len(merged) == 2
    assert merged[0].message == "time: replicate values vary by 16.8–23.3% (CV)" and merged[0].variant == ""
    assert merged[1] == notices[2]


def test_an_identical_note_for_each_variant_is_said_once():
    notices = [Notice("shim-resolved", "`py` is a pyenv shim", "", "cmd", v) for v in ("a", "b")]
    assert [n.message for n in merged_notices(notices)] == ["`py` is a pyenv shim"]


def test_notes_that_repeat_the_sentence_or_the_caption_are_left_to_verbose():
    assert not reading_note("adjusted for multiple comparisons: Holm across 2 comparisons; adjusted p = 0.01")
    assert not reading_note("CI at 99%: 95% over 5 planned looks (Bonferroni, adaptive stopping)")
    assert not reading_note("significant, but may be below the ±1% noise band")
    assert reading_note("bimodal differences: in 5 blocks the change is about +1.0%, in 6 about +9.0%")
    assert reading_note("drift: the differences trend with block order (Kendall τ = 0.50, p = 0.001)")


def test_how_a_command_was_started_is_left_to_verbose():
    """`ran directly, without a shell` changes no verdict's reading: the short answer leaves it to -v;
    the warning that the shell's start-up decides the times stays."""
    import io

    from rich.console import Console

    from pairbench.report.brief import render_brief
    from tests.unit.runs_by_hand import make_run

    run = make_run()
    run.notices.extend([Notice("no-shell", "ran directly, without a shell (no shell syntax): nothing is subtracted",
                               "", run.benchmarks[0].name),
                        Notice("shell-startup", "runs shorter than the shell's start-up read 0", "use -N",
                               run.benchmarks[0].name)])
    out = io.StringIO()
    render_brief(run, Console(file=out, width=100, color_system=None))
    text = out.getvalue()
    assert "ran directly" not in text
    assert "shell's start-up read 0" in text


def test_steady_states_are_left_to_verbose_unless_a_process_never_settled():
    """Each variant's classifications are a -v note; a process that never reached a steady state
    (or slowed down) changes how to read the verdict, so that warning stays in the short answer."""
    import io

    from rich.console import Console

    from pairbench.report.brief import render_brief
    from pairbench.report.terminal import render_terminal
    from tests.unit.runs_by_hand import make_run

    run = make_run()
    bench = run.benchmarks[0].name
    run.notices.extend([Notice("stats:steady-state", "steady state of 4 processes: 4 warm-up then steady "
                               "(warm-up 5 samples, median)", "", bench, "pypy"),
                        Notice("stats:no-steady-state", "1 of 4 processes never reached a steady state", "", bench,
                               "pypy")])
    out = io.StringIO()
    render_brief(run, Console(file=out, width=200, color_system=None))
    assert "warm-up then steady" not in out.getvalue()
    assert "never reached a steady state" in out.getvalue()
    full = io.StringIO()
    render_terminal(run, Console(file=full, width=200, color_system=None))
    assert "note [" + bench + " · pypy]: steady state of 4 processes: 4 warm-up then steady" in full.getvalue()


def _drifting_three_variant_run():
    """Baseline a; candidates b and c whose ratio to a trends with block order: a drift note each."""
    import math

    from pairbench.analysis import analyze
    from pairbench.model import Benchmark, Metric, Run, Sample, Variant

    samples = []
    for block in range(40):
        for variant, step in (("a", 0.0), ("b", 0.002), ("c", -0.003)):
            wobble = 0.001 * math.sin(block * 1.7 + len(variant))
            samples.append(Sample("w", variant, "time", 0.1 * math.exp(step * block + wobble), block))
    run = Run({"blocks": 40}, [Variant("a", baseline=True), Variant("b"), Variant("c")],
              [Benchmark("w", "command", (Metric("time", "s"),))], samples)
    run.comparisons, run.notices = analyze(run)
    return run


def test_each_note_names_the_comparison_it_is_about():
    """Two comparisons with a drift note each printed `note: drift: ...` twice with other numbers,
    neither saying which candidate it was about."""
    import io

    from rich.console import Console

    from pairbench.report.brief import render_brief

    run = _drifting_three_variant_run()
    assert all(any(n.startswith("drift") for n in c.notes) for c in run.comparisons)
    out = io.StringIO()
    render_brief(run, Console(file=out, width=200, color_system=None))
    notes = [line for line in out.getvalue().splitlines() if line.startswith("note") and "drift" in line]
    assert len(notes) == 2, out.getvalue()
    assert any(n.startswith("note [time · b]: drift:") for n in notes), notes
    assert any(n.startswith("note [time · c]: drift:") for n in notes), notes


def _micro_like_run(bytes_moved: bool):
    """time_per_op with its inverse ops_per_s, and exact allocation counts, as `micro` stores them."""
    import random

    from pairbench.analysis import analyze
    from pairbench.model import Benchmark, Metric, Run, Sample, Variant

    rng = random.Random(4)
    metrics = (Metric("time_per_op", "s"), Metric("ops_per_s", "op/s", "higher"),
               Metric("mem_blocks_per_op", "count", exact=True), Metric("mem_bytes_per_op", "B", exact=True),
               Metric("gc_per_1k_ops", "count", exact=True))
    samples = []
    for block in range(12):
        for variant, scale in (("a", 1.0), ("b", 1.2)):
            t = 8e-6 * scale * (1 + rng.gauss(0, 0.01))
            grown = 1.5 if bytes_moved and variant == "b" else 1.0
            for name, value in (("time_per_op", t), ("ops_per_s", 1 / t), ("mem_blocks_per_op", 2.0),
                                ("mem_bytes_per_op", 96.0 * grown), ("gc_per_1k_ops", 0.0)):
                samples.append(Sample("join", variant, name, value, block))
    run = Run({"blocks": 12}, [Variant("a", baseline=True), Variant("b")],
              [Benchmark("join", "micro", metrics)], samples)
    run.comparisons, run.notices = analyze(run)
    return run


def test_a_micro_answer_says_the_time_once_and_folds_the_counts_that_did_not_move():
    """The rate is the time inverted (one finding, said by the time's row and sentence); exact
    counts that did not change are one line, as CPU time and RSS are beside a command's time."""
    import io

    from rich.console import Console

    from pairbench.report.brief import render_brief

    out = io.StringIO()
    render_brief(_micro_like_run(bytes_moved=False), Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    assert "time_per_op: b is" in text and "slower" in text
    assert "ops_per_s" not in text, text
    assert "mem_blocks_per_op, mem_bytes_per_op, gc_per_1k_ops: no meaningful change found" in text, text
    out = io.StringIO()
    render_brief(_micro_like_run(bytes_moved=True), Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    assert "  mem_bytes_per_op: b vs a: +48.00 B (+50.0%)" in text, text  # a count that moved: its row and sentence
    assert "mem_blocks_per_op, gc_per_1k_ops: no meaningful change found" in text, text


def test_a_command_shorter_than_the_shells_start_up_is_said_once():
    """The runner's warning (with sh's start-up spread) and a note on each comparison ("the command is
    shorter than the spread of the shell's start-up ... run it without the shell (-N)") said it twice."""
    import io
    import random

    from rich.console import Console

    from pairbench.analysis import analyze
    from pairbench.model import Benchmark, Metric, Run, Sample, Variant
    from pairbench.report.brief import render_brief

    rng = random.Random(3)
    samples = [Sample("loop", v, "time", max(0.0, rng.gauss(3e-4, 6e-4)), b) for b in range(10) for v in ("a", "b")]
    notices = [Notice("shell", "ran through `sh -c` (shell syntax)", "", "loop"),
               Notice("shell-startup", "`:` is shorter than the spread of sh's start-up (0.5 ms to 5 ms in 30 runs)",
                      "run it without a shell (-N) or make each run longer", "loop")]
    run = Run({}, [Variant("a", baseline=True), Variant("b")], [Benchmark("loop", "command", (Metric("time", "s"),))],
              samples, notices=notices)
    assert any(s.value == 0 for s in samples)
    run.comparisons, _ = analyze(run)
    out = io.StringIO()
    render_brief(run, Console(file=out, width=300, color_system=None))
    assert out.getvalue().count("spread of") == 1, out.getvalue()
