"""What every importer shares: the input (a file or a directory, read once) and the entry of the table.

An importer is a frozen `Importer`: a name, a line saying what the tool writes, a `detect` that
looks at a `Source` without raising, and a `read` that turns it into a Run. The table of them is
importers/formats.py; one module per tool holds its entry.
"""

from __future__ import annotations

import gzip
import json
import math
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

from pairbench.errors import UserError
from pairbench.model import Notice, Run

__all__ = ["Source", "Naming", "Importer", "read_json", "summary_notice", "not_interleaved_notice",
           "finite", "blocks", "TIME_UNITS_S", "MOST_BLOCKS"]

T = TypeVar("T")

TIME_UNITS_S: dict[str, float] = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
"""Seconds per unit, for the tools that write times in a unit of their own (Google Benchmark, criterion, Go)."""

MOST_BLOCKS = 100
"""Consecutive measurements are grouped, in order, into at most this many blocks (a block's value is
the mean of its iterations, analysis/replicates.py). The unpaired tests weigh every block of one
side against every block of the other: 20 000 pytest-benchmark rounds a side took minutes and
gigabytes, while a hundred blocks of means keep every value (as iterations) and the test's power."""


def blocks(values: Sequence[T], most: int = MOST_BLOCKS) -> list[tuple[int, int, T]]:
    """(block, iteration, value) of consecutive measurements: one block each, or `most` blocks of
    near-equal size when there are more."""
    count = len(values)
    if count <= most:
        return [(i, 0, v) for i, v in enumerate(values)]
    out: list[tuple[int, int, T]] = []
    for i, v in enumerate(values):
        block = i * most // count
        first = -(-block * count // most)  # the first index of this block
        out.append((block, i - first, v))
    return out


def read_json(path: str | os.PathLike[str]) -> Any:
    """A JSON file, gzip-compressed or not (pyperf writes .json.gz); every problem is one UserError."""
    raw = _read_bytes(Path(path))
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{path} is not valid JSON ({exc}); import reads the files listed by "
                        "`pairbench import --help`") from None


def _read_bytes(path: Path) -> bytes:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None
    if raw[:2] == b"\x1f\x8b":  # pyperf writes .json.gz
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise UserError(f"{path} is a damaged gzip file: {exc}") from None
    return raw


class Source:
    """One input: a file (its JSON document or its text, each read at most once) or a directory."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, doc: Any = None) -> None:
        self.path = Path(path) if path is not None else None
        self._given = doc
        self.label = str(path) if path is not None else "document"

    @classmethod
    def of(cls, doc: Any) -> Source:
        """A document already read (no file behind it)."""
        return cls(doc=doc)

    @property
    def is_dir(self) -> bool:
        return self.path is not None and self.path.is_dir()

    @cached_property
    def raw(self) -> bytes | None:
        if self.path is None or self.is_dir:
            return None
        return _read_bytes(self.path)

    @cached_property
    def doc(self) -> Any:
        """The JSON document, or None when the input is not JSON."""
        if self.path is None:
            return self._given
        if self.raw is None:
            return None
        try:
            return json.loads(self.raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return None

    @cached_property
    def text(self) -> str:
        """The file as text (empty for a directory or a binary file)."""
        if self.raw is None:
            return ""
        try:
            return self.raw.decode("utf-8")
        except UnicodeDecodeError:
            return ""

    @property
    def stem(self) -> str:
        """The file name before its first dot: the default variant name."""
        return (self.path.name.split(".")[0] if self.path is not None else "") or "imported"


@dataclass(frozen=True, slots=True)
class Naming:
    """The names a user may give an import (`--name`, `--benchmark`)."""

    variant: str | None = None
    """The variant's name, for formats holding one variant (default: the file's stem, or what the file says)."""
    benchmark: str | None = None
    """The benchmark's name, for formats holding one benchmark under several variants (hyperfine)."""


@dataclass(frozen=True, slots=True)
class Importer:
    """One format `pairbench import` reads."""

    name: str
    """Its `--format` name."""
    reads: str
    """What the tool writes, for messages and help (`pytest --benchmark-json`)."""
    detect: Callable[[Source], bool]
    """True when the input is this format; never raises."""
    read: Callable[[Source, Naming], Run]
    """The input as a Run; a problem is one UserError naming the input."""


def finite(value: Any) -> float | None:
    """A finite float, or None (missing, null, text, NaN, ±inf as asv writes for a CI it could not compute)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def summary_notice(tool: str, source: str, how: str) -> Notice:
    """The notice of a run imported from summary statistics: one value per benchmark, no spread to test."""
    return Notice("summary-only", f"imported from {tool}'s summary statistics ({source}): one value per benchmark "
                                  "and variant, so a comparison of it has no spread to test", how)


def not_interleaved_notice(tool: str, source: str) -> Notice:
    return Notice("imported", f"imported from {tool} ({source}); its measurements were not interleaved with "
                              "another variant's", "compare two imports with `pairbench compare` (unpaired: drift "
                                                   "between them is not controlled)")
