"""Writing a file the user named (run files, reports, CSV): one place decides how.

Why one module: renaming a fresh file over the path is right for a regular file (a reader or a
crash sees the old file or the new one, never half) and wrong for everything else — it would turn
a FIFO, a character device (as root, `/dev/null`) or a symlink into a plain file. So:

    "-"                   standard output
    a regular file, none  a temporary file beside it, renamed over it; it keeps the old file's
                          mode (and owner, as root), and a new file gets the umask default
    a symlink             followed (chains too): its target is what gets replaced
    FIFO, device, other   opened and written through, never renamed over

Every problem is one UserError line naming the path.
"""

from __future__ import annotations

import io
import os
import secrets
import stat
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, TextIO

from pairbench.errors import UserError

__all__ = ["STDOUT", "Target", "resolve_target", "open_output", "write_output"]

STDOUT = "-"


@dataclass(frozen=True, slots=True)
class Target:
    """Where one user-named output goes, decided once before anything is written."""

    name: str
    """The path as the user gave it, for messages."""
    path: Path | None
    """The file to write, symlinks followed; None for standard output."""
    replace: bool
    """True for a regular file (or none yet): replaced atomically. False: written through."""

    @property
    def is_stdout(self) -> bool:
        return self.path is None

    @property
    def label(self) -> str:
        """How messages name it."""
        return "standard output" if self.path is None else self.name


def resolve_target(name: str | os.PathLike[str]) -> Target:
    """Decide how `name` is written; a missing directory or a directory as the path is a UserError."""
    text = os.fspath(name)
    if text == STDOUT:
        return Target(text, None, False)
    path = Path(os.path.realpath(text))  # follows every link; a dangling one names the file to create
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if not path.parent.is_dir():
            raise UserError(f"cannot write {text}: directory {path.parent} does not exist; create it first") from None
        return Target(text, path, True)
    except OSError as exc:
        raise UserError(f"cannot write {text}: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise UserError(f"cannot write {text}: it is a directory; give a file name")
    return Target(text, path, stat.S_ISREG(st.st_mode))


@contextmanager
def open_output(target: str | os.PathLike[str] | Target, newline: str | None = None) -> Iterator[TextIO]:
    """A text stream for `target`; a replaced file appears only when the block ends without error.

    Raises:
        UserError: the path cannot be written (one line naming it).
    """
    where = target if isinstance(target, Target) else resolve_target(target)
    if where.path is None:
        # gathered, then written whole: the CLI's stdout (report/escape.py VisibleStream) finds a
        # reader that leaves mid-document (`| head -1`), which a plain text stream would not
        buffer = io.StringIO()
        yield buffer
        whole = getattr(sys.stdout, "write_whole", None)
        if whole is not None:
            whole(buffer.getvalue())
        else:
            sys.stdout.write(buffer.getvalue())
            sys.stdout.flush()
        return
    try:
        if where.replace:
            with _replacing(where.path, newline) as fh:
                yield fh
        else:
            fd = os.open(where.path, os.O_WRONLY | os.O_NOCTTY)  # no O_CREAT: it exists, and is no regular file
            with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as fh:
                yield fh
    except OSError as exc:
        raise UserError(f"cannot write {where.name}: {exc.strerror or exc}") from None


def write_output(target: str | os.PathLike[str] | Target, text: str | Iterable[str]) -> None:
    """Write `text` (or its parts, in order) to `target` as `open_output` does."""
    with open_output(target) as fh:
        if isinstance(text, str):
            fh.write(text)
        else:
            for part in text:
                fh.write(part)


@contextmanager
def _replacing(path: Path, newline: str | None) -> Iterator[TextIO]:
    """A temporary file beside `path`, renamed over it at the end (and removed on error)."""
    try:
        old: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        old = None
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    # 0o666 lets the umask decide a new file's mode, as any editor would; an old file's mode is copied.
    fh = os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if old else 0o666),
                   "w", encoding="utf-8", newline=newline)
    try:
        with fh:
            if old is not None:
                os.fchmod(fh.fileno(), stat.S_IMODE(old.st_mode))
                if os.geteuid() == 0:
                    os.fchown(fh.fileno(), old.st_uid, old.st_gid)
            yield fh
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
