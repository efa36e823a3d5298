"""Typed options, parsed once: the same parser refuses a bad http or micro option from a suite file
(with its file and line) and from flags (with the flag), before anything runs."""

from __future__ import annotations

import argparse
import re

import pytest

from pairbench.errors import SuiteError, UserError
from pairbench.runners.http import HttpOptions, parse_http_options
from pairbench.runners.micro import parse_micro_options
from pairbench.runners.options import Flags
from pairbench.suite import parse_suite

SUITE = '''
[variants.a]
command = "python3 app.py --port {port}"
[variants.b]
command = "pypy3 app.py --port {port}"

[benchmarks.page]
kind = "http"
url = "/"
duration = 5
connections = 4

[benchmarks.loop]
kind = "micro"
stmt = "sum(range(100))"
samples = 5
'''


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(("old", "new", "needle", "message"), [
    ("connections = 4", 'connections = "four"', "connections =", r"benchmark 'page': connections must be a whole number, not 'four'"),
    ("connections = 4", "concurency = 4", "concurency", r"unknown http option 'concurency' \(did you mean 'concurrency'\?\); valid: url, mix"),
    ("duration = 5", "duration = -5", "duration =", r"duration must be greater than 0, not -5"),
    ('url = "/"', 'url = "/"\nengine = "ab"', "engine =", r"engine 'ab' is not one of: builtin, wrk"),
    ("duration = 5\n", "", "[benchmarks.page]", r"the load needs requests \(-n\), a duration or a rate"),
    ("samples = 5", "samples = 1", "samples =", r"benchmark 'loop': samples must be at least 2, not 1"),
    ("samples = 5", 'clock = "gpu"', "clock =", r"clock 'gpu' is not one of: auto, cpu, wall"),
    ('stmt = "sum(range(100))"', 'file = "b.py"', "[benchmarks.loop]", r"a Python benchmark file needs func"),
])
def test_a_bad_http_or_micro_option_names_file_line_and_choices(old: str, new: str, needle: str, message: str) -> None:
    assert old in SUITE
    text = SUITE.replace(old, new, 1)
    with pytest.raises(SuiteError) as info:
        parse_suite(text, "bench.toml")
    got = str(info.value)
    assert got.startswith(f"bench.toml:{_line_of(text, needle)}: "), got
    assert re.search(message, got), got


def test_the_parsed_options_are_what_the_benchmark_keeps() -> None:
    suite = parse_suite(SUITE.replace("connections = 4", "concurrency = 4"), "bench.toml")
    page = next(b for b in suite.benchmarks if b.name == "page")
    assert page.options["connections"] == 4 and "concurrency" not in page.options  # the alias is resolved once
    assert page.options["duration"] == 5.0 and page.options["engine"] == "builtin"
    assert page.metrics[0].name == "req_per_s"


def test_flags_go_through_the_same_parser_and_name_the_flag() -> None:
    names = {"timeout": "--timeout"}
    with pytest.raises(UserError, match=r"^--timeout must be greater than 0, not -1"):
        parse_http_options({"url": "/", "requests": 10, "timeout": -1}, Flags(names))
    assert parse_http_options({"url": "/", "n": 10}, Flags()) == HttpOptions(url="/", requests=10)
    with pytest.raises(UserError, match=r"^--samples must be at least 2, not 1"):
        parse_micro_options({"stmt": "pass", "samples": 1}, Flags({"samples": "--samples"}))


def test_http_subcommand_flags_are_checked_by_the_kind() -> None:
    from pairbench.commands.http import build_http_run, register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    with pytest.raises(UserError, match=r"^--timeout must be greater than 0"):
        build_http_run(parser.parse_args(["http", "--url", "http://127.0.0.1:1/", "-n", "5", "--timeout", "0"]))
    with pytest.raises(UserError, match=r"^--port must be between 1 and 65535"):
        build_http_run(parser.parse_args(["http", "--server", "s", "--port", "70000", "-n", "5"]))


def test_unset_options_are_left_out_of_the_benchmark() -> None:
    """The micro runner asks `"index" in options` to tell a Ruby benchmark from a Python one."""
    suite = parse_suite(SUITE, "bench.toml")
    loop = next(b for b in suite.benchmarks if b.name == "loop")
    assert "index" not in loop.options and "file" not in loop.options and loop.options["stmt"] == "sum(range(100))"
