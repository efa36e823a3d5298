"""The readers of one option field: type, range and choice checks, each naming where it was set.

Every kind's options parser (`runners/<kind>/options.py`) reads its fields with these, so a wrong type or
value gets the same wording, naming the suite line or the flag, for every kind.
"""

from __future__ import annotations

import difflib
import math
import re
from typing import Any, Mapping, Protocol

from pairbench.errors import UserError


class Where(Protocol):
    """Where an options mapping was written; builds the error that names it."""

    def fail(self, key: str | None, message: str) -> UserError:
        """The error for `message` about `key` (None: the mapping as a whole)."""
        ...



def shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def check_keys(given: Mapping[str, Any], valid: tuple[str, ...], where: Where, kind: str,
                also: tuple[str, ...] = ()) -> None:
    for key in given:
        if key not in valid:
            close = difflib.get_close_matches(key, valid + also, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise where.fail(key, f"unknown {kind} option {key!r}{hint}; valid: {', '.join(valid)}")


def read_string(m: Mapping[str, Any], key: str, where: Where, default: str | None, *, empty: bool = True) -> str | None:
    if key not in m or m[key] is None:
        return default
    value = m[key]
    if not isinstance(value, str):
        raise where.fail(key, f"{key} must be a string, not {shown(value)}")
    if not empty and not value.strip():
        raise where.fail(key, f"{key} must not be empty")
    return value


def read_strings(m: Mapping[str, Any], key: str, where: Where) -> tuple[str, ...]:
    """A list of strings, as given: a string or a number is refused, never split or converted."""
    value = m.get(key)
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise where.fail(key, f"{key} must be a list of strings, not {shown(value)}")
    return tuple(value)


def read_choice(m: Mapping[str, Any], key: str, where: Where, valid: tuple[str, ...]) -> str:
    value = read_string(m, key, where, valid[0])
    assert value is not None
    if value not in valid:
        raise where.fail(key, f"{key} {value!r} is not one of: {', '.join(valid)}")
    return value


def read_bool(m: Mapping[str, Any], key: str, where: Where, default: bool) -> bool:
    if key not in m or m[key] is None:
        return default
    if not isinstance(m[key], bool):
        raise where.fail(key, f"{key} must be true or false, not {shown(m[key])}")
    return bool(m[key])


def read_int(m: Mapping[str, Any], key: str, where: Where, default: int | None, minimum: int,
             maximum: int | None = None) -> int | None:
    if key not in m or m[key] is None:
        return default
    value = m[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise where.fail(key, f"{key} must be a whole number, not {shown(value)}")
    if value < minimum or (maximum is not None and value > maximum):
        span = f"at least {minimum}" if maximum is None else f"between {minimum} and {maximum}"
        raise where.fail(key, f"{key} must be {span}, not {value}")
    return value


def read_number(m: Mapping[str, Any], key: str, where: Where, default: float | None, *, positive: bool = False,
            maximum: float | None = None) -> float | None:
    if key not in m or m[key] is None:
        return default
    value = m[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise where.fail(key, f"{key} must be a finite number, not {shown(value)}")
    if (positive and value <= 0) or value < 0:
        raise where.fail(key, f"{key} must be {'greater than 0' if positive else '0 or more'}, not {value}")
    if maximum is not None and value > maximum:
        raise where.fail(key, f"{key} must be at most {maximum:g}, not {value}")
    return float(value)


def read_regexes(m: Mapping[str, Any], key: str, where: Where) -> dict[str, str]:
    value = m.get(key) or {}
    if not isinstance(value, Mapping):
        raise where.fail(key, f"{key} must be a table of NAME = 'regex', not {shown(value)}")
    out = {}
    for name, regex in value.items():
        if not isinstance(regex, str):
            raise where.fail(key, f"metric {name!r}: the regex must be a string, not {shown(regex)}")
        try:
            compiled = re.compile(regex, re.MULTILINE)
        except (re.error, RecursionError, OverflowError) as exc:
            raise where.fail(key, f"metric {name!r}: invalid regex {regex!r}: {exc}") from None
        if compiled.groups < 1:
            raise where.fail(key, f"metric {name!r}: regex {regex!r} needs a group around the number, like ([\\d.]+)")
        out[str(name)] = regex
    return out
