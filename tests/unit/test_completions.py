"""Completion scripts are generated from the parser, so every flag and choice is in them."""

from __future__ import annotations

from pairbench.cli import build_parser
from pairbench.commands.completions import SHELLS, command_flags, render_completions


def test_every_subcommand_and_flag_comes_from_the_parser() -> None:
    parser = build_parser()
    flags = command_flags(parser)
    assert {"cmd", "run", "http", "micro", "completions"} <= set(flags)
    cmd = {n: f for f in flags["cmd"] for n in f.names}
    assert cmd["--style"].choices == ("auto", "basic", "full", "nocolor", "color", "none")
    assert cmd["-u"] is cmd["--time-unit"] and cmd["--export-markdown"].file
    assert not cmd["--show-output"].takes_value
    assert "--debug-fake" not in cmd  # hidden flags stay hidden


def test_a_flag_added_to_the_parser_is_completed_at_once() -> None:
    parser = build_parser()
    for action in parser._actions:
        if hasattr(action, "choices") and isinstance(action.choices, dict) and "cmd" in action.choices:
            action.choices["cmd"].add_argument("--brand-new-flag", choices=("x", "y"))
    for shell in SHELLS:
        text = render_completions(shell, parser)
        assert "brand-new-flag" in text, shell
