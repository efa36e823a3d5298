"""`pairbench pytest`'s flags: pytest's own arguments after `--`, and variants from --python and --env."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pairbench.cli import build_parser
from pairbench.commands.pytest import pytest_settings
from pairbench.errors import UserError
from pairbench.flows.builders.pytest import PytestSettings, _variants


def settings(*argv: str) -> PytestSettings:
    args = build_parser(["pytest", *argv]).parse_args(["pytest", *argv])
    return pytest_settings(args)


def test_the_words_after_dashes_go_to_pytest_and_flags_before_them_to_pairbench() -> None:
    s = settings("benches/", "--env", "", "--env", "A=1", "--", "-k", "fast", "--env", "x")
    assert s.paths == ("benches/",)
    assert s.args == ("-k", "fast", "--env", "x")
    assert s.env == ("", "A=1")


def test_a_flag_given_once_applies_to_every_variant_and_names_say_what_differs() -> None:
    variants = _variants(PytestSettings(paths=("t",), python=("python3",), env=("", "FAST=0 MODE=b")))
    assert [v.name for v in variants] == ["no env", "FAST=0 MODE=b"]
    assert [v.env for v in variants] == [{}, {"FAST": "0", "MODE": "b"}]
    assert [v.baseline for v in variants] == [True, False]
    assert {v.command for v in variants} == {"python3"}


def test_a_virtual_environment_stands_for_its_python(tmp_path: Path) -> None:
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    (tmp_path / "venv" / "bin" / "python").symlink_to(sys.executable)
    variants = _variants(PytestSettings(paths=("t",), python=(str(tmp_path / "venv"), "python3"), names=("env", "sys")))
    assert variants[0].command == str(tmp_path / "venv" / "bin" / "python")
    assert [v.name for v in variants] == ["env", "sys"]


@pytest.mark.parametrize(("given", "message"), [
    ({"python": ("a", "b", "c"), "env": ("", "X=1")}, "--env given 2 times for 3 variants"),
    ({"env": ("NOEQUALS",)}, "expected NAME=VALUE"),
    ({"env": ("", "X=1"), "names": ("a", "b", "c")}, "--name given 3 times for 2 variants"),
])
def test_variant_flags_that_do_not_add_up_are_one_error_naming_the_flag(given: dict, message: str) -> None:
    with pytest.raises(UserError, match=message):
        _variants(PytestSettings(paths=("t",), **given))


def test_git_refs_are_variants_built_by_their_python_into_an_environment_in_the_worktree(tmp_path: Path) -> None:
    variants = _variants(PytestSettings(paths=("t",), git=("main", "HEAD"), repo=str(tmp_path), python=("python3.11 -X dev",)))
    assert [v.name for v in variants] == ["main", "HEAD"]
    assert [v.meta["git"]["ref"] for v in variants] == ["main", "HEAD"]
    assert {v.meta["git"]["repo"] for v in variants} == {str(tmp_path)}
    for v in variants:  # the interpreter makes the environment; the variant runs the environment's, with its flags
        assert v.meta["git"]["build"].startswith("python3.11 ") and "make_env.py .pairbench-env" in v.meta["git"]["build"]
        assert v.command == "'{worktree}/.pairbench-env/bin/python' -X dev"


def test_a_build_command_of_its_own_leaves_the_interpreter_to_python() -> None:
    variants = _variants(PytestSettings(paths=("t",), git=("v1", "v2"), build="make env", python=("{worktree}/env/bin/python",)))
    assert [(v.command, v.meta["git"]["build"]) for v in variants] == [("{worktree}/env/bin/python", "make env")] * 2
    with pytest.raises(UserError, match="--build is the build of --git refs"):
        settings("t", "--build", "make")
