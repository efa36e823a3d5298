"""The terminal table, printed to a fixed-width colourless console."""

import io

from rich.console import Console

from pairbench.model import Benchmark, Comparison, Metric, Notice, Run, Sample, Variant
from pairbench.report.terminal import render_terminal


def make_run():
    samples = []
    for block in range(6):
        samples.append(Sample("sort", "A", "time", 0.100 + 0.001 * block, block))
        samples.append(Sample("sort", "B", "time", 0.090 + 0.001 * block, block))
    c = Comparison("sort", "time", "A", "B", 0.9, (0.88, 0.92), 0.001, 6, True, True, "faster", None,
                   sentence="B is 10.0% faster than A (ratio 0.900, 95% CI [0.880, 0.920])")
    return Run(
        metadata={"blocks": 6, "run_file": "/tmp/r.json"},
        variants=[Variant("A", baseline=True), Variant("B")],
        benchmarks=[Benchmark("sort", "command", (Metric("time"),))],
        samples=samples,
        comparisons=[c],
        notices=[Notice("nonzero-exit", "`x` exited with code 1", "", "sort", "B")] * 3
        + [Notice("adaptive", "stopped after 6 blocks: every comparison is settled")],
        status="complete",
    )


def render(run):
    buf = io.StringIO()
    render_terminal(run, Console(file=buf, width=200, color_system=None, force_terminal=False))
    return buf.getvalue()


def test_table_shows_medians_ratio_ci_and_verdict():
    text = render(make_run())
    row = next(line for line in text.splitlines() if line.startswith("time"))
    assert "102.5 ms ±" in row and "92.50 ms ±" in row
    assert "0.900" in row and "[0.880, 0.920]" in row and "faster" in row
    assert "B is 10.0% faster than A" in text


def test_repeated_notices_are_grouped_and_info_is_not_a_warning():
    text = render(make_run())
    assert text.count("exited with code 1") == 1
    assert "(×3)" in text
    assert "note: stopped after 6 blocks" in text
    assert "run file: /tmp/r.json" in text


def test_interrupted_run_says_so():
    run = make_run()
    run.status = "interrupted"
    assert "run interrupted" in render(run)


def test_a_noise_notice_on_a_url_names_it_once_and_readably():
    """An HTTP benchmark is named by its URL path ("/"): the notice reads `[/ · work=30]`, said once."""
    from pairbench.analysis import analyze

    samples = [Sample("/", v, "req_per_s", x, b)
               for b, (x1, x2) in enumerate([(480, 190), (485, 150), (478, 210), (482, 170), (481, 205), (484, 160)])
               for v, x in (("work=10", x1), ("work=30", x2))]
    run = Run(metadata={}, variants=[Variant("work=10", baseline=True), Variant("work=30")],
              benchmarks=[Benchmark("/", "http", (Metric("req_per_s", "req/s", "higher"),))], samples=samples)
    run.comparisons, run.notices = analyze(run)
    text = " ".join(render(run).split())
    assert "warning [/ · work=30]: req_per_s: replicate values vary by" in text, text
    assert "/ / work=30" not in text
