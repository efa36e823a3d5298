"""Which shell runs a command, and how the words of a command line are read without one.

`-S/--shell` takes any shell (hyperfine's meaning): a name or path (`bash`, `/bin/zsh`), or a
command line (`bash --norc`); the command runs as `SHELL... -c COMMAND`, and the runner measures
that shell's own start-up and subtracts it. `none` runs the command's words directly.

The default (`shell = true`, no `-S`) takes a shell only when the command line needs one
(`needs_shell`): a line with no shell syntax whose first word is a program means the same run
directly (same output, same exit code), and then there is no shell start-up to subtract.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil

from typing import Callable

from pairbench.errors import UserError

__all__ = ["DEFAULT_SHELL", "SHELL_SYNTAX", "ASSIGNMENT", "shell_words", "found_shell", "executable_word", "take_assignments",
           "is_shell_builtin", "needs_shell", "execs_directly", "program_finder", "SHELL_ONLY"]

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


_SPECIAL_OUTSIDE_QUOTES = frozenset("|&;<>()$`\\*?[]#~{}!\n")
"""Characters that make sh do more than split words, outside quotes (pipes, lists, redirections,
expansions, globs, comments, history and brace words)."""
_SPECIAL_IN_DOUBLE_QUOTES = frozenset("$`\\")
_BLANKS = frozenset(" \t")
"""What separates words for sh (shlex also splits at \\r, \\f and \\v, which sh keeps in a word)."""

SHELL_ONLY = frozenset({
    # special and regular builtins that act on the shell itself, or that a program cannot replace
    ":", ".", "source", "cd", "pushd", "popd", "dirs", "export", "readonly", "local", "declare", "typeset", "set",
    "unset", "shift", "alias", "unalias", "eval", "exec", "exit", "return", "break", "continue", "read", "mapfile",
    "readarray", "trap", "wait", "jobs", "fg", "bg", "disown", "umask", "ulimit", "hash", "type", "command",
    "builtin", "enable", "shopt", "let", "getopts", "times", "history", "fc", "caller", "logout", "suspend",
    "complete", "compgen", "newgrp", "pwd", "kill", "printf", "test", "[",
    # keywords
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in",
    "function", "time", "coproc", "!", "{", "}", "[[", "]]",
})
"""First words that sh runs itself: through the shell even when a program of that name is on PATH
(`pwd`, `kill`, `printf` and `test` have programs too, whose options and output differ)."""

_PLAIN_TWINS = frozenset({"true", "false", "echo"})
"""sh builtins whose program twin behaves alike for plain arguments (none starting with `-`, and
for echo none with a backslash: dash's echo reads `\\n`, GNU's prints it)."""


def needs_shell(command: str, find: Callable[[str], str | None] | None = None) -> bool:
    """Whether the command line needs a shell to mean what it says (True when in doubt).

    It does not when it holds no shell syntax outside quotes (nor `$`, a backtick or a backslash
    inside double quotes), starts with any `VAR=value` words and then a program that `find`
    locates and the kernel can exec, and is not one of the words sh runs itself (SHELL_ONLY).

    Args:
        command: the command line as the user wrote it.
        find: the program's path for a word, or None (default: `program_finder()`, PATH as is).
    """
    if _has_shell_syntax(command):
        return True
    try:
        words = shlex.split(command)
    except ValueError:
        return True
    while words and ASSIGNMENT.match(words[0]):
        if words.pop(0).startswith("PATH="):  # where sh then looks for the program: left to it
            return True
    if not words or words[0] in SHELL_ONLY:
        return True
    if words[0] in _PLAIN_TWINS and any(w.startswith("-") or "\\" in w for w in words[1:]):
        return True
    return (find or program_finder())(words[0]) is None


def _has_shell_syntax(command: str) -> bool:
    quote = ""
    for char in command:
        if quote == "'":
            quote = "" if char == "'" else quote
        elif quote == '"':
            if char in _SPECIAL_IN_DOUBLE_QUOTES:
                return True
            quote = "" if char == '"' else quote
        elif char in "'\"":
            quote = char
        elif char in _SPECIAL_OUTSIDE_QUOTES or (char.isspace() and char not in _BLANKS):
            return True
    return bool(quote)  # an unclosed quote: the shell's error, not ours


def program_finder(path: str | None = None, cwd: str | None = None) -> Callable[[str], str | None]:
    """A `find` for `needs_shell`: the word's executable on `path` (or in `cwd` when it holds a `/`),
    if the kernel can exec it."""

    def find(word: str) -> str | None:
        if "/" in word:
            found: str | None = word if os.path.isabs(word) or not cwd else os.path.join(cwd, word)
            if not (found and os.path.isfile(found) and os.access(found, os.X_OK)):
                return None
        else:
            found = shutil.which(word, path=path)
        return found if found is not None and execs_directly(found) else None

    return find


def execs_directly(path: str) -> bool:
    """The kernel can exec this file: a `#!` script or an ELF binary (sh runs other files as
    scripts of its own, which exec refuses)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError:
        return False
    return head.startswith(b"#!") or head == b"\x7fELF"
