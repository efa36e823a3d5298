"""`requires-python` specifiers (PEP 440's comparison clauses), for pyperformance's metafiles.

pyperformance skips a benchmark whose `[project] requires-python` the interpreter does not satisfy
(bm_async_tree_eager*.toml need 3.12: on 3.11 the script silently falls back to the plain tree, so
timing it would time another benchmark). Only the clauses those files use are read: `>=`, `>`,
`<=`, `<`, `==`, `!=` (with a trailing `.*` for a prefix), `~=`, separated by commas; releases only.
"""

from __future__ import annotations

import re

__all__ = ["check_requires_python", "satisfies", "skip_reason"]

_CLAUSE = re.compile(r"^\s*(~=|===|==|!=|<=|>=|<|>)\s*(\d+(?:\.\d+)*)(\.\*)?\s*$")


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _clauses(spec: str) -> list[tuple[str, tuple[int, ...], bool]]:
    out = []
    for clause in spec.split(","):
        m = _CLAUSE.match(clause)
        if m is None or (m.group(3) and m.group(1) not in ("==", "!=")):
            raise ValueError(f"{clause.strip()!r} is not a version clause such as '>=3.8'")
        out.append((m.group(1), _release(m.group(2)), bool(m.group(3))))
    return out


def check_requires_python(spec: str) -> None:
    """Raise ValueError, naming the clause, when `spec` is not a list of version clauses."""
    _clauses(spec)


def _pad(a: tuple[int, ...], n: int) -> tuple[int, ...]:
    return a + (0,) * (n - len(a))


def _holds(op: str, have: tuple[int, ...], want: tuple[int, ...], prefix: bool) -> bool:
    if prefix:
        same = have[:len(want)] == want
        return same if op == "==" else not same
    n = max(len(have), len(want))
    a, b = _pad(have, n), _pad(want, n)
    if op == "~=":  # compatible release: >= want, and the same release but for want's last part
        return a >= b and have[:len(want) - 1] == want[:-1]
    return {"==": a == b, "===": a == b, "!=": a != b, "<=": a <= b, ">=": a >= b, "<": a < b, ">": a > b}[op]


def satisfies(version: str, spec: str) -> bool:
    """True when the Python `version` ("3.11.2", "3.12.0rc1") meets every clause of `spec`."""
    m = re.match(r"\d+(?:\.\d+)*", version)
    if m is None:
        raise ValueError(f"{version!r} is not a Python version")
    have = _release(m.group(0))
    return all(_holds(op, have, want, prefix) for op, want, prefix in _clauses(spec))


def skip_reason(spec: str | None, source: str | None, version: str | None) -> str:
    """Why an interpreter of `version` skips a benchmark that requires `spec` ("" when it may run it)."""
    if not spec or not version or satisfies(version, spec):
        return ""
    return (f"needs Python {spec}" + (f" (requires-python of {source})" if source else "")
            + f"; this interpreter is {version}")
