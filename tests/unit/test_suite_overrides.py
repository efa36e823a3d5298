"""`--set KEY=VALUE`: everything a suite file says can be said on the command line."""

import pytest

from pairbench.errors import SuiteError
from pairbench.suite import parse_suite

FILE = """
[defaults]
runs = 10

[variants.head]
command = "python3"
baseline = true

[variants.patched]
command = "python3 -X dev"

[benchmarks.startup]
command = "{variant} -c pass"
"""


def test_flags_override_and_extend_the_file():
    suite = parse_suite(FILE, "s.toml", [
        "defaults.runs=25",
        'variants.patched.env={ PYTHONHASHSEED = "0" }',
        'sweeps=[{name = "N", values = [1, 2], as = "placeholder"}]',
        'benchmarks.startup.command="{variant} -c \'x = {N}\'"',
    ])
    assert suite.defaults.runs == 25
    names = [v.name for v in suite.matrix]
    assert "patched/N=2" in names and "head/N=1" in names
    patched = next(v for v in suite.matrix if v.name == "patched/N=1")
    assert patched.env["PYTHONHASHSEED"] == "0"


def test_a_suite_from_flags_alone():
    suite = parse_suite("", "<command line>", [
        'variants.a.command="true"', "variants.a.baseline=true", 'variants.b.command="false"',
        'benchmarks.x.command="{variant}"',
    ])
    assert [v.name for v in suite.matrix] == ["a", "b"]


def test_bare_words_are_strings():
    suite = parse_suite(FILE, "s.toml", ["variants.patched.command=pypy3"])
    assert next(v for v in suite.matrix if v.name == "patched").command == "pypy3"


@pytest.mark.parametrize("flag, fragment", [("novalue", "expected KEY=VALUE"), ("defaults.runz=3", "runz")])
def test_bad_flags_are_suite_errors(flag, fragment):
    with pytest.raises(SuiteError, match=fragment):
        parse_suite(FILE, "s.toml", [flag])
