"""The run file: one versioned JSON document holding a whole run (see docs/runfile.md).

History of the format:
    version 1 (pairbench 0.1): schema "pairbench.run"; metadata, variants, benchmarks,
        samples (named fields), comparisons, notices, status, suite.
    version 2: the analysis results, so that every report renders stored numbers: comparisons
        gain `adjusted_p`; `sweeps` (sweep tables, rows naming the comparison they show) and
        `summaries` (suite summaries) are new. Sentences are worded at render time; a
        comparison's `sentence` is kept only as version 1 wrote it. Migration: `adjusted_p` is
        read back from the note that held it; sweeps and summaries start empty.
    version 3: every comparison gains `baseline_value` and `candidate_value` (the figures shown
        beside its ratio, in the metric's unit: candidate ÷ baseline is the ratio) and `exact`;
        an exact count's verdict is `faster`, `slower` or `same` (its change against ±threshold)
        instead of `exact`. Migration: the baseline's figure is recomputed from the samples (its
        geometric mean over blocks, the mean when a value is <= 0, the median of an exact count),
        the candidate's is that times the ratio (plus `delta` for an exact count), and an `exact`
        verdict is judged as version 3 judges it.
    version 4: `steady_states`, one record per process whose in-process series was classified
        (micro): benchmark, variant, block, replicate, classification (flat, warmup, slowdown,
        no steady state), warmup_iterations (samples before the steady state, left out of the
        process's value), iterations and the metrics the cut applies to. Migration: none were
        classified, so the list starts empty and every measured sample counts, as it did.
        A version 3 or later file may hold `profiles` (`--profile`: each profiled run's folded stacks as
        [stack, weight] pairs); a file without the key has none, so no migration was needed.
        A version 4 file may hold `series` (micro: each process's per-batch times, benchmark,
        variant, block, replicate, metric, per_sample, values, which its steady state is classified
        from, and `per_sample` in a steady-state record); without them a process is classified
        from its samples, as before.
        Beside them, `profile_differences` (the analysis's "where" figures: per candidate and
        benchmark, each frame's self and total change, shares, interval across blocks, noise mark),
        so that reports only read them; a file with `profiles` but without this key is analysed
        once when it is read (analysis/profiles.py `fill_profile_differences`, called by the
        loaders in flows/), so no version step either.

While a run is measured, its samples are appended to the file as journal lines after the
document (store/journal.py, written by store/runwriter.py); when it ends, the document is written
again, atomically, with them folded in. `load_run` folds the journal of a run that is still going,
or was killed.
"""

from __future__ import annotations

import itertools
import json
import math
import os
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any, Callable, Iterator

from pairbench.errors import NewerRunFile, NotARunFile, RunFileError, TruncatedRunFile
from pairbench.model import (
    Benchmark,
    Comparison,
    Metric,
    Notice,
    ProcessSeries,
    Profile,
    Run,
    Sample,
    Spread,
    SteadyState,
    Variant,
)
from pairbench.summaries import FrameDifference, ProfileDifference, SuiteSummary, SweepRow, SweepTable, SweepTrend
from pairbench.store.samplelines import sample_line
from pairbench.store.journal import JournalError, parse_document
from pairbench.store.output import write_output

__all__ = ["SCHEMA", "VERSION", "run_to_dict", "run_from_dict", "write_run", "load_run", "loads_run", "dumps_run",
           "run_parts", "sample_line", "series_line"]

SCHEMA = "pairbench.run"
VERSION = 4

_ADJUSTED_P_NOTE = "adjusted p = "


def _v1_to_v2(doc: dict[str, Any]) -> dict[str, Any]:
    """Version 1 kept the adjusted p-value only in a note's words, and stored no sweeps or summaries."""
    comparisons = []
    for c in doc.get("comparisons", []):
        c = dict(c)
        if c.get("adjusted_p") is None:
            for note in c.get("notes", ()):
                if isinstance(note, str) and _ADJUSTED_P_NOTE in note:
                    try:
                        c["adjusted_p"] = float(note.rsplit(_ADJUSTED_P_NOTE, 1)[1].split()[0].rstrip(";,"))
                    except (IndexError, ValueError):
                        pass
        comparisons.append(c)
    return {**doc, "version": 2, "comparisons": comparisons, "sweeps": doc.get("sweeps", []),
            "summaries": doc.get("summaries", [])}


