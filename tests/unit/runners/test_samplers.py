"""The samplers of --profile (runners/samplers.py): which one, what it says when none can run, and
their output read back (perf script, callgrind), without running any process."""

from __future__ import annotations

import pytest

from pairbench.runners import samplers
from pairbench.runners.samplers import (
    Callgrind,
    Perf,
    PySpy,
    SamplerMissing,
    choose_sampler,
    is_cpython,
    parse_callgrind,
    parse_perf_script,
    read_folded,
)

PERF_SCRIPT = """shift
\t            1149 work
\t            11a0 main
\t           29d90 __libc_start_call_main

shift
\t            1149 work+0x9
\t            11a0 main

shift
\t            1180 other
\t            11a0 main

"""

CALLGRIND = """version: 1
positions: line
events: Ir
fl=(1) shift.c
fn=(1) work
9 400
fn=(2) other
10 100
fn=(3) main
15 5
cfn=(1)
calls=1 9
15 400
cfn=(2)
calls=1 10
16 100
fn=(1)
9 50
"""


def test_perf_script_folds_root_first_without_offsets() -> None:
    assert parse_perf_script(PERF_SCRIPT) == {"__libc_start_call_main;main;work": 1.0, "main;work": 1.0,
                                              "main;other": 1.0}


def test_callgrind_gives_self_costs_without_the_calls_inclusive_lines() -> None:
    assert parse_callgrind(CALLGRIND) == {"work": 450.0, "other": 100.0, "main": 5.0}


def test_raw_folded_lines_are_read_as_written() -> None:
    assert read_folded("a;b 3\n 2\nnot a line\na;b 1\n") == {"a;b": 4.0, "": 2.0}


@pytest.mark.parametrize(("exe", "expected"), [
    ("/usr/bin/python3", True), ("/root/.pyenv/versions/3.11.7/bin/python3.11", True), ("python", True),
    ("/usr/bin/pypy3", False), ("/usr/bin/ruby", False), ("./shift", False), ("", False)])
def test_cpython_is_known_by_its_executable(exe: str, expected: bool) -> None:
    assert is_cpython(exe) is expected


def test_python_without_py_spy_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(samplers, "_py_spy", lambda: None)
    chosen = choose_sampler(["/usr/bin/python3", "/usr/bin/python3.11"])
    assert isinstance(chosen, SamplerMissing)
    assert "python3 -m pip install py-spy" in chosen.hint


def test_python_with_py_spy_is_sampled_by_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(samplers, "_py_spy", lambda: "/opt/py-spy")
    chosen = choose_sampler(["python3", "python3"])
    assert isinstance(chosen, PySpy)
    argv, _ = chosen.wrap(["python3", "x.py"], {})
    assert argv[0] == "/opt/py-spy" and argv[-3:] == ["--", "python3", "x.py"] and "--subprocesses" in argv
    chosen.close()


def test_native_code_falls_back_to_callgrind_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(samplers, "_perf_records", lambda: "perf record is not allowed here (paranoid)")
    monkeypatch.setattr(samplers.shutil, "which", lambda name: "/usr/bin/valgrind" if name == "valgrind" else None)
    chosen = choose_sampler(["/usr/bin/python3", "./shift"])  # not every variant is CPython: native
    assert isinstance(chosen, Callgrind) and "not allowed" in chosen.why and chosen.unit == "instructions"
    chosen.close()
    monkeypatch.setattr(samplers.shutil, "which", lambda name: None)
    missing = choose_sampler(["./shift"])
    assert isinstance(missing, SamplerMissing) and "apt-get install" in missing.hint


def test_native_code_uses_perf_where_it_records(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(samplers, "_perf_records", lambda: "")
    chosen = choose_sampler(["./shift"])
    assert isinstance(chosen, Perf)
    argv, _ = chosen.wrap(["./shift"], {})
    assert argv[:2] == ["perf", "record"] and "-g" in argv
    chosen.close()


def test_attaching_samplers_name_the_server_processes() -> None:
    spy, perf = PySpy(executable="py-spy"), Perf()
    assert spy.attach([41, 42])[-2:] == ["--pid", "41"] and "--gil" in spy.attach([41])
    assert perf.attach([41, 42])[-2:] == ["-p", "41,42"]
    spy.close()
    perf.close()


@pytest.mark.parametrize(("template", "variants", "expected"), [
    ("python3 shift.py {variant}", [("base", "base"), ("slower", "slower")], ["python3", "python3"]),  # a suite's
    ("{variant} -c pass", [("a", "python3 -S"), ("b", "/usr/bin/python3.11")], ["python3", "/usr/bin/python3.11"]),
    ("{variant}", [("a", "N=1 ./shift base"), ("b", "./shift slower")], ["./shift", "./shift"]),
])
def test_the_sampler_looks_at_the_program_the_benchmark_runs(template: str, variants: list[tuple[str, str]],
                                                              expected: list[str]) -> None:
    """The benchmark's command line as run, not the variant's own command: `python3 x.py {variant}`
    with variants `base` and `slower` is a Python program."""
    from pairbench.model import Benchmark, Variant
    from pairbench.runners.command.profiled import profiled_executables

    bench = Benchmark("b", "command", (), options={"command": template})
    assert profiled_executables(bench, [Variant(n, c) for n, c in variants]) == expected
