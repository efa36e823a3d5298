"""One sample as one line of a run file: samples are most of a run file, written as they come.

The line is json.dumps of the sample's fields; the usual sample (finite floats, names) is
written by hand to the same text, at a fifth of the cost (a run of /bin/true writes five).
"""

from __future__ import annotations

import json
import math
from dataclasses import fields

from pairbench.model import Sample

__all__ = ["sample_line"]

_SAMPLE_FIELDS = tuple(f.name for f in fields(Sample))

_QUOTED: dict[str, str] = {}
"""Names as JSON strings: a run repeats a few benchmark, variant and metric names thousands of times."""


def _quoted(text: str) -> str:
    found = _QUOTED.get(text)
    if found is None:
        found = json.dumps(text)
        if len(_QUOTED) < 4096:
            _QUOTED[text] = found
    return found


def sample_line(sample: Sample) -> str:
    """One sample as one line of the file, without the separating comma."""
    value, when = sample.value, sample.time
    if (type(value) is float and type(when) is float and math.isfinite(value) and math.isfinite(when)
            and type(sample.block) is int and type(sample.replicate) is int and type(sample.iteration) is int
            and type(sample.warmup) is bool and type(sample.benchmark) is str and type(sample.variant) is str
            and type(sample.metric) is str and type(sample.machine) is str):
        return (f'  {{"benchmark": {_quoted(sample.benchmark)}, "variant": {_quoted(sample.variant)}, '
                f'"metric": {_quoted(sample.metric)}, "value": {value!r}, "block": {sample.block}, '
                f'"replicate": {sample.replicate}, "iteration": {sample.iteration}, '
                f'"warmup": {"true" if sample.warmup else "false"}, "time": {when!r}, '
                f'"machine": {_quoted(sample.machine)}}}')
    return "  " + json.dumps({k: getattr(sample, k) for k in _SAMPLE_FIELDS}, allow_nan=False, default=str)
