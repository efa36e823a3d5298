"""`VAR=value cmd`: the executable is cmd, not the assignment."""

import os

import pytest

from pairbench.errors import UserError
from pairbench.model import Benchmark, Variant
from pairbench.runners.command import BUILTIN_METRICS, CommandRunner, resolve_command


@pytest.fixture
def tool_dir(tmp_path):
    tool = tmp_path / "bin" / "tool"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\nexit 0\n")
    tool.chmod(0o755)
    return tool.parent


def test_leading_assignments_are_not_recorded_as_the_executable(tool_dir):
    v = Variant("x", command="FOO=1 BAR='a b' tool --flag", env={"PATH": str(tool_dir)})
    facts = resolve_command(v)
    assert facts["executable"] == os.path.realpath(tool_dir / "tool")
    assert facts["command"] == "FOO=1 BAR='a b' tool --flag"


def test_a_missing_executable_after_assignments_is_refused_before_anything_runs(tool_dir):
    v = Variant("x", command="FOO=1 no-such-program-pb", env={"PATH": str(tool_dir)})
    bench = Benchmark("b", "command", BUILTIN_METRICS, options={"command": "{variant}", "shell": True})
    with pytest.raises(UserError, match="'no-such-program-pb' not found"):
        CommandRunner().prepare(bench, [v])


def test_an_assignment_holding_shell_code_is_left_to_the_shell(tmp_path):
    v = Variant("x", command="n=$(cat count 2>/dev/null || echo 0); echo $n > count")
    CommandRunner()._check_executable(v.command, v, shell=True)  # no error: the shell decides
    assert "executable" not in resolve_command(v)
