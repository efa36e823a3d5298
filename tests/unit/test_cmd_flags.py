"""`pairbench cmd` flags as hyperfine users type them: parsed without running anything."""

from __future__ import annotations

import pytest

from pairbench.cli import build_parser
from pairbench.flows.builders.command import parameter_scan, variant_names
from pairbench.commands.common import options_from_args
from pairbench.errors import UserError


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


def test_commands_after_a_double_dash_may_start_with_a_dash() -> None:
    # `--` ends the flags: what follows is commands, even `-x` ones (argparse's intermixed parse
    # dropped them and then said COMMAND was missing)
    args = parse("-r", "3", "--", "-true", "--version-of-x", "plain")
    assert args.commands == ["-true", "--version-of-x", "plain"]
    assert args.runs == 3
    args = parse("-n", "A", "first", "--", "-second")
    assert args.commands == ["first", "-second"]


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


def test_parameter_scan_whole_numbers() -> None:
    # hyperfine README: hyperfine --parameter-scan num_threads 1 12 'make -j {num_threads}'
    args = parse("--parameter-scan", "num_threads", "1", "12", "make -j {num_threads}")
    assert parameter_scan(*args.parameter_scan, step=args.parameter_step_size) == (
        "num_threads", [str(i) for i in range(1, 13)])


def test_parameter_scan_decimal_steps_are_exact() -> None:
    # hyperfine --help: hyperfine -P delay 0.3 0.7 -D 0.2 'sleep {delay}'
    args = parse("-P", "delay", "0.3", "0.7", "-D", "0.2", "sleep {delay}")
    assert parameter_scan(*args.parameter_scan, step=args.parameter_step_size) == ("delay", ["0.3", "0.5", "0.7"])
    assert parameter_scan("x", "0", "1", step="0.1")[1][-1] == "1.0"  # the end is reached, not missed by 1e-16


@pytest.mark.parametrize(("scan", "step", "message"), [
    (("x", "0.5", "2"), None, "MIN and MAX must be whole numbers; give -D STEP"),
    (("x", "3", "1"), None, "MAX is below MIN"),
    (("x", "1", "3"), "0", "the step must be positive"),
    (("x", "1", "3"), "-1", "the step must be positive"),
    (("x", "a", "3"), None, "must be numbers"),
    (("x", "0", "1e9"), None, "more than 100000 values"),
    (("1x", "0", "1"), None, "the parameter name must be a word"),
])
def test_parameter_scan_mistakes_are_one_clear_error(scan, step, message) -> None:
    with pytest.raises(UserError, match=message):
        parameter_scan(*scan, step=step)


def test_hyperfine_short_flags_for_the_hooks() -> None:
    # hyperfine --help: -s/--setup, -p/--prepare, -C/--conclude, -c/--cleanup
    args = parse("-s", "make", "-p", "sync", "-C", "pkill server", "-c", "rm -f out", "./run")
    assert (args.setup, args.prepare, args.conclude, args.cleanup) == ("make", ["sync"], ["pkill server"], "rm -f out")


def test_min_and_max_runs_as_hyperfine_spells_them() -> None:
    # hyperfine --help: -m/--min-runs NUM, -M/--max-runs NUM
    options = options_from_args(parse("-m", "5", "-M", "20", "a", "b"))
    assert (options.runs, options.max_runs) == (5, 20)
    # -M alone: at most that many, so the default minimum of 10 gives way
    options = options_from_args(parse("-M", "4", "a", "b"))
    assert (options.runs, options.max_runs) == (4, 4)
    with pytest.raises(UserError, match=r"--max-runs \(4\) must be at least --runs \(8\)"):
        options_from_args(parse("-r", "8", "-M", "4", "a", "b"))


def test_http_keeps_ab_meaning_of_m() -> None:
    args = build_parser().parse_args(["http", "--server", "s {port}", "-m", "POST", "--min-runs", "6"])
    assert args.method == "POST" and args.runs == 6


def test_output_modes_and_the_metrics_they_would_lose() -> None:
    from pairbench.runners.command import parse_command_options
    from pairbench.runners.options import Flags

    where = Flags({"output": "--output"})
    assert parse_command_options({}, where).output == "auto"
    assert parse_command_options({"output": "pipe"}, where).output == "pipe"
    assert parse_command_options({"output": "/tmp/x", "metrics": {"n": "(\\d+)"}}, where).output == "/tmp/x"
    assert parse_command_options({"input": "null"}, where).input is None
    with pytest.raises(UserError, match="--output: 'null' discards the output, where the metrics \\(n\\) are read"):
        parse_command_options({"output": "null", "metrics": {"n": "(\\d+)"}}, where)
    assert parse("--show-output", "a").output == ["inherit"]


def test_any_shell_as_hyperfine_takes_it() -> None:
    from pairbench.runners.command import parse_command_options
    from pairbench.runners.command.shells import shell_words
    from pairbench.runners.options import Flags

    where = Flags({"shell": "--shell"})
    # hyperfine --help: -S/--shell SHELL: a name, a path or a command line like "bash --norc"
    assert parse_command_options({"shell": "bash --norc"}, where).shell == "bash --norc"
    assert shell_words("bash --norc") == ["bash", "--norc"]
    assert parse_command_options({"shell": "none"}, where).shell is False
    assert parse_command_options({"shell": "default"}, where).shell is True
    assert shell_words(True) == ["sh"] and shell_words(False) is None
    assert parse("-S", "zsh", "a").shell == "zsh" and parse("-N", "a").shell == "none"
    with pytest.raises(UserError, match="--shell: cannot read the shell's command line"):
        parse_command_options({"shell": "bash 'oops"}, where)


@pytest.mark.parametrize("argv", [
    ["cmd", "a", "b"], ["micro", "x = 1"], ["run", "suite.toml"], ["compare", "r.json"],
    ["history"], ["history", "publish", "site"], ["bisect", "--good", "g", "--bad", "b", "--cmd", "true"],
])
@pytest.mark.parametrize(("given", "value"), [("2%", 2.0), ("0.5 %", 0.5), ("2", 2.0)])
def test_threshold_takes_a_trailing_percent_sign_like_plan(argv: list[str], given: str, value: float) -> None:
    args = build_parser([argv[0]]).parse_args([*argv, "--threshold", given])
    assert getattr(args, "publish_threshold" if "publish" in argv else "threshold") == value


def test_threshold_auto_and_a_non_number_are_read_as_before(capsys) -> None:
    assert parse("a", "--threshold", "auto").threshold == "auto"
    with pytest.raises(SystemExit):
        parse("a", "--threshold", "2x")
    assert "'2x' is not a percentage" in capsys.readouterr().err