def _per_block(doc: dict[str, Any]) -> dict[tuple[str, str, str], list[float]]:
    """(benchmark, metric, variant) -> one value per block (the mean of its samples), in block order."""
    sums: dict[tuple[str, str, str], dict[int, list[float]]] = {}
    for x in doc.get("samples", []):
        if not isinstance(x, dict) or x.get("warmup"):
            continue
        value = x.get("value")
        if not isinstance(value, (int, float)) or not math.isfinite(value):
            continue
        key = (str(x.get("benchmark")), str(x.get("metric")), str(x.get("variant")))
        sums.setdefault(key, {}).setdefault(int(x.get("block", 0)), []).append(float(value))
    return {k: [math.fsum(v) / len(v) for _, v in sorted(blocks.items())] for k, blocks in sums.items()}


def _v2_location(values: list[float], exact: bool) -> float:
    if not values:
        return 0.0
    if exact:
        ordered = sorted(values)
        mid = len(ordered) // 2
        return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    if min(values) <= 0:
        return math.fsum(values) / len(values)
    return math.exp(math.fsum(math.log(v) for v in values) / len(values))


def _v2_exact_verdict(base: float, cand: float, threshold: float, direction: str) -> tuple[str, bool]:
    """The exact rule as version 3 introduced it (stats.verdict.judge_exact), frozen here."""
    if base == 0:
        if cand == 0:
            return "same", False
        up = cand > 0
    else:
        if abs(cand / base - 1.0) <= threshold * (1 + 1e-9):
            return "same", False
        up = cand > base
    worse = up if direction != "higher" else not up
    return ("slower" if worse else "faster"), True


def _v2_to_v3(doc: dict[str, Any]) -> dict[str, Any]:
    """Version 2 showed medians beside ratios and stored none; exact counts had no direction."""
    values = _per_block(doc)
    metrics: dict[tuple[str, str], dict[str, Any]] = {}
    for b in doc.get("benchmarks", []):
        for m in b.get("metrics", []) if isinstance(b, dict) else ():
            if isinstance(m, dict):
                metrics[(str(b.get("name")), str(m.get("name")))] = m
    comparisons = []
    for c in doc.get("comparisons", []):
        c = dict(c)
        metric = metrics.get((str(c.get("benchmark")), str(c.get("metric"))), {})
        exact = c.get("verdict") == "exact" or (bool(metric.get("exact")) and c.get("delta") is not None)
        base = _v2_location(values.get((str(c.get("benchmark")), str(c.get("metric")), str(c.get("baseline"))),
                                       []), exact)
        ratio, delta = c.get("ratio"), c.get("delta")
        if exact and isinstance(delta, (int, float)):
            cand = base + delta
        elif isinstance(ratio, (int, float)) and base > 0:
            cand = base * ratio
        else:
            cand = _v2_location(values.get((str(c.get("benchmark")), str(c.get("metric")),
                                            str(c.get("candidate"))), []), exact)
        c.setdefault("baseline_value", base)
        c.setdefault("candidate_value", cand)
        c["exact"] = exact
        if c.get("verdict") == "exact":
            c["verdict"], c["meaningful"] = _v2_exact_verdict(base, cand, float(c.get("threshold", 0.01)),
                                                              str(metric.get("direction", "lower")))
        comparisons.append(c)
    return {**doc, "version": 3, "comparisons": comparisons}


def _v3_to_v4(doc: dict[str, Any]) -> dict[str, Any]:
    """Version 3 classified no process: every measured sample counts, as it did."""
    return {**doc, "version": 4, "steady_states": doc.get("steady_states", [])}


# One function per version step: MIGRATIONS[v] turns a version-v document into version v+1.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4}


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


def _defined(x: Any) -> Any:
    """A float JSON can hold, else None: an interim look at a few blocks can leave a figure 0/0."""
    return x if not isinstance(x, float) or math.isfinite(x) else None


def _defined_pair(pair: tuple[float, float] | None) -> list[float] | None:
    return list(pair) if pair and all(math.isfinite(v) for v in pair) else None


def _comparison_to_dict(c: Comparison) -> dict[str, Any]:
    d = {k: _defined(v) for k, v in asdict(c).items()}
    d["ci"] = _defined_pair(c.ci)
    d["adjusted_ci"] = _defined_pair(c.adjusted_ci)
    d["reached_ci"] = _defined_pair(c.reached_ci)
    d["notes"] = list(c.notes)
    return d


def _pair(value: Any) -> tuple[float, float] | None:
    return (float(value[0]), float(value[1])) if value else None


