"""Which command lines run without a shell under the default `shell` (no process is started here).

A command line that holds no shell syntax and whose first word is a program means the same run
directly as through `sh -c`: same output, same exit code, and no shell start-up to subtract.
"""

from __future__ import annotations

import pytest

from pairbench.runners.command.shells import execs_directly, needs_shell, program_finder
from pairbench.runners.command.options import parse_command_options
from pairbench.runners.options import Flags

PROGRAMS = {"true", "false", "echo", "printf", "python3", "prog", "ls", "date", "sleep", "cat", "test", "pwd", "kill",
            "a", "b", "env", "time", "cd", "exec", "type", "command", "read"}
"""Names the fake PATH holds (some distributions ship `cd` or `type` as programs too)."""


def find(word: str) -> str | None:
    if "/" in word:
        return word
    return f"/usr/bin/{word}" if word in PROGRAMS else None


@pytest.mark.parametrize("command", [
    "true",
    "echo 1",
    "echo hello world",
    'python3 -S -c "sum(range(10))"',
    "python3 -S -c 'print(1+1)'",
    "FOO=1 prog",
    "FOO=1 BAR='a b' prog --flag",
    "prog a=b --x='y z'",
    "prog 'a|b;c&d' \"e f\"",
    "prog 'it''s'",
    "prog ''",
    "sleep 0.005",
    "/opt/tool/bin/prog -v",
    "./prog",
    "prog\t-x",
    "env",
    "false",
])
def test_a_command_line_without_shell_syntax_runs_directly(command: str) -> None:
    assert not needs_shell(command, find), command


@pytest.mark.parametrize("command", [
    "echo $HOME",
    "a | b",
    "cd /tmp && ls",
    "python3 -c \"print('$x')\"",
    "for i in 1; do :; done",
    "x=$(date) prog",
    "prog `date`",
    "prog > out.txt",
    "prog < in.txt",
    "prog 2>&1",
    "prog &",
    "prog; prog",
    "(prog)",
    "{ prog; }",
    "prog *.txt",
    "prog file?.txt",
    "prog [ab].txt",
    "prog ~/x",
    "prog # a comment",
    "prog a\\ b",
    'prog "a\\b"',
    "prog\nprog",
    "! prog",
    "prog {a,b}",
    "FOO=1",
    "PATH=/opt/bin prog",
    ":",
    "cd /tmp",
    "export X=1",
    "source env.sh",
    ". env.sh",
    "set -e",
    "unset X",
    "alias x=y",
    "eval prog",
    "exec prog",
    "read x",
    "type prog",
    "command prog",
    "time prog",
    "if prog",
    "while prog",
    "case x in",
    "function f",
    "[[ -f x ]]",
    "test -f x",
    "pwd",
    "kill 1",
    "printf x",
    "echo -n x",
    "echo 'a\\nb'",
    "true --help",
    "no-such-program x",
    "prog 'unclosed",
])
def test_shell_syntax_builtins_and_unknown_programs_go_through_the_shell(command: str) -> None:
    assert needs_shell(command, find), command


def test_only_programs_the_kernel_can_exec_run_without_a_shell(tmp_path) -> None:
    # sh runs a file with no `#!` line as a shell script itself; execve refuses it
    script = tmp_path / "script"
    script.write_text("#!/bin/sh\necho hi\n")
    binary = tmp_path / "binary"
    binary.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(64))
    bare = tmp_path / "bare"
    bare.write_text("echo hi\n")
    for path in (script, binary, bare):
        path.chmod(0o755)
    assert execs_directly(str(script)) and execs_directly(str(binary))
    assert not execs_directly(str(bare)) and not execs_directly(str(tmp_path / "missing"))
    on_path = program_finder(path=str(tmp_path))
    assert needs_shell("bare", on_path) and not needs_shell("script x", on_path) and not needs_shell("binary", on_path)
    in_cwd = program_finder(path="", cwd=str(tmp_path))
    assert needs_shell("./bare", in_cwd) and not needs_shell("./script", in_cwd) and needs_shell("script", in_cwd)


def test_a_shell_given_by_name_is_kept_and_the_default_is_not() -> None:
    where = Flags({"shell": "--shell"})
    assert parse_command_options({}, where).shell is True  # default: a shell only when the command needs one
    assert parse_command_options({"shell": "default"}, where).shell is True
    assert parse_command_options({"shell": "sh"}, where).shell == "sh"  # -S sh: always through sh
    assert parse_command_options({"shell": "none"}, where).shell is False


def test_cmd_without_s_leaves_the_choice_to_the_command_and_s_sh_keeps_the_shell() -> None:
    from pairbench.cli import build_parser
    from pairbench.commands.cmd import build_command_run

    def shell_option(*argv: str) -> object:
        run = build_command_run(build_parser().parse_args(["cmd", *argv, "true", "false"]))
        return run.benchmarks[0].options["shell"]

    assert shell_option() is True
    assert shell_option("-S", "sh") == "sh"
    assert shell_option("-S", "bash --norc") == "bash --norc"
    assert shell_option("-N") is False
