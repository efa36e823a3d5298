"""Which shell runs a command, and how the words of a command line are read without one.

`-S/--shell` takes any shell (hyperfine's meaning): a name or path (`bash`, `/bin/zsh`), or a
command line (`bash --norc`); the command runs as `SHELL... -c COMMAND`, and the runner measures
that shell's own start-up and subtracts it. `none` runs the command's words directly.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil

from pairbench.errors import UserError

__all__ = ["DEFAULT_SHELL", "SHELL_SYNTAX", "ASSIGNMENT", "shell_words", "found_shell", "executable_word", "take_assignments",
           "is_shell_builtin"]

DEFAULT_SHELL = "sh"
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
SHELL_SYNTAX = set("|&;<>()$`\\\"' \t\n*?[#~=%")
"""Characters that make a word shell code rather than a program's name."""


def shell_words(shell: bool | str | None) -> list[str] | None:
    """The words that start the shell (`["bash", "--norc"]`), or None to run without one.

    Args:
        shell: a command option's `shell`: True (the default shell), False or `none` (no shell),
            `default`, or the shell's command line.
    """
    if shell is None or shell is True:
        return [DEFAULT_SHELL]
    if shell is False:
        return None
    text = str(shell).strip()
    if text == "none":
        return None
    if text in ("", "default"):
        return [DEFAULT_SHELL]
    return shlex.split(text)


def found_shell(shell: bool | str | None, where: str) -> list[str] | None:
    """`shell_words`, with the shell checked to exist (a UserError naming `where` if not)."""
    words = shell_words(shell)
    if words is None:
        return None
    program = words[0]
    if not (os.access(program, os.X_OK) if "/" in program else shutil.which(program)):
        raise UserError(f"{where}: shell {program!r} not found (--shell); give a shell on PATH, its full path, "
                        "or 'none'")
    return words


def executable_word(command: str) -> str | None:
    """The program a command line runs: its first word after `VAR=value` assignments.

    None when there is none or an assignment holds shell code (`n=$(cat f); ...`), left to the shell.
    """
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    while words and ASSIGNMENT.match(words[0]):
        if any(c in words[0] for c in "$`();|&<>{}"):
            return None
        words.pop(0)
    return words[0] if words else None


def take_assignments(argv: list[str], env: dict[str, str]) -> list[str]:
    """Leading `VAR=value` words set the environment, as they would in sh; the rest is the command."""
    while argv and ASSIGNMENT.match(argv[0]):
        key, _, value = argv.pop(0).partition("=")
        env[key] = value
    return argv


def is_shell_builtin(word: str) -> bool:
    """A word the shell itself runs: a builtin, or a keyword that starts a loop or a test (`for i in ...`)."""
    return word in {"true", "false", ":", "exit", "echo", "printf", "test", "[", "cd", "eval", "exec", "sleep", "read",
                    ".", "for", "while", "until", "if", "case", "select", "function", "time", "!", "{", "[[",
                    "source", "export", "set", "unset", "alias", "type", "command", "builtin"}