def _sweep_to_dict(t: SweepTable) -> dict[str, Any]:
    return {
        "benchmark": t.benchmark, "metric": asdict(t.metric), "base": t.base, "params": list(t.params),
        "baseline": t.baseline,
        "rows": [{"variant": r.variant, "params": dict(r.params), "spread": asdict(r.spread) if r.spread else None,
                  "compared": r.comparison is not None} for r in t.rows],
        "family": t.family, "correction": t.correction, "best": t.best, "runner_up": t.runner_up,
        "best_vs_runner_up": _comparison_to_dict(t.best_vs_runner_up) if t.best_vs_runner_up else None,
        "trends": [{**asdict(tr), "ci": list(tr.ci) if tr.ci else None} for tr in t.trends],
        "confidence": t.confidence, "threshold": t.threshold,
    }


def _summary_to_dict(s: SuiteSummary) -> dict[str, Any]:
    return {**asdict(s), "ci": list(s.ci)}


def _difference_to_dict(d: ProfileDifference) -> dict[str, Any]:
    return {**{k: _defined(v) for k, v in asdict(d).items() if k != "frames"}, "samples": list(d.samples),
            "frames": [{**{k: _defined(v) for k, v in asdict(f).items()}, "interval": _defined_pair(f.interval)}
                       for f in d.frames]}


def _difference_from_dict(d: dict[str, Any]) -> ProfileDifference:
    frames = tuple(FrameDifference(**{**_only_known(FrameDifference, f), "interval": _pair(f.get("interval"))})
                   for f in d.get("frames", []))
    return ProfileDifference(**{**_only_known(ProfileDifference, d), "frames": frames,
                                "samples": (float(d["samples"][0]), float(d["samples"][1]))})


def run_to_dict(run: Run, samples: Any = None) -> dict[str, Any]:
    """The run as the JSON-ready document of the current version (`samples` stands in for its samples)."""
    doc: dict[str, Any] = {
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
        "sweeps": [_sweep_to_dict(t) for t in run.sweeps],
        "summaries": [_summary_to_dict(x) for x in run.summaries],
        "steady_states": [{**asdict(x), "metrics": list(x.metrics)} for x in run.steady_states],
    }
    if run.series:  # absent where no process timed batches, so such a file reads as before
        doc["series"] = [_series_to_dict(x) for x in run.series]
    if run.profiles:  # absent without --profile, so such a file reads as before
        doc["profiles"] = [{**asdict(p), "stacks": [list(pair) for pair in p.stacks]} for p in run.profiles]
        doc["profile_differences"] = [_difference_to_dict(d) for d in run.profile_differences]
    return doc


_SAMPLES_MARK = "\x00pairbench-samples\x00"


def run_parts(run: Run, sample_lines: list[str] | None = None) -> Iterator[str]:
    """The run file's text in parts, which joined are `dumps_run`'s: a long run's file is written
    without a copy of it in memory (50,000 samples are ~10 MB of text)."""
    lines = [sample_line(s) for s in run.samples] if sample_lines is None else sample_lines
    head = json.dumps(run_to_dict(run, samples=_SAMPLES_MARK), indent=1, allow_nan=False, default=str)
    before, _, after = head.partition(json.dumps(_SAMPLES_MARK))
    yield before
    if not lines:
        yield "[]"
    else:
        yield "[\n"
        for start in range(0, len(lines), 512):
            yield (",\n" if start else "") + ",\n".join(lines[start:start + 512])
        yield "\n ]"
    yield after


def dumps_run(run: Run, sample_lines: list[str] | None = None) -> str:
    """The run file's text: indented JSON, one line per sample.

    Args:
        sample_lines: the samples' lines as `sample_line` renders them, when the caller kept them
            (the run writer does: rendering 50,000 samples again at the end takes seconds).
    """
    return "".join(run_parts(run, sample_lines))


def series_line(series: ProcessSeries) -> str:
    """One process's batch series as one line of JSON (the journal's; the document holds the same object)."""
    return json.dumps(_series_to_dict(series), allow_nan=False, separators=(",", ":"))


def _series_to_dict(series: ProcessSeries) -> dict[str, Any]:
    return {**asdict(series), "values": list(series.values)}


def write_run(path: str | os.PathLike[str], run: Run) -> None:
    """Write the whole run file as `store.output` writes any user-named file (atomic for a regular file)."""
    write_output(path, itertools.chain(run_parts(run), ["\n"]))


def _only_known(cls: type, d: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in d.items() if k in names}


