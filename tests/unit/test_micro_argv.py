"""A pyperf script's arguments (`argv`, pyperformance's extra_opts) are a list of strings, checked
once by the micro options parser: anything else is refused in one line naming the value, never
turned into strings (`"io"` would become the two arguments `i` and `o`, `3` the argument `"3"`)."""

from __future__ import annotations

import pytest

from pairbench.errors import SuiteError, UserError
from pairbench.runners.micro import parse_micro_options
from pairbench.runners.options import Flags
from pairbench.suite import parse_suite

SUITE = '''
[variants.a]
command = "python3"
[variants.b]
command = "pypy3"

[benchmarks.tree]
kind = "micro"
file = "run_benchmark.py"
func = "async_tree_io"
ARGV
'''


@pytest.mark.parametrize(("argv", "shown"), [
    ('argv = ["io", 3]', "['io', 3]"),
    ('argv = "io"', "'io'"),
    ('argv = [["io"]]', "[['io']]"),
    ("argv = [true]", "[True]"),
    ("argv = 7", "7"),
])
def test_a_non_string_argv_in_a_suite_file_is_one_line_naming_the_value(argv: str, shown: str) -> None:
    text = SUITE.replace("ARGV", argv)
    with pytest.raises(SuiteError) as info:
        parse_suite(text, "bench.toml")
    message = str(info.value)
    assert message.startswith("bench.toml:11: benchmark 'tree': "), message
    assert f"argv must be a list of strings, not {shown}" in message, message
    assert "\n" not in message


def test_a_list_of_strings_is_kept_as_given() -> None:
    suite = parse_suite(SUITE.replace("ARGV", 'argv = ["io", "--task-groups"]'), "bench.toml")
    (tree,) = suite.benchmarks
    assert list(tree.options["argv"]) == ["io", "--task-groups"]
    opts = parse_micro_options({"file": "b.py", "func": "x", "argv": ("none",)}, Flags())
    assert opts.argv == ("none",)


def test_a_non_string_argv_given_to_the_parser_directly_is_refused() -> None:
    with pytest.raises(UserError, match=r"argv must be a list of strings, not \[1\]"):
        parse_micro_options({"file": "b.py", "func": "x", "argv": [1]}, Flags())
