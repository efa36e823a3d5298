"""A command's output, read as a stream with bounded memory: its metrics and its last lines.

Why: reading a run's whole output back made `head -c 200000000 /dev/zero` grow pairbench to
411 MB. The output file is read in chunks cut at line ends; only the metric lines, the first
match of each `--metric` regex and a short tail are kept. A regex is matched within one chunk of
whole lines (a match spanning more than CHUNK_BYTES of output is not found).
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from typing import BinaryIO, Sequence

__all__ = ["OutputScan", "scan_output", "unwritable", "JSON_PREFIX", "CHUNK_BYTES", "UNITS", "unit_scale", "to_base_unit"]

JSON_PREFIX = '{"pairbench"'
CHUNK_BYTES = 1 << 20
"""Output is read 1 MiB at a time; a line longer than that is cut there."""
TAIL_BYTES = 4096
"""Enough of the end of the output for an error message."""
_PREFIX = JSON_PREFIX.encode()

UNITS: dict[str, tuple[str, float]] = {
    **{w: ("s", 1e-9) for w in ("ns", "nsec")},
    **{w: ("s", 1e-6) for w in ("us", "µs", "μs", "usec")},
    **{w: ("s", 1e-3) for w in ("ms", "msec", "msecs")},
    **{w: ("s", 1.0) for w in ("s", "sec", "secs", "second", "seconds")},
    **{w: ("s", 60.0) for w in ("min", "mins", "minute", "minutes")},
    **{w: ("B", 1.0) for w in ("B", "byte", "bytes")},
    **{w: ("B", 1e3) for w in ("k", "K", "kB", "KB")},
    **{w: ("B", 1e6) for w in ("M", "MB")},
    **{w: ("B", 1e9) for w in ("G", "GB")},
    "KiB": ("B", 1024.0), "MiB": ("B", 1024.0 ** 2), "GiB": ("B", 1024.0 ** 3),
}
"""Unit word -> (SI base unit, factor): what a metric's number is normalised by. k/M/G alone
are byte multiples (as `ls -h` and `free -h` print them); kB, MB, GB are decimal, KiB... binary."""
_UNIT_AFTER = re.compile(r"[ \t]*([^\W\d_]+)")
"""The word right after a captured number: the unit it may be printed in."""


def unit_scale(word: str) -> tuple[str, float] | None:
    """(SI base unit, factor) of a unit word, or None when it is not a unit pairbench knows."""
    return UNITS.get(word.strip())


def to_base_unit(number: float, unit: str) -> tuple[float, str]:
    """`number` given in `unit`, in its SI base unit: (value, "s" or "B"); ValueError if unknown."""
    scale = unit_scale(unit)
    if scale is None:
        raise ValueError(unit)
    return number * scale[1], scale[0]


@dataclass(slots=True)
class OutputScan:
    """What one stream of output held."""

    json_values: dict[str, float] = field(default_factory=dict)
    """From `{"pairbench": {"NAME": VALUE}}` lines; a later line wins."""
    matches: dict[str, str] = field(default_factory=dict)
    """Metric name -> the first group of its regex's first match."""
    units: dict[str, str] = field(default_factory=dict)
    """Metric name -> the unit of that match: its `unit` (or second) group if the regex has one,
    else the word printed right after the number ("" when none)."""
    tail: str = ""
    """The last TAIL_BYTES of the output, decoded."""
    size: int = 0
    """Bytes of output."""


def scan_output(path: str | None, regexes: Sequence[tuple[str, re.Pattern[str]]] = (),
                want_json: bool = False) -> OutputScan:
    """Scan the output file at `path` (None: the output was discarded) for metrics and its tail.

    Args:
        path: the file the command's stream went to.
        regexes: (name, regex) of metrics still to find; each keeps its first match.
        want_json: collect JSON metric lines.
    """
    scan = OutputScan()
    if path is None:
        return scan
    try:
        fh = open(path, "rb")
    except OSError:
        return scan
    with fh:
        scan.size = os.fstat(fh.fileno()).st_size
        if regexes or want_json:
            _scan_chunks(fh, scan, list(regexes), want_json)
        fh.seek(max(scan.size - TAIL_BYTES, 0))
        scan.tail = fh.read(TAIL_BYTES).decode("utf-8", "replace")
    return scan


def unwritable(path: str) -> str | None:
    """Why each run could not write its stdout to the file at `path` (None: it can), said before any
    run so that a bad --output is one line and not a failure of the first run."""
    if os.path.isdir(path):
        return "that is a directory; give a file's path"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"no directory {folder}; create it or give a path in an existing directory"
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return "the file is not writable; give a file you may write"
    if not os.path.exists(path) and not os.access(folder, os.W_OK | os.X_OK):
        return f"directory {folder} is not writable; give a path in a directory you may write"
    return None


def _scan_chunks(fh: BinaryIO, scan: OutputScan, pending: list[tuple[str, re.Pattern[str]]], want_json: bool) -> None:
    carry = b""
    while True:
        chunk = fh.read(CHUNK_BYTES)
        data = carry + chunk
        if not chunk:
            if data:
                _scan_block(data, scan, pending, want_json)
            return
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            if len(data) < CHUNK_BYTES:
                carry = data
                continue
            cut = len(data)  # one very long line: scanned in pieces
        _scan_block(data[:cut], scan, pending, want_json)
        carry = data[cut:]


def _scan_block(block: bytes, scan: OutputScan, pending: list[tuple[str, re.Pattern[str]]], want_json: bool) -> None:
    if want_json and _PREFIX in block:
        for line in block.split(b"\n"):
            if line.startswith(_PREFIX):
                scan.json_values.update(_json_metrics(line))
    if pending:
        text = block.decode("utf-8", "replace")
        for item in list(pending):
            match = item[1].search(text)
            if match is not None:
                scan.matches[item[0]] = match.group(1) or ""
                scan.units[item[0]] = _unit_of(match, text)
                pending.remove(item)


def _unit_of(match: re.Match[str], text: str) -> str:
    regex = match.re
    if "unit" in regex.groupindex:
        return match.group("unit") or ""
    if regex.groups >= 2:
        return match.group(2) or ""
    if match.end(1) < 0:
        return ""
    after = _UNIT_AFTER.match(text, match.end(1))
    return after.group(1) if after else ""


def _json_metrics(line: bytes) -> dict[str, float]:
    try:
        payload = json.loads(line)["pairbench"]
    except (ValueError, KeyError, TypeError):
        return {}
    if not isinstance(payload, dict):
        return {}
    return {str(k): float(v) for k, v in payload.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)}
