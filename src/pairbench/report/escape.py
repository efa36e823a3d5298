"""Control characters in names shown visibly escaped, never sent to the terminal raw.

Why: variant, benchmark and metric names come from the command line and from other people's run
files. A name holding ESC, an OSC sequence or a newline (`-n $'\\e]0;pwned\\a'`) would retitle or
recolour the user's terminal, or forge lines of output. `visible` is the one escaping function:
the terminal renderers apply it to every name and message before layout (so tables stay
aligned), and `VisibleStream`, put over stdout and stderr by the CLI, applies it to whatever else
is printed, letting through only the styling sequences pairbench's own renderer emits. A command
that prints no styling of its own (report, compare, history: plain text and file formats, full of
names from files) turns that off (`styled = False`), so a name cannot bring its own colours or
conceal text either.

The stream is also where a closed output pipe (`pairbench ... | head -1`) shows: it drops the rest
of the output quietly and remembers, and `cli.main` turns that into exit 141.
"""

from __future__ import annotations

import os
import re
import unicodedata

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any, TextIO

__all__ = ["visible", "VisibleStream", "drop_stream"]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x07": "\\a", "\x08": "\\b", "\x1b": "\\x1b"}


def _escape_char(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _unsafe(ch: str) -> bool:
    # Cc: C0 and C1 controls and DEL; Cf: format characters such as the bidi overrides (U+202E)
    # that reorder what the terminal shows.
    return unicodedata.category(ch) in ("Cc", "Cf")


def visible(text: str, keep_newlines: bool = False) -> str:
    """`text` with every control and format character written as an escape (`\\x1b`, `\\n`, `\\u202e`).

    Args:
        text: a name or message to show.
        keep_newlines: keep line breaks and tabs (whole messages and documents); names never do.
    """
    if text.isprintable() and (keep_newlines or "\n" not in text):
        return text
    keep = ("\n", "\t") if keep_newlines else ()
    return "".join(_escape_char(ch) if _unsafe(ch) and ch not in keep else ch for ch in text)


# What pairbench's own console output may contain: SGR styling on stdout; on stderr also what the
# live progress bar needs (carriage return, erase line, cursor up, cursor shown/hidden).
_STDOUT_ALLOWED = re.compile(r"\x1b\[[0-9;]*m")
_STDERR_ALLOWED = re.compile(r"\x1b\[[0-9;]*[mKAG]|\x1b\[\?25[hl]|\r")


class VisibleStream:
    """A text stream that escapes control sequences on their way out, except its own styling ones
    (none when `styled` is off). A closed pipe drops the rest quietly and sets `pipe_closed`."""

    def __init__(self, stream: TextIO, stderr: bool = False) -> None:
        self._stream = stream
        self._allowed = _STDERR_ALLOWED if stderr else _STDOUT_ALLOWED
        self.styled = True
        """False: every control is escaped, styling too (for output that has none of its own)."""
        self.pipe_closed = False
        """True once a write found the reader gone; what follows goes to /dev/null."""

    def write(self, text: str) -> int:
        return self._write(self._shown(text))

    def write_whole(self, text: str) -> None:
        """Write a whole document (a run file, an export to `-`) and flush it, finding a reader
        that left during the write: a text stream reports a write that the reader cut short as
        complete, losing the rest unsaid, so the bytes go out by os.write until all are taken."""
        text = self._shown(text)
        if self.pipe_closed:
            return
        try:
            self._stream.flush()
            fd = self._stream.fileno()
            data = text.encode(self._stream.encoding or "utf-8", self._stream.errors or "strict")
        except BrokenPipeError:
            self._drop()
            return
        except (AttributeError, OSError, ValueError):  # not a file (a test's capture): as any write
            self._write(text)
            self.flush()
            return
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(fd, view):]
        except BrokenPipeError:
            self._drop()

    def _shown(self, text: str) -> str:
        if text.isprintable():
            return text
        if not self.styled:
            return visible(text, keep_newlines=True)
        parts, last = [], 0
        for m in self._allowed.finditer(text):
            parts.append(visible(text[last:m.start()], keep_newlines=True))
            parts.append(m.group())
            last = m.end()
        parts.append(visible(text[last:], keep_newlines=True))
        return "".join(parts)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self.pipe_closed:
            return
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._drop()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def _write(self, text: str) -> int:
        if self.pipe_closed:
            return len(text)
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._drop()
            return len(text)

    def _drop(self) -> None:
        """The reader went away: this and everything still buffered go to /dev/null."""
        self.pipe_closed = True
        drop_stream(self._stream)


def drop_stream(stream: Any) -> None:
    """Point `stream`'s file descriptor at /dev/null (its reader went away), so exit does not complain."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
