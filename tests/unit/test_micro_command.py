"""`pairbench micro` argument handling and Run building, with a scripted worker (no processes)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Mapping

import pytest

from pairbench.commands.micro import build_run, register
from pairbench.errors import UserError
from pairbench.runners.micro import MARKER, MicroRunner


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    return parser.parse_args(["micro", *argv])


def fake_runner(listing: dict[str, Any] | None = None, failing: frozenset[str] = frozenset(),
                failing_modes: frozenset[str] = frozenset({"probe", "list", "calibrate", "time"})) -> MicroRunner:
    def spawn(argv: list[str], stdin: str, env: Mapping[str, str], cwd: str | None,
              timeout: float) -> tuple[int, str, str]:
        request = json.loads(stdin)
        data: dict[str, Any] = {"ok": True, "implementation": "CPython", "version": "3.11.7"}
        if argv[0] in failing and request["mode"] in failing_modes:
            data = {"ok": False, "stage": "load", "error": f"SyntaxError: invalid syntax ({request.get('file')}:1)"}
        elif request["mode"] == "list":
            data.update(listing or {})
        elif request["mode"] == "calibrate":
            data.update(loops=4200, time=0.1)
        return 0, MARKER + json.dumps(data) + "\n", ""

    return MicroRunner(spawn=spawn)


def test_snippets_become_benchmarks_calibrated_once_with_named_variants() -> None:
    args = parse("-s", "d = {}", "d['a'] = 1", "--python", "py-a", "--python", "py-b", "-n", "old", "-n", "new")
    run = build_run(args, fake_runner())
    assert [v.name for v in run.variants] == ["old", "new"]
    assert run.variants[0].baseline and not run.variants[1].baseline
    assert run.variants[0].meta["implementation"] == "CPython"
    (bench,) = run.benchmarks
    assert bench.name == "d['a'] = 1" and bench.kind == "micro"
    assert bench.options["setup"] == "d = {}" and bench.options["loops"] == 4200
    assert bench.options["clock"] == "auto"
    assert run.metadata["command"] == "micro"


def test_same_interpreter_twice_gets_distinct_names() -> None:
    run = build_run(parse("pass", "--python", "py", "--python", "py"), fake_runner())
    assert [v.name for v in run.variants] == ["py", "py #2"]


def test_python_file_params_and_filter(tmp_path: Path) -> None:
    path = tmp_path / "b.py"
    path.write_text("# listed by the worker\n")
    listing = {"benchmarks": [{"name": "total", "func": "bench_total", "params": ["10", "1000"]},
                              {"name": "append", "func": "bench_append", "params": None}]}
    run = build_run(parse(str(path), "--python", "py"), fake_runner(listing))
    assert [b.name for b in run.benchmarks] == ["total[10]", "total[1000]", "append"]
    assert run.benchmarks[1].options["param"] == 1 and run.benchmarks[1].options["func"] == "bench_total"
    run = build_run(parse(str(path), "--python", "py", "-b", "total*"), fake_runner(listing))
    assert [b.name for b in run.benchmarks] == ["total[10]", "total[1000]"]


def test_a_file_no_interpreter_can_load_is_a_notice_when_others_run(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("def bench_x(:\n")
    runner = fake_runner(failing=frozenset({"py"}), failing_modes=frozenset({"list"}))
    run = build_run(parse(str(path), "pass", "--python", "py"), runner)
    assert [b.name for b in run.benchmarks] == ["pass"]
    notices = [n for n in run.notices if n.kind == "benchmark-failed"]
    assert any("broken.py" in n.message and "SyntaxError" in n.message for n in notices)


def test_nothing_runnable_is_a_user_error() -> None:
    with pytest.raises(UserError, match="baseline 'bad-py' cannot run .*nothing can be compared"):
        build_run(parse("pass", "--python", "bad-py"), fake_runner(failing=frozenset({"bad-py"})))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("pass", "--python", "py", "--ruby", "ruby"), "either --python or --ruby"),
        (("x.yml", "--python", "py"), "not found"),
        ((), "nothing to time"),
        (("pass", "--python", "py", "-n", "a", "-n", "b"), "one --name per"),
    ],
)
def test_usage_errors_name_the_fix(argv: tuple[str, ...], message: str) -> None:
    with pytest.raises(UserError, match=message):
        build_run(parse(*argv), fake_runner())


def test_mixed_languages_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("")
    (tmp_path / "b.yml").write_text("")
    with pytest.raises(UserError, match="mixed Python"):
        build_run(parse(str(tmp_path / "a.py"), str(tmp_path / "b.yml")), fake_runner())


def test_ruby_defaults_to_ruby_and_keeps_loop_count(tmp_path: Path) -> None:
    path = tmp_path / "object_new.yml"
    path.write_text("")
    listing = {"benchmarks": [{"name": "object_new", "index": 0, "loop_count": 1000000}]}
    run = build_run(parse(str(path)), fake_runner(listing))
    assert run.variants[0].command == "ruby"
    assert run.benchmarks[0].options["loop_count"] == 1000000
    assert run.benchmarks[0].metric("allocs_per_op").exact
