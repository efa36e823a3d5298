"""`pairbench --help` builds only what it shows: the subcommand on the command line in full, the
others as a name and a line of help, read from commands.COMMAND_SUMMARIES without importing them."""

from __future__ import annotations

import argparse
import importlib

import pytest

from pairbench import cli
from pairbench.commands import COMMAND_MODULES, COMMAND_SUMMARIES


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def _built(parser: argparse.ArgumentParser) -> set[str]:
    """The subcommands whose options were built (an outline has none, not even -h)."""
    return {name for name, p in _subparsers(parser).items() if getattr(p, "_actions", None)}


def test_help_builds_no_subcommand_and_a_command_builds_only_itself() -> None:
    full = cli.build_parser()
    names = set(_subparsers(full))
    assert {"cmd", "run", "http", "micro", "import"} <= names and _built(full) == names
    assert _built(cli.build_parser(["--help"])) == set()
    assert _built(cli.build_parser([])) == set()
    assert _built(cli.build_parser(["cmd", "-r", "3", "true"])) == {"cmd"}
    assert _built(cli.build_parser(["import", "x.json"])) == {"import"}
    assert set(_subparsers(cli.build_parser(["cmd"]))) == names


def test_the_light_top_level_help_is_the_full_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    assert cli.build_parser(["--help"]).format_help() == cli.build_parser().format_help()
    assert cli.build_parser(["--help"]).format_usage() == cli.build_parser().format_usage()


@pytest.mark.parametrize("argv", [["cmd", "-r", "3", "-w", "1", "true", "false"], ["micro", "--samples", "4", "x.py"],
                                  ["import", "-o", "out.json", "a.json"], ["history"]])
def test_a_command_line_parses_as_with_the_full_parser(argv: list[str]) -> None:
    assert vars(cli.build_parser(argv).parse_args(argv)) == vars(cli.build_parser().parse_args(argv))


def test_an_unknown_command_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.build_parser(["bogus"]).parse_args(["bogus"])
    listed = capsys.readouterr().err
    for name, _ in COMMAND_SUMMARIES.values():
        assert repr(name) in listed


@pytest.mark.parametrize("module", COMMAND_MODULES)
def test_each_summary_says_what_register_says(module: str) -> None:
    outline = cli._Outline()
    importlib.import_module(f"pairbench.commands.{module}").register(outline)
    if module in COMMAND_SUMMARIES:
        assert [(name, kw.get("help")) for name, kw in outline.parsers] == [COMMAND_SUMMARIES[module]]


def test_help_width_follows_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    assert max(len(line) for line in cli.build_parser(["--help"]).format_help().splitlines()) <= 58
    monkeypatch.setenv("COLUMNS", "200")
    assert "compare whole commands (the first is the baseline)" in cli.build_parser(["--help"]).format_help()
