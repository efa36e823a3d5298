"""Reading a validated TOML document: every error names the file, the line and the valid choices.

tomllib gives no line numbers for keys, so `Locator` finds the line of a key path by scanning the
text (table headers, arrays of tables, dotted and inline keys). `Reader` holds the type checks
that raise SuiteError with `file:line:` in front.
"""

from __future__ import annotations

import math
import re
import shlex
from typing import Any, Iterable, Mapping, Sequence

from pairbench.errors import SuiteError

__all__ = ["KeyPath", "Locator", "Reader", "type_name", "suggest", "choices", "number_text"]

KeyPath = tuple[Any, ...]
"""Keys and array indices from the document's root: ("sweeps", 0, "values")."""


class Locator:
    """Finds the line of a key path (`("variants", "patched", "comand")`) in TOML text."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    @staticmethod
    def _key_re(key: str) -> str:
        return r"(?:" + re.escape(key) + r"|\"" + re.escape(key) + r"\"|'" + re.escape(key) + r"')"

    def _header(self, prefix: Sequence[str], nth: int | None, start: int) -> int | None:
        parts = r"\s*\.\s*".join(self._key_re(p) for p in prefix)
        if nth is None:
            pat = re.compile(r"^\s*\[\s*" + parts + r"\s*\]")
        else:
            pat = re.compile(r"^\s*\[\[\s*" + parts + r"\s*\]\]")
        seen = 0
        for i in range(start, len(self.lines)):
            if pat.match(self.lines[i]):
                if nth is None or seen == nth:
                    return i
                seen += 1
        return None

    def _implicit(self, prefix: Sequence[str]) -> int | None:
        """The first header of a table only defined by deeper ones (`[variants.head]` defines `variants`)."""
        parts = r"\s*\.\s*".join(self._key_re(p) for p in prefix)
        pat = re.compile(r"^\s*\[\[?\s*" + parts + r"\s*[.\]]")
        return next((i for i, line in enumerate(self.lines) if pat.match(line)), None)

    def _section_end(self, start: int) -> int:
        for i in range(start + 1, len(self.lines)):
            if self.lines[i].lstrip().startswith("["):
                return i
        return len(self.lines)

    def line(self, path: KeyPath) -> int:
        """1-based line of the last element of `path` it can find (1 when nothing matches)."""
        lo, hi = 0, len(self.lines)
        best = 0
        tables: list[str] = []
        inline = False
        for k, part in enumerate(path):
            if isinstance(part, int):
                if not inline:
                    h = self._header(tables, part, 0)
                    if h is not None:
                        lo, hi, best = h, self._section_end(h), h
                continue
            tables.append(str(part))
            if not inline:
                h = self._header(tables, None, 0)
                if h is not None:
                    lo, hi, best = h, self._section_end(h), h
                    continue
                implicit = self._implicit(tables)
                if implicit is not None:
                    best = implicit
                    continue
            pat = re.compile(r"(?:^|[\s{,.])" + self._key_re(str(part)) + r"\s*[=.]")
            found = None
            for i in range(lo, hi if not inline else len(self.lines)):
                if pat.search(self._strip_comment(self.lines[i])):
                    found = i
                    break
            if found is None:
                break
            best = lo = found
            inline = True
        return best + 1

    @staticmethod
    def _strip_comment(line: str) -> str:
        # Good enough for locating keys: a '#' outside quotes starts a comment.
        quote = ""
        for i, c in enumerate(line):
            if quote:
                if c == quote:
                    quote = ""
            elif c in "\"'":
                quote = c
            elif c == "#":
                return line[:i]
        return line


class Reader:
    """Validation helpers that raise SuiteError with `file:line:` in front."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.loc = Locator(text)

    def fail(self, where: KeyPath, message: str) -> SuiteError:
        return SuiteError(f"{self.path}:{self.loc.line(where)}: {message}")

    @staticmethod
    def dotted(where: KeyPath) -> str:
        out = ""
        for p in where:
            out += f"[{p}]" if isinstance(p, int) else (("." if out else "") + str(p))
        return out

    def table(self, value: Any, where: KeyPath) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"{self.dotted(where)} must be a table, not {type_name(value)}")
        return value

    def keys(self, table: Mapping[str, Any], valid: Sequence[str], where: KeyPath, what: str) -> None:
        for key in table:
            if key not in valid:
                hint = suggest(key, valid)
                raise self.fail(
                    (*where, key),
                    f"unknown key {key!r} in {what}{hint}; valid keys: {', '.join(valid)}",
                )

    def string(self, value: Any, where: KeyPath, *, empty: bool = False) -> str:
        if not isinstance(value, str):
            raise self.fail(where, f"{self.dotted(where)} must be a string, not {type_name(value)}")
        if not empty and not value.strip():
            raise self.fail(where, f"{self.dotted(where)} must not be empty")
        return value

    def boolean(self, value: Any, where: KeyPath) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, f"{self.dotted(where)} must be true or false, not {type_name(value)}")
        return value

    def integer(self, value: Any, where: KeyPath, minimum: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(where, f"{self.dotted(where)} must be an integer, not {type_name(value)}")
        if value < minimum:
            raise self.fail(where, f"{self.dotted(where)} must be at least {minimum}, not {value}")
        return value

    def number(self, value: Any, where: KeyPath, *, positive: bool = False, minimum: float | None = None,
               below: float | None = None) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.fail(where, f"{self.dotted(where)} must be a finite number, not {type_name(value)}")
        v = float(value)
        if positive and v <= 0:
            raise self.fail(where, f"{self.dotted(where)} must be greater than 0, not {value}")
        if minimum is not None and v < minimum:
            raise self.fail(where, f"{self.dotted(where)} must be at least {minimum:g}, not {value}")
        if below is not None and v >= below:
            raise self.fail(where, f"{self.dotted(where)} must be below {below:g}, not {value}")
        return v

    def strings(self, value: Any, where: KeyPath, *, split: bool = False) -> tuple[str, ...]:
        if split and isinstance(value, str):
            try:
                return tuple(shlex.split(value))
            except ValueError as exc:
                raise self.fail(where, f"{self.dotted(where)}: {exc}") from None
        if not isinstance(value, list):
            kind = "a list of strings" + (" or a string" if split else "")
            raise self.fail(where, f"{self.dotted(where)} must be {kind}, not {type_name(value)}")
        return tuple(self.string(v, (*where, i), empty=True) for i, v in enumerate(value))

    def scalar(self, value: Any, where: KeyPath) -> str:
        """A value used as text (an env var, a sweep value): strings, numbers, booleans."""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self.fail(where, f"{self.dotted(where)} must be a finite number, not {value}")
            return number_text(value)
        if isinstance(value, str):
            return value
        raise self.fail(where, f"{self.dotted(where)} must be a string or a number, not {type_name(value)}")


def type_name(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    return f"a {type(value).__name__}"


def number_text(value: float) -> str:
    return repr(round(value, 10))


def suggest(word: str, valid: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(word, list(valid), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def choices(names: Sequence[str], limit: int = 20) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "") if names else "(none)"
