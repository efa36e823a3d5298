import pytest

from pairbench.errors import UserError
from pairbench.model import Variant
from pairbench.runners.command import compile_metric, expand_command, variant_environment


def test_expand_fills_variant_prefix_then_parameters():
    v = Variant("x", command="{py} -X dev", args=("--flag", "a b"), params={"py": "python3.11", "n": "10"})
    assert expand_command("{variant} bench.py {n}", v) == "python3.11 -X dev --flag 'a b' bench.py 10"


def test_expand_leaves_shell_variables_and_unknown_words_alone():
    v = Variant("x", command="sh", params={"HOME": "no"})
    assert expand_command("echo ${HOME} {other}", v) == "echo ${HOME} {other}"


def test_variant_environment_adds_and_removes():
    v = Variant("x", env={"A": "1"}, unset_env=("B",))
    env = variant_environment(v, {"B": "2", "C": "3"})
    assert env == {"A": "1", "C": "3"}


def test_metric_spec_parses_name_and_regex():
    name, rx = compile_metric(r"exec=execution time for \d+ messages: ([\d.]+)")
    assert name == "exec"
    assert rx.search("execution time for 1000 messages: 14.018874").group(1) == "14.018874"


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("noequals", "expected NAME=REGEX"),
        ("x=([", "invalid regular expression"),
        ("x=no group", "needs a group"),
        ("time=(\\d+)", "built-in metric"),
        ("bad name=(\\d)", "must be a word"),
    ],
)
def test_bad_metric_specs_are_refused_with_a_reason(spec, fragment):
    with pytest.raises(UserError, match=fragment):
        compile_metric(spec)
