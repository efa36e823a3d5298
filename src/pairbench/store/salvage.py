"""Reading a run file that was cut short: keep every complete record, say what is missing.

pairbench writes the document atomically and appends journal lines (store/journal.py), so this
only happens when a copy was truncated (a full disk, a partial download, a file copied while
written by other tools). A run that never finished is read whole, with a note saying so. The JSON is closed at the last
point where a complete value ended, incomplete records are dropped, and the result is checked by
the ordinary loader. Nothing is written back.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from pairbench.errors import NotARunFile, TruncatedRunFile
from pairbench.model import Notice, Run, Sample
from pairbench.store.runfile import load_run, run_from_dict

__all__ = ["Loaded", "load_run_salvaging", "close_truncated_json"]

_SECTIONS = ("metadata", "variants", "benchmarks", "samples", "comparisons", "notices")
_DERIVED = ("sweeps", "summaries", "steady_states", "series", "profiles", "profile_differences")
"""The analysis's sections after the notices (store/runfile.py `run_to_dict`'s order)."""
_SAMPLE_FIELDS = {f.name for f in fields(Sample) if f.name in ("benchmark", "variant", "metric", "value", "block")}
_ALL_SAMPLE_FIELDS = {f.name for f in fields(Sample)}
_NOTICE_FIELDS = {f.name for f in fields(Notice)}


@dataclass(frozen=True, slots=True)
class Loaded:
    run: Run
    missing: tuple[str, ...] = ()
    """Empty for a whole file; else what could not be recovered, for a warning."""


def close_truncated_json(text: str) -> Any:
    """The longest prefix of `text` that ends after a complete value, closed into valid JSON.

    Raises ValueError when not even the outer object's first member is complete.
    """
    stack: list[str] = []
    cuts: list[tuple[int, str]] = []  # (position, closing brackets) after each complete element
    in_string = escape = False
    for i, ch in enumerate(text):
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
            cuts.append((i + 1, "".join(reversed(stack))))
        elif ch in "}]":
            if stack:
                stack.pop()
            if not stack:
                return json.loads(text[: i + 1])
        elif ch == "," and stack:
            cuts.append((i, "".join(reversed(stack))))
    for pos, closers in reversed(cuts[-200:]):
        try:
            return json.loads(text[:pos] + closers)
        except json.JSONDecodeError:
            continue
    raise ValueError("no complete value")


def _whole(text: str, key: str) -> bool:
    """The top-level section `key` ended before the cut: its closing bracket or another top-level key
    follows it (the run file is written with an indent of 1, so a line that begins with one space
    and `]`, `}` or `"` is at the top level, and nothing else is)."""
    at = text.find(f'\n "{key}":')
    return at != -1 and re.search(r'\n [\]}"]', text[at + 1:]) is not None


def load_run_salvaging(path: str | os.PathLike[str]) -> Loaded:
    """load_run, but a run file cut short yields what it holds plus the list of what is missing."""
    try:
        run = load_run(path)
        if run.status != "running":
            return Loaded(run)
        return Loaded(run, (f"the run has not finished (it is still going, or its process was killed); "
                            f"{len(run.samples)} samples so far",))
    except TruncatedRunFile:
        pass
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    try:
        doc = close_truncated_json(text)
    except ValueError:
        raise TruncatedRunFile(f"{path} is not valid JSON and holds no complete part of a run file") from None
    if not isinstance(doc, dict) or doc.get("schema") != "pairbench.run":
        raise NotARunFile(f"{path} is cut short and not a pairbench run file (no \"schema\": \"pairbench.run\")")
    missing = [s for s in _SECTIONS if s not in doc]
    for key in ("variants", "benchmarks", "samples"):
        if key in missing:
            raise TruncatedRunFile(f"{path} was cut short before its {key} were written; nothing can be recovered from it")
    raw = list(doc.get("samples", []))
    if raw and "comparisons" not in doc and isinstance(raw[-1], dict):
        # Cut inside the samples: the last one may have been closed with only some of its fields
        # (the rest would silently take defaults). Keep it only if it has every field its
        # predecessors have.
        whole = set(raw[0]) if len(raw) > 1 and isinstance(raw[0], dict) else _ALL_SAMPLE_FIELDS
        if not whole <= raw[-1].keys():
            raw[-1] = None
    samples = [s for s in raw if isinstance(s, dict) and _SAMPLE_FIELDS <= s.keys()]
    cut_samples = len(raw) - len(samples)
    doc["samples"] = samples
    doc["variants"] = [v for v in doc["variants"] if isinstance(v, dict) and "name" in v]
    doc["benchmarks"] = [b for b in doc["benchmarks"] if isinstance(b, dict) and {"name", "kind", "metrics"} <= b.keys()]
    if "notices" in missing and "comparisons" in doc:
        # cut inside the comparisons or just after them: they may be half written, so leave them out
        del doc["comparisons"]
        missing.insert(missing.index("notices"), "comparisons")
    if isinstance(doc.get("notices"), list) and doc["notices"]:  # cut inside them: the last may lack fields
        if not (isinstance(doc["notices"][-1], dict) and _NOTICE_FIELDS <= doc["notices"][-1].keys()):
            doc["notices"].pop()
        doc["notices"] = [n for n in doc["notices"] if isinstance(n, dict) and {"kind", "message"} <= n.keys()]
    last = next(reversed(doc))
    if last in _DERIVED and not _whole(text, last):  # the section the cut went through: leave it out
        del doc[last]
        missing.append(last)
    doc["status"] = "interrupted" if doc.get("status") in (None, "running", "complete") else doc["status"]
    run = run_from_dict(doc, source=str(path))
    notes = [f"the file is cut short; {len(run.samples)} complete samples were recovered"]
    if cut_samples:
        notes.append(f"{cut_samples} incomplete sample dropped")
    if missing:
        notes.append("missing: " + ", ".join(missing))
    return Loaded(run, tuple(notes))
