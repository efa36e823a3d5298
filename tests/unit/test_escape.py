"""Control characters in names reach the terminal escaped (report/escape.py, report/terminal.py)."""

from __future__ import annotations

import io

from rich.console import Console

from pairbench.model import Benchmark, Metric, Notice, Run, Sample, Variant
from pairbench.report.escape import VisibleStream, visible
from pairbench.report.terminal import render_terminal

OSC_TITLE = "\x1b]0;pwned\x07"


def test_visible_escapes_controls_formats_and_newlines_in_names() -> None:
    assert visible(OSC_TITLE) == "\\x1b]0;pwned\\a"
    assert visible("a\nb\tc\rd") == "a\\nb\\tc\\rd"
    assert visible("evil\u202egnp.exe") == "evil\\u202egnp.exe"  # right-to-left override
    assert visible("\x9b31m") == "\\x9b31m"  # C1 CSI
    assert visible("café · work=30 [bold]") == "café · work=30 [bold]"  # printable text is untouched
    assert visible("line 1\nline 2\x1b[2J", keep_newlines=True) == "line 1\nline 2\\x1b[2J"


def test_stream_lets_its_own_styling_through_and_escapes_the_rest() -> None:
    out = io.StringIO()
    VisibleStream(out).write(f"\x1b[1;32mfaster\x1b[0m {OSC_TITLE}\x1b[2J\n")
    assert out.getvalue() == "\x1b[1;32mfaster\x1b[0m \\x1b]0;pwned\\a\\x1b[2J\n"
    err = io.StringIO()
    VisibleStream(err, stderr=True).write("\r\x1b[2K\x1b[1Ablock 3/10\x1b]2;x\x07")
    assert err.getvalue() == "\r\x1b[2K\x1b[1Ablock 3/10\\x1b]2;x\\a"


def test_terminal_table_shows_hostile_names_escaped_and_never_as_markup() -> None:
    names = [f"base{OSC_TITLE}", "cand\nforged line", "[red]x[/red]"]
    samples = [Sample(f"b{OSC_TITLE}", v, "time", 0.1 + 0.001 * i, i) for i in range(6) for v in names]
    run = Run(metadata={"blocks": 6, "run_file": f"/tmp/r{OSC_TITLE}.json"},
              variants=[Variant(names[0], baseline=True), Variant(names[1]), Variant(names[2])],
              benchmarks=[Benchmark(f"b{OSC_TITLE}", "command", (Metric("time"),))], samples=samples,
              notices=[Notice("x", f"`{OSC_TITLE}` exited with code 1", "", f"b{OSC_TITLE}", names[1])])
    buf = io.StringIO()
    render_terminal(run, Console(file=buf, width=200, color_system=None, force_terminal=False))
    text = buf.getvalue()
    assert "\x1b" not in text and "\x07" not in text
    assert "b\\x1b]0;pwned\\a" in text and "base\\x1b]0;pwned\\a (baseline)" in text
    assert "cand\\nforged line" in text and not any(line.startswith("forged line") for line in text.splitlines())
    assert "[red]x[/red]" in text
    assert "warning [b\\x1b]0;pwned\\a · cand\\nforged line]: `\\x1b]0;pwned\\a` exited" in text


def test_stream_of_a_command_without_styling_escapes_styling_from_names_too() -> None:
    out = io.StringIO()
    stream = VisibleStream(out)
    stream.styled = False  # report, compare, history: their output has no styling of its own
    stream.write("head\x1b[31m\x1b[8m hidden\n")
    assert out.getvalue() == "head\\x1b[31m\\x1b[8m hidden\n"
