"""The run file's journal: lines appended after the document while a run is going.

Why: rewriting the whole document after every block costs bytes that grow with the square of the
run's length, and a crash during a rewrite is what left cut-short files. Instead the document is
written once when the run starts and each replicate's samples are appended on one line of their
own; when the run ends, the document is written again with everything folded in and no journal.
A run killed at any instant thus leaves the document, the lines of every finished replicate and
at most one torn line (the replicate in flight), which readers drop.

    {... the run file's document ...}
    {"samples": [{sample}, ...]}          one line per replicate, in order; a micro process's
        "series": [{series}]              batch series on its replicate's line, so the two are
                                          kept or lost together
    {"head": {... document fields ...}}   the other fields, when they changed (notices, status, ...)

A `head` line replaces the document's fields of the same names; samples and series only ever
accumulate (a head line never holds them: rewriting every series on each would grow with the
square of the run, as whole documents did).
This module knows the line format only; `store.runwriter` writes it, `store.runfile` reads it.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["JournalError", "samples_line", "head_line", "parse_document"]


class JournalError(ValueError):
    """A journal line other than the last is unreadable: the file was damaged, not cut."""


def samples_line(samples_json: list[str], series_json: list[str] | None = None) -> str:
    """One replicate's samples and batch series (each given as one JSON object's text) as one journal line."""
    series = ',"series":[' + ",".join(x.strip() for x in series_json) + "]" if series_json else ""
    return '{"samples":[' + ",".join(x.strip() for x in samples_json) + "]" + series + "}\n"


def head_line(head_json: str) -> str:
    """The document's fields other than samples (given as one JSON object's text) as one journal line."""
    return '{"head":' + head_json + "}\n"


def parse_document(text: str) -> tuple[Any, int]:
    """The run file's document with its journal folded in, and how many journal lines were read.

    A torn last line (cut mid-write) is dropped. Raises json.JSONDecodeError when the document
    itself is incomplete or not JSON, and JournalError for an unreadable line before the last.
    """
    decoder = json.JSONDecoder()
    start = len(text) - len(text.lstrip())
    doc, end = decoder.raw_decode(text, start)
    rest = text[end:]
    if not rest.strip():
        return doc, 0
    if not isinstance(doc, dict):
        raise JournalError("data after the document, which is not an object")
    lines = rest.split("\n")
    read = 0
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines) - 1:  # no newline after it: the line in flight
                break
            raise JournalError(f"journal line {read + 1} is unreadable") from None
        _fold(doc, record, read + 1)
        read += 1
    return doc, read


def _fold(doc: dict[str, Any], record: Any, number: int) -> None:
    if isinstance(record, dict) and isinstance(record.get("samples"), list):
        doc.setdefault("samples", []).extend(record["samples"])
        if isinstance(record.get("series"), list):
            doc.setdefault("series", []).extend(record["series"])
    elif isinstance(record, dict) and isinstance(record.get("head"), dict):
        doc.update({k: v for k, v in record["head"].items() if k != "samples"})
    else:
        raise JournalError(f"journal line {number} is neither samples nor head")
