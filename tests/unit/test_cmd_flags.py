"""`pairbench cmd` flags as hyperfine users type them: parsed without running anything."""

from __future__ import annotations

import pytest

from pairbench.cli import build_parser
from pairbench.commands.cmd import variant_names


def parse(*argv: str):
    return build_parser().parse_args(["cmd", *argv])


def test_names_between_commands_as_hyperfine_writes_them() -> None:
    # hyperfine README: hyperfine -n A 'cmd1' -n B 'cmd2' (names before their commands)
    args = parse("-n", "A", "sleep 0.1", "-n", "B", "sleep 0.2", "-r", "5")
    assert args.commands == ["sleep 0.1", "sleep 0.2"]
    assert args.command_name == ["A", "B"]
    assert args.runs == 5


def test_an_unknown_flag_between_commands_is_still_refused(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        parse("a", "--bogus", "b")
    assert stop.value.code == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


def test_identical_commands_get_distinct_names_and_say_which() -> None:
    names, renamed = variant_names(["X", "X", "X"], [], [{}])
    assert names == ["X", "X #2", "X #3"]
    assert renamed == ["'X #2' is another 'X'", "'X #3' is another 'X'"]


def test_a_distinct_name_never_collides_with_a_given_one() -> None:
    names, _ = variant_names(["X", "X", "Y"], ["A", "A", "A #2"], [{}])
    assert names == ["A", "A #3", "A #2"]
    assert len(set(names)) == 3


def test_a_name_with_a_placeholder_is_filled_per_parameter_value() -> None:
    # hyperfine: hyperfine -n 'one-{a}' -L a 1,2 'echo {a}'
    names, renamed = variant_names(["echo {a}"], ["one-{a}"], [{"a": "1"}, {"a": "2"}])
    assert names == ["one-1", "one-2"] and renamed == []


def test_a_plain_name_with_parameters_gets_the_values_appended() -> None:
    names, _ = variant_names(["echo {a}", "printf {a}"], ["e", "p"], [{"a": "1"}, {"a": "2"}])
    assert names == ["e a=1", "e a=2", "p a=1", "p a=2"]
