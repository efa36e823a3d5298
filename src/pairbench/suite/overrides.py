"""`--set KEY=VALUE`: flags merged into a parsed suite document before it is validated."""

from __future__ import annotations

import json
import sys
from typing import Any, Mapping, Sequence

from pairbench.errors import SuiteError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 needs the backport
    import tomli as tomllib

__all__ = ["apply_overrides"]


def apply_overrides(doc: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """Merge `--set KEY=VALUE` flags into a parsed suite document (the flags win).

    KEY is a dotted TOML key (`variants.head.command`, `defaults.runs`), VALUE a TOML value
    (`"ruby-head"`, `10`, `[0, 3, 6]`, `{ RAILS_ENV = "production" }`, or an array of inline tables
    for `sweeps`); a bare word that is not valid TOML is taken as a string. Tables merge key by key;
    anything else replaces what the file said.
    """
    for item in overrides:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise SuiteError(f"--set {item!r}: expected KEY=VALUE, e.g. --set 'variants.head.command=\"ruby\"'")
        try:
            piece = tomllib.loads(f"{key} = {value.strip()}")
        except tomllib.TOMLDecodeError:
            try:
                piece = tomllib.loads(f"{key} = {json.dumps(value.strip())}")
            except tomllib.TOMLDecodeError as exc:
                raise SuiteError(f"--set {item!r}: {key!r} is not a TOML key ({exc})") from None
        _merge(doc, piece)
    return doc


def _merge(into: dict[str, Any], new: Mapping[str, Any]) -> None:
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        else:
            into[k] = v