def run_from_dict(doc: Any, source: str = "run file") -> Run:
    """Build a Run from a parsed document, migrating older versions forward."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise NotARunFile(f"{source} is not a pairbench run file (no \"schema\": \"{SCHEMA}\")")
    version = doc.get("version")
    if not isinstance(version, int):
        raise RunFileError(f"{source} has no integer \"version\"")
    if version > VERSION:
        raise NewerRunFile(
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
        comparisons = [_comparison_from_dict(c) for c in doc.get("comparisons", [])]
        notices = [Notice(**_only_known(Notice, n)) for n in doc.get("notices", [])]
        by_key = {(c.benchmark, c.metric, c.candidate): c for c in comparisons}
        sweeps = [_sweep_from_dict(t, by_key) for t in doc.get("sweeps", [])]
        profiles = [Profile(**{**_only_known(Profile, p), "stacks": tuple((str(k), float(w)) for k, w in p["stacks"])})
                    for p in doc.get("profiles", [])]
        differences = [_difference_from_dict(d) for d in doc.get("profile_differences", [])]
        summaries = [SuiteSummary(**{**_only_known(SuiteSummary, x), "ci": _pair(x["ci"]),
                                     "left_out": tuple(x.get("left_out") or ())})
                     for x in doc.get("summaries", [])]
        steady = [SteadyState(**{**_only_known(SteadyState, x), "metrics": tuple(x.get("metrics", ()))})
                  for x in doc.get("steady_states", [])]
        series = [ProcessSeries(**{**_only_known(ProcessSeries, x), "values": tuple(float(v) for v in x["values"])})
                  for x in doc.get("series", [])]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # AttributeError: a list where a table was
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
        sweeps=sweeps,
        summaries=summaries,
        steady_states=steady,
        series=series,
        profiles=profiles,
        profile_differences=differences,
    )


def _comparison_from_dict(d: dict[str, Any]) -> Comparison:
    c = _only_known(Comparison, d)
    c["ci"] = _pair(c.get("ci"))
    c["adjusted_ci"] = _pair(c.get("adjusted_ci"))
    c["reached_ci"] = _pair(c.get("reached_ci"))
    c["notes"] = tuple(c.get("notes", ()))
    return Comparison(**c)


def _sweep_from_dict(d: dict[str, Any], by_key: dict[tuple[str, str, str], Comparison]) -> SweepTable:
    metric = Metric(**_only_known(Metric, d["metric"]))
    rows = tuple(
        SweepRow(r["variant"], dict(r.get("params", {})),
                 Spread(**_only_known(Spread, r["spread"])) if r.get("spread") else None,
                 by_key.get((d["benchmark"], metric.name, r["variant"])) if r.get("compared") else None)
        for r in d.get("rows", []))
    trends = tuple(SweepTrend(**{**_only_known(SweepTrend, tr), "ci": _pair(tr.get("ci"))})
                   for tr in d.get("trends", []))
    best_pair = d.get("best_vs_runner_up")
    return SweepTable(
        benchmark=d["benchmark"], metric=metric, base=d["base"], params=tuple(d.get("params", ())),
        baseline=d["baseline"], rows=rows, family=int(d.get("family", 1)), correction=d.get("correction", "none"),
        best=d.get("best"), runner_up=d.get("runner_up"),
        best_vs_runner_up=_comparison_from_dict(best_pair) if best_pair else None, trends=trends,
        confidence=float(d.get("confidence", 0.95)), threshold=float(d.get("threshold", 0.01)),
    )


def load_run(path: str | os.PathLike[str]) -> Run:
    """Read a run file; every problem is one RunFileError naming the file."""
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except OSError as exc:
        raise RunFileError(f"cannot read run file {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise NotARunFile(f"{path} is not a pairbench run file (not UTF-8 text)") from None
    try:
        doc, _ = parse_document(text)  # with the journal of a run still going, or killed, folded in
    except json.JSONDecodeError as exc:
        if not text.lstrip().startswith("{"):
            raise NotARunFile(f"{path} is not a pairbench run file (not a JSON object)") from None
        raise TruncatedRunFile(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); was it cut short?") from None
    except JournalError as exc:
        raise RunFileError(f"{path} is damaged: {exc}") from None
    return run_from_dict(doc, source=str(path))


def loads_run(text: str, source: str = "run file") -> Run:
    """A run file's text (journal folded in) as a Run; every problem is one RunFileError."""
    try:
        doc, _ = parse_document(text)
    except json.JSONDecodeError as exc:
        raise TruncatedRunFile(f"{source} is not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except JournalError as exc:
        raise RunFileError(f"{source} is damaged: {exc}") from None
    return run_from_dict(doc, source=source)
