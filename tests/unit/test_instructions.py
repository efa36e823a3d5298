"""`--measure instructions`: parsing what to measure, the counters' outputs, and the metrics a benchmark yields."""

from __future__ import annotations

import pytest

from pairbench.errors import UserError
from pairbench.runners.instructions import InstructionCounter, parse_cachegrind, parse_measure, parse_perf
from pairbench.runners.kinds import get_kind
from pairbench.runners.options import Flags

CACHEGRIND_OUT = """desc: I1 cache:         32768 B, 64 B, 8-way associative
cmd: ./loop 1000000
events: Ir
fl=/tmp/loop.c
fn=main
0 4000014
summary: 4124326
"""


def test_measure_lists_are_parsed_and_bad_names_refused() -> None:
    assert parse_measure("instructions,time") == ("instructions", "time")
    # a metric named twice is refused, as hyperfine refuses a repeated option value: which of the
    # two did the user mean to be first (primary)?
    for twice in ("time,time", ["time", "instructions", "time"], "cycles, instructions,cycles"):
        with pytest.raises(UserError, match=r"measure '[^']+': (time|cycles) is named twice; name each once"):
            parse_measure(twice)
    with pytest.raises(UserError, match="measure 'cycels': valid: time, instructions, counters, cycles"):
        parse_measure("instructions,cycels")
    with pytest.raises(UserError, match="measure 'cycles': valid: time, instructions"):
        parse_measure("instructions,cycles", ("time", "instructions"))
    # the counter set is wall time first, then every counter, each once
    assert parse_measure("counters,instructions")[:3] == ("time", "cycles", "instructions")
    assert len(parse_measure("counters,instructions")) == 9
    with pytest.raises(UserError):
        parse_measure(",")


def test_counter_outputs_are_read() -> None:
    assert parse_cachegrind(CACHEGRIND_OUT) == 4124326
    with pytest.raises(ValueError):
        parse_cachegrind("events: Ir\n")
    assert parse_perf("# started on Tue\n\n123456789,,instructions:u,1000,100.00,,\n") == 123456789
    assert parse_perf("<not supported>,,instructions:u,0,100.00,,\n") is None


def test_the_first_measure_named_is_the_primary_exact_metric() -> None:
    kind = get_kind("command")

    def names(measure: str | None) -> list[tuple[str, bool]]:
        typed = kind.parse_options({"command": "{variant}", "measure": measure}, Flags({"measure": "--measure"}))
        return [(m.name, m.exact) for m in kind.metrics(typed, ())]

    assert names(None) == [("time", False), ("user", False), ("sys", False), ("rss", False), ("exit_code", False)]
    assert names("instructions") == [("instructions", True), ("exit_code", False)]
    assert names("instructions,time")[:2] == [("instructions", True), ("time", False)]
    assert names("time,instructions")[:2] == [("time", False), ("instructions", True)]
    assert [n for n, _ in names("instructions,time")][2:] == ["user", "sys", "rss", "exit_code"]
    with pytest.raises(UserError, match="--measure 'cycle': valid"):
        names("cycle")


def test_a_counted_run_drops_the_padding_and_sets_the_knobs(tmp_path) -> None:
    counter = InstructionCounter("valgrind", "perf cannot count here: no counter", True, out_dir=str(tmp_path))
    argv, env = counter.wrap(["./loop", "10"], {"PAIRBENCH_ENV_OFFSET": "xxx", "PATH": "/bin"})
    assert argv[:3] == ["setarch", "-R", "valgrind"] and argv[-2:] == ["./loop", "10"]
    assert "--cache-sim=no" in argv and "--trace-children=yes" in argv
    assert env == {"PATH": "/bin", "PYTHONHASHSEED": "0"}
    _, kept = counter.wrap(["x"], {"PYTHONHASHSEED": "7"})
    assert kept["PYTHONHASHSEED"] == "7"  # a variant's own seed wins
    (tmp_path / "cg.1").write_text(CACHEGRIND_OUT)
    (tmp_path / "cg.2").write_text("summary: 1000\n")
    assert counter.read() == 4125326  # every traced process (the shell and its children) summed
    text = counter.describe()
    assert "valgrind cachegrind" in text and "perf cannot count here" in text and "setarch -R" in text


def test_a_suite_benchmark_says_measure_and_duet() -> None:
    from pairbench.errors import SuiteError
    from pairbench.suite import parse_suite

    text = ('[variants.a]\ncommand = "a"\n[variants.b]\ncommand = "b"\n'
            '[benchmarks.loop]\ncommand = "{variant} 1000"\nmeasure = ["instructions", "time"]\nduet = true\n')
    [bench] = parse_suite(text, "s.toml").benchmarks
    names = [m.name for m in bench.metrics]
    assert names[0] == "instructions" and {"time", "cpu", "user", "sys", "rss"} <= set(names)
    assert bench.options["duet"] is True and list(bench.options["measure"]) == ["instructions", "time"]
    with pytest.raises(SuiteError, match=r"s.toml:7: benchmark 'loop': measure 'cycels'"):
        parse_suite(text.replace('"time"]', '"cycels"]'), "s.toml")
