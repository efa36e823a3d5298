"""Saving a run as it is measured: the document once, then a journal line per replicate.

Why: a crash at any instant must lose at most the replicate in flight, and saving must not cost
more as the run grows (rewriting the whole file after every block wrote bytes that grew with the
square of the run's length). See `store.journal` for the lines and docs/runfile.md for the
measured cost. The run's file goes through `store.output`, so a FIFO, a device or standard output
takes one whole document at the end, and a regular file is replaced atomically when the run ends.
"""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path
from typing import Callable

from pairbench.model import Run, Sample
from pairbench.store.journal import head_line, samples_line
from pairbench.store.output import resolve_target, write_output
from pairbench.store.runfile import run_parts, run_to_dict, sample_line, series_line

__all__ = ["RunWriter", "HEAD_INTERVAL_S"]

HEAD_INTERVAL_S = 0.5
"""Longest time between two checks of the document's other fields for changes nothing announced."""


class RunWriter:
    """Keeps one run's file up to date: `write` after every replicate, `finish` once at the end."""

    def __init__(self, path: str | os.PathLike[str], clock: Callable[[], float] = time.monotonic) -> None:
        self.target = resolve_target(path)
        self.path = Path(path)
        self._clock = clock
        self._fd: int | None = None
        self._samples: list[Sample] | None = None
        """The run's sample list, by identity, and how many of it are on disk (the session only appends)."""
        self._n = 0
        self._last: Sample | None = None
        self._lines: list[str] = []
        """Each saved sample's line, rendered once: the journal and the final document share them."""
        self._series = 0
        """How many of the run's batch series are on disk (the session only appends them)."""
        self._head = ""
        self._shape: tuple[object, ...] = ()
        self._head_checked = 0.0

    def write(self, run: Run) -> None:
        """Append what is new since the last call (the first call writes the document).

        A target that is no regular file takes nothing until `finish`: appending to a FIFO or a
        device would send a reader a document and then journal lines it cannot read.
        """
        if not self.target.replace:
            return
        samples, n = run.samples, self._n
        if self._fd is None or samples is not self._samples or len(samples) < n or (n and samples[n - 1] is not self._last) \
                or len(run.series) < self._series:
            self._start(run)  # first call, or not the samples saved so far: a new document
            return
        parts = []
        if len(samples) > n or len(run.series) > self._series:
            new = [sample_line(s) for s in samples[n:]]
            self._lines.extend(new)
            parts.append(samples_line(new, [series_line(x) for x in run.series[self._series:]]))
            self._n, self._last, self._series = len(samples), samples[-1] if samples else None, len(run.series)
        head = self._changed_head(run)
        if head is not None:
            parts.append(head_line(head))
        if parts:
            _write_all(self._fd, "".join(parts).encode("utf-8"))

    def finish(self, run: Run) -> None:
        """Write the whole document, journal folded in (atomically for a regular file)."""
        self.close()
        kept = self._samples is run.samples and len(self._lines) == len(run.samples) and (
            not run.samples or run.samples[-1] is self._last)
        write_output(self.target, itertools.chain(run_parts(run, self._lines if kept else None), ["\n"]))

    def close(self) -> None:
        """Stop appending (the file keeps its document and journal as they are)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _start(self, run: Run) -> None:
        self.close()
        assert self.target.path is not None
        self._lines = [sample_line(s) for s in run.samples]
        write_output(self.target, itertools.chain(run_parts(run, self._lines), ["\n"]))
        self._fd = os.open(self.target.path, os.O_WRONLY | os.O_APPEND)
        self._samples, self._n, self._series = run.samples, len(run.samples), len(run.series)
        self._last = run.samples[-1] if run.samples else None
        self._head, self._shape, self._head_checked = _head(run), _shape(run), self._clock()

    def _changed_head(self, run: Run) -> str | None:
        """The document's other fields when they changed, else None.

        Rendering them costs about a millisecond (machine metadata, options), too much for every
        replicate of a fast command, so they are rendered when their shape changed (a notice, a
        metric, an analysis, the status) and otherwise at most every HEAD_INTERVAL_S.
        """
        shape, now = _shape(run), self._clock()
        if shape == self._shape and now - self._head_checked < HEAD_INTERVAL_S:
            return None
        self._shape, self._head_checked = shape, now
        head = _head(run)
        if head == self._head:
            return None
        self._head = head
        return head


def _shape(run: Run) -> tuple[object, ...]:
    """Cheap facts that change whenever the session changes the document's other fields."""
    return (run.status, id(run.notices), len(run.notices), id(run.comparisons), len(run.comparisons),
            tuple(id(b) for b in run.benchmarks), len(run.metadata))


def _head(run: Run) -> str:
    """The document without its samples and series (journaled apart), as canonical text (compared to
    see whether it changed)."""
    doc = run_to_dict(run, samples=[])
    del doc["samples"]
    doc.pop("series", None)
    return json.dumps(doc, allow_nan=False, default=str, sort_keys=True, separators=(",", ":"))


def _write_all(fd: int, data: bytes) -> None:
    """One write(2) in practice; the loop only covers a short write (a nearly full disk)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
