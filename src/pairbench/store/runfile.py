"""The run file: one versioned JSON document holding a whole run (see docs/runfile.md).

History of the format:
    version 1 (pairbench 0.1): schema "pairbench.run"; metadata, variants, benchmarks,
        samples (named fields), comparisons, notices, status, suite.

The file is rewritten atomically (write to a temporary file, then rename) after blocks, so an
interrupted run leaves a complete document with `status` "running" or "interrupted" holding every
sample measured so far.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any, Callable

from pairbench.errors import RunFileError
from pairbench.model import Benchmark, Comparison, Metric, Notice, Run, Sample, Variant

__all__ = ["SCHEMA", "VERSION", "RunWriter", "run_to_dict", "run_from_dict", "write_run", "load_run", "dumps_run"]

SCHEMA = "pairbench.run"
VERSION = 1

# One function per version step: MIGRATIONS[v] turns a version-v document into version v+1.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def _variant_to_dict(v: Variant) -> dict[str, Any]:
    d = asdict(v)
    d["args"] = list(v.args)
    d["unset_env"] = list(v.unset_env)
    d["env"] = dict(v.env)
    d["params"] = dict(v.params)
    d["meta"] = dict(v.meta)
    return d


def _benchmark_to_dict(b: Benchmark) -> dict[str, Any]:
    return {
        "name": b.name,
        "kind": b.kind,
        "metrics": [asdict(m) for m in b.metrics],
        "options": dict(b.options),
    }


def _comparison_to_dict(c: Comparison) -> dict[str, Any]:
    d = asdict(c)
    d["ci"] = list(c.ci) if c.ci else None
    d["adjusted_ci"] = list(c.adjusted_ci) if c.adjusted_ci else None
    d["notes"] = list(c.notes)
    return d


def run_to_dict(run: Run, samples: Any = None) -> dict[str, Any]:
    """The run as the JSON-ready document of the current version (`samples` stands in for its samples)."""
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "status": run.status,
        "metadata": run.metadata,
        "suite": run.suite,
        "variants": [_variant_to_dict(v) for v in run.variants],
        "benchmarks": [_benchmark_to_dict(b) for b in run.benchmarks],
        "samples": [asdict(s) for s in run.samples] if samples is None else samples,
        "comparisons": [_comparison_to_dict(c) for c in run.comparisons],
        "notices": [asdict(n) for n in run.notices],
    }


_SAMPLE_FIELDS = tuple(f.name for f in fields(Sample))
_SAMPLES_MARK = "\x00pairbench-samples\x00"


def _sample_line(sample: Sample) -> str:
    """One sample as one line of the file (samples are most of a run file: compact, and fast to write)."""
    return "  " + json.dumps({k: getattr(sample, k) for k in _SAMPLE_FIELDS}, allow_nan=False, default=str)


def _compose(run: Run, sample_lines: list[str]) -> str:
    head = json.dumps(run_to_dict(run, samples=_SAMPLES_MARK), indent=1, allow_nan=False, default=str)
    body = "[\n" + ",\n".join(sample_lines) + "\n ]" if sample_lines else "[]"
    return head.replace(json.dumps(_SAMPLES_MARK), body, 1)


def dumps_run(run: Run) -> str:
    """The run file's text: indented JSON, one line per sample."""
    return _compose(run, [_sample_line(s) for s in run.samples])


def write_run(path: str | os.PathLike[str], run: Run) -> None:
    """Write atomically, so a reader (or a crash) never sees half a file."""
    _write_atomically(Path(path), dumps_run(run))


class RunWriter:
    """Rewrites one run's file again and again at a cost that does not grow with the run.

    Why: dumping the whole document every block made a session quadratic — after 200 blocks of
    two 30 ms commands, writing the file cost more than the commands. A sample never changes once
    measured, so its line is kept and only the rest of the document is rendered again. The file
    is byte for byte what `write_run` writes.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._objs: list[Sample] = []
        self._lines: list[str] = []

    def write(self, run: Run) -> None:
        _write_atomically(self.path, self.dumps(run))

    def dumps(self, run: Run) -> str:
        samples = run.samples
        if len(self._objs) > len(samples) or any(a is not b for a, b in zip(self._objs, samples)):
            self._objs, self._lines = [], []  # not the run (or samples) seen before: start over
        for sample in samples[len(self._objs):]:
            self._objs.append(sample)
            self._lines.append(_sample_line(sample))
        return _compose(run, self._lines)


def _write_atomically(target: Path, text: str) -> None:
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.write("\n")
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _only_known(cls: type, d: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in d.items() if k in names}


def run_from_dict(doc: Any, source: str = "run file") -> Run:
    """Build a Run from a parsed document, migrating older versions forward."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise RunFileError(f"{source} is not a pairbench run file (no \"schema\": \"{SCHEMA}\")")
    version = doc.get("version")
    if not isinstance(version, int):
        raise RunFileError(f"{source} has no integer \"version\"")
    if version > VERSION:
        raise RunFileError(
            f"{source} has run file version {version}, newer than this pairbench knows ({VERSION}); upgrade pairbench"
        )
    while version < VERSION:
        doc = MIGRATIONS[version](doc)
        version += 1
    try:
        variants = []
        for v in doc["variants"]:
            v = _only_known(Variant, v)
            v["args"] = tuple(v.get("args", ()))
            v["unset_env"] = tuple(v.get("unset_env", ()))
            variants.append(Variant(**v))
        benchmarks = [
            Benchmark(
                name=b["name"],
                kind=b["kind"],
                metrics=tuple(Metric(**_only_known(Metric, m)) for m in b["metrics"]),
                options=b.get("options", {}),
            )
            for b in doc["benchmarks"]
        ]
        samples = [Sample(**_only_known(Sample, s)) for s in doc.get("samples", [])]
        comparisons = []
        for c in doc.get("comparisons", []):
            c = _only_known(Comparison, c)
            c["ci"] = tuple(c["ci"]) if c.get("ci") else None
            c["adjusted_ci"] = tuple(c["adjusted_ci"]) if c.get("adjusted_ci") else None
            c["notes"] = tuple(c.get("notes", ()))
            comparisons.append(Comparison(**c))
        notices = [Notice(**_only_known(Notice, n)) for n in doc.get("notices", [])]
    except (KeyError, TypeError, ValueError) as exc:
        raise RunFileError(f"{source} is damaged: {exc}") from None
    return Run(
        metadata=doc.get("metadata", {}),
        variants=variants,
        benchmarks=benchmarks,
        samples=samples,
        comparisons=comparisons,
        notices=notices,
        status=doc.get("status", "complete"),
        suite=doc.get("suite"),
    )


def load_run(path: str | os.PathLike[str]) -> Run:
    """Read a run file; every problem is one RunFileError naming the file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RunFileError(f"cannot read run file {path}: {exc.strerror}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RunFileError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); was it cut short?") from None
    return run_from_dict(doc, source=str(path))
