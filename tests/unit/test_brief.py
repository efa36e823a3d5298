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
