"""`pairbench compare BASE CAND [CAND...]`: saved runs measured at different times, compared unpaired.

Like pyperf compare_to or benchstat, but labelled for what it is: the runs were not interleaved,
so drift of the machine between them is not controlled. Benchmarks are matched by name; those on
one side only are listed; differing machine metadata draw a warning. With three or more files,
every one is compared with the first, column by column, with a geomean row per metric
(benchstat's). One file with several variants (the commands of a hyperfine JSON export) compares
them with its first.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Callable

    from pairbench.model import Comparison, Notice, Run

__all__ = ["register", "handle", "machine_differences", "merge_for_report", "merge_many", "geomeans"]

# Metadata keys (flattened, lower case) that describe the machine; a difference deserves a warning.
_MACHINE_WORDS = ("host", "cpu", "kernel", "platform", "os", "arch", "governor", "memory", "machine", "boot", "python")
_VOLATILE_WORDS = ("load", "freq", "uptime", "date", "time", "temp", "started")


def register(subparsers: Any) -> None:
    from pairbench.commands.common import threshold_percent

    p: argparse.ArgumentParser = subparsers.add_parser(
        "compare", help="compare saved runs, or the commands of one hyperfine file (unpaired; not interleaved)",
        description="Compare the baseline variant of the first file with that of each other file, benchmark by "
                    "benchmark (a geomean row per metric with three or more files), or the variants of one file "
                    "with its first. Run files, pyperf and hyperfine JSON files are accepted.",
    )
    p.add_argument("files", metavar="FILE", nargs="*",
                   help="run files: the first is the reference; one file with several variants (a hyperfine "
                        "JSON export) compares them with its first")
    p.add_argument("--variant", metavar="NAME", help="compare this variant of each run instead of their baselines")
    p.add_argument("--threshold", type=threshold_percent, default=1.0, metavar="PCT",
                   help="noise band ±PCT%% within which a change counts as no difference (default 1)")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level of the intervals (default 0.95)")
    p.add_argument("--markdown", nargs="?", const="-", metavar="FILE", help="also write a Markdown report")
    p.add_argument("--html", metavar="FILE", help="also write an HTML report with plots")
    p.set_defaults(handler=handle, plain_text=True)  # no styling of its own: every control in a name escaped


def _flatten(prefix: str, value: Any, out: dict[str, str]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif value not in (None, ""):
        out[prefix] = str(value)


def machine_differences(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(key, value in a, value in b) for machine facts that both runs state and that differ."""
    fa: dict[str, str] = {}
    fb: dict[str, str] = {}
    _flatten("", a, fa)
    _flatten("", b, fb)
    diffs = []
    for key in sorted(fa.keys() & fb.keys()):
        low = key.lower()
        if any(w in low for w in _MACHINE_WORDS) and not any(w in low for w in _VOLATILE_WORDS) and fa[key] != fb[key]:
            diffs.append((key, fa[key], fb[key]))
    return diffs


def _select(run: Run, variant: str | None, path: str, label: str) -> Run:
    """A copy of `run` holding only one variant (its baseline, or `variant`), renamed `label`."""
    from dataclasses import replace

    from pairbench.errors import UserError
    from pairbench.model import Run as RunT

    name = variant or run.baseline.name
    chosen = [v for v in run.variants if v.name == name]
    if not chosen:
        raise UserError(f"{path} has no variant {name!r}; valid: {', '.join(v.name for v in run.variants)}")
    meta = {**run.metadata, "compared_variant": name}
    return RunT(meta, [replace(chosen[0], name=label, baseline=True)], list(run.benchmarks),
                [replace(s, variant=label) for s in run.samples if s.variant == name], [], list(run.notices),
                run.status, run.suite)


def _labels(a: str, b: str, base_path: str, cand_path: str) -> tuple[str, str]:
    if a != b:
        return a, b
    sa, sb = Path(base_path).name, Path(cand_path).name
    return (sa, sb) if sa != sb else ("base", "candidate")


def merge_for_report(base: Run, cand: Run, comparisons: list[Comparison]) -> Run:
    """One Run with both one-variant sides as two variants, so the reporters can draw and tabulate them."""
    from dataclasses import replace

    from pairbench.model import Run as RunT

    names = {b.name for b in cand.benchmarks}
    benches = [b for b in base.benchmarks if b.name in names]
    keep = {b.name for b in benches}
    samples = [s for s in base.samples + cand.samples if s.benchmark in keep]
    variants = [base.baseline, replace(cand.baseline, baseline=False)]
    meta = {"base": base.metadata, "candidate": cand.metadata}
    return RunT(meta, variants, benches, samples, list(comparisons), [], "complete")


def _unpaired(base: Run, cand: Run, threshold: float, confidence: float) -> tuple[list[Comparison], list[Notice]]:
    from pairbench.flows.saved import compare_unpaired

    comparisons, notices = compare_unpaired(base, cand, threshold, confidence)
    # benchmarks on one side only are listed by the command itself
    return list(comparisons), [n for n in notices if n.kind != "unmatched"]


def _reclaim_markdown(args: argparse.Namespace) -> None:
    """`--markdown A.json B.json`: argparse gives A.json to --markdown; an existing JSON file is an input."""
    target = args.markdown
    if target not in (None, "-") and target.endswith((".json", ".json.gz")) and Path(target).is_file():
        args.files.insert(0, target)
        args.markdown = "-"


def _sides(args: argparse.Namespace) -> list[tuple[str, str, Run]]:
    """(label, path, one-variant run) per side: a file each, or the variants of a single file."""
    from pairbench.commands.reading import load_results
    from pairbench.errors import UserError

    if not args.files:
        raise UserError("give the run files to compare (BASE CAND..., or one file with several variants)")
    runs = [load_results(path) for path in args.files]
    if len(runs) == 1:
        run, path = runs[0], args.files[0]
        if len(run.variants) < 2:
            raise UserError(f"{path} holds one variant ({run.baseline.name}); give a second file to compare it with")
        if args.variant:
            raise UserError("--variant picks one variant of each file; with one file its variants are compared")
        if run.metadata.get("interleaved") is not False:
            from pairbench.commands.reading import warn

            warn(f"{path} was measured interleaved: `pairbench report {path}` shows its paired comparisons, "
                 "which are tighter than these unpaired ones")
        ordered = [run.baseline] + [v for v in run.variants if v is not run.baseline]
        return [(v.name, path, _select(run, v.name, path, v.name)) for v in ordered]
    names = [args.variant or r.baseline.name for r in runs]
    labels = _unique_labels(names, args.files)
    return [(label, path, _select(run, args.variant, path, label)) for label, path, run in zip(labels, args.files, runs)]


def _unique_labels(names: list[str], paths: list[str]) -> list[str]:
    """Variant names when they differ, else file names, else positions."""
    if len(set(names)) == len(names):
        return names
    files = [Path(p).name for p in paths]
    if len(set(files)) == len(files):
        return files
    return ["base", "candidate"] if len(paths) == 2 else [f"#{i + 1}" for i in range(len(paths))]


def handle(args: argparse.Namespace) -> int:
    from pairbench.errors import UserError

    _reclaim_markdown(args)
    if not 0 < args.confidence < 1:
        raise UserError(f"--confidence {args.confidence} must be between 0 and 1 (e.g. 0.95)")
    if args.threshold < 0:
        raise UserError(f"--threshold {args.threshold} must be a percentage ≥ 0 (e.g. 1 for ±1%)")
    sides = _sides(args)
    if len(sides) == 2:
        return _compare_two(args, sides)
    return _compare_many(args, sides)


def _compare_two(args: argparse.Namespace, sides: list[tuple[str, str, Run]]) -> int:
    from pairbench.commands.reading import warn
    from pairbench.report.exporters import ExportOptions, export
    from pairbench.report.markdown import UNPAIRED_LABEL
    from pairbench.report.summary import metric_of, sentence_of
    from pairbench.report.tables import render_unpaired_table

    (la, pa, base), (lb, pb, cand) = sides
    labels = (la, lb)
    comparisons, notices = _unpaired(base, cand, args.threshold / 100, args.confidence)
    merged = merge_for_report(base, cand, comparisons)
    merged.notices.extend(notices)

    out = sys.stdout
    one_file = pa == pb
    out.write(f"base:      {pa} ({_shown(args, base, la, one_file)})\n")
    out.write(f"candidate: {pb} ({_shown(args, cand, lb, one_file)})\n")
    out.write(f"{UNPAIRED_LABEL}\n")
    for key, a, b in ([] if one_file else machine_differences(base.metadata, cand.metadata)):
        text = f"machine metadata differ: {key}: {a!r} in {pa}, {b!r} in {pb}"
        warn(text)
        from pairbench.model import Notice as NoticeT

        merged.notices.append(NoticeT("machine", text, "compare runs from the same machine, or re-measure both"))
    only_base = [b.name for b in base.benchmarks if b.name not in {c.name for c in cand.benchmarks}]
    only_cand = [b.name for b in cand.benchmarks if b.name not in {c.name for c in base.benchmarks}]
    if comparisons:  # else the warning below says nothing was compared
        out.write("\n")
        out.write(render_unpaired_table(merged, comparisons, labels, args.confidence))
        out.write("\n")
    for c in comparisons:
        out.write(f"{c.benchmark} · {c.metric}: {sentence_of(c, metric_of(merged, c.benchmark, c.metric))}\n")
    if only_base:
        out.write(f"\nonly in {pa}: {', '.join(only_base)}\n")
    if only_cand:
        out.write(f"{'' if only_base else chr(10)}only in {pb}: {', '.join(only_cand)}\n")
    for n in notices:
        warn(n.message)
    _warn_summary_only(warn, base, cand)
    if not comparisons:
        warn("no benchmark is in both runs; nothing was compared")
    options = ExportOptions(title="pairbench compare")
    for fmt, target in (("markdown", args.markdown), ("html", args.html)):
        if target:
            export(merged, fmt, target, options, inputs=list(args.files))
    return 0


def _warn_summary_only(warn: Callable[[str], None], *runs: Run) -> None:
    """Say which imported files held summary statistics only: why their verdicts are insufficient."""
    for run in runs:
        for n in run.notices:
            if n.kind == "summary-only":
                warn(f"{n.message}; {n.hint}" if n.hint else n.message)


def _shown(args: argparse.Namespace, side: Run, label: str, one_file: bool) -> str:
    """The variant a side shows: its own name in one file, else the name it had in its file."""
    return label if one_file else (args.variant or str(side.metadata.get("compared_variant", label)))


def _compare_many(args: argparse.Namespace, sides: list[tuple[str, str, Run]]) -> int:
    """Every side against the first: one column per side, a geomean row per metric."""
    from pairbench.commands.reading import warn
    from pairbench.model import Notice as NoticeT
    from pairbench.report.exporters import ExportOptions, export
    from pairbench.report.markdown import UNPAIRED_LABEL
    from pairbench.report.summary import metric_of, sentence_label, sentence_of
    from pairbench.report.tables import GEOMEANS_KEY, render_many_table

    label0, path0, base = sides[0]
    comparisons: list[Comparison] = []
    notices: list[Notice] = []
    out = sys.stdout
    out.write(f"base:       {path0} ({_shown(args, base, label0, path0 == sides[1][1])})\n")
    for label, path, cand in sides[1:]:
        out.write(f"candidate:  {path} ({_shown(args, cand, label, path == path0)})\n")
        found, _ = _unpaired(base, cand, args.threshold / 100, args.confidence)
        comparisons += found
        for key, a, b in ([] if path == path0 else machine_differences(base.metadata, cand.metadata)):
            notices.append(NoticeT("machine", f"machine metadata differ: {key}: {a!r} in {path0}, {b!r} in {path}",
                                   "compare runs from the same machine, or re-measure both"))
    out.write(f"{UNPAIRED_LABEL}\n\n")
    merged = merge_many([run for _, _, run in sides], comparisons)
    merged.notices.extend(notices)
    labels = [label for label, _, _ in sides]
    found_geomeans = geomeans(merged, labels, comparisons)
    merged.metadata[GEOMEANS_KEY] = {metric: {"benchmarks": n, "values": values}
                                     for metric, (n, values) in found_geomeans.items()}
    out.write(render_many_table(merged, comparisons, labels, found_geomeans))
    out.write("\n")
    for c in comparisons:
        text = sentence_of(c, metric_of(merged, c.benchmark, c.metric))
        out.write(f"{sentence_label(c, text, comparisons)}: {text}\n")
    for n in notices:
        warn(n.message)
    _warn_summary_only(warn, *(run for _, _, run in sides))
    names = {b.name for b in merged.benchmarks}
    for label, path, run in sides:
        missing = [b.name for b in run.benchmarks if b.name not in names]
        if missing:
            out.write(f"only in {path}: {', '.join(missing)}\n")
    if not comparisons:
        warn("no benchmark is in the first run and another; nothing was compared")
    options = ExportOptions(title="pairbench compare")
    for fmt, target in (("markdown", args.markdown), ("html", args.html)):
        if target:
            export(merged, fmt, target, options, inputs=list(args.files))
    return 0


def merge_many(sides: list[Run], comparisons: list[Comparison]) -> Run:
    """One Run with every one-variant side as a variant (the first the baseline), holding the
    benchmarks of the first side that another side has too."""
    from dataclasses import replace

    from pairbench.model import Run as RunT

    others = {b.name for side in sides[1:] for b in side.benchmarks}
    benches = [b for b in sides[0].benchmarks if b.name in others]
    keep = {b.name for b in benches}
    variants = [sides[0].baseline] + [replace(side.baseline, baseline=False) for side in sides[1:]]
    samples = [s for side in sides for s in side.samples if s.benchmark in keep]
    meta = {"compared": [side.metadata for side in sides]}
    return RunT(meta, variants, benches, samples, list(comparisons), [], "complete")


PRIMARY = "primary metrics"
"""The geomean row over each benchmark's first metric (a ratio only: their units differ)."""


def geomeans(merged: Run, labels: list[str],
             comparisons: Sequence[Comparison] = ()) -> dict[str, tuple[int, dict[str, float]]]:
    """Benchstat's geomean rows: metric -> (benchmarks, label -> geometric mean of the figures the
    table shows, `figures`, else the medians), over the benchmarks where every side's figure is
    positive, for metrics of two or more such benchmarks; and under `PRIMARY`, label -> geometric
    mean of each benchmark's primary-metric ratio to the first side, the `vs` column's (rates
    inverted so that below 1 is better, as the suite summary reads).

    A description, like the figures it combines: the verdicts are the per-benchmark comparisons'."""
    import math

    from pairbench.report.summary import figures, percent_shown, spreads

    spread = spreads(merged)
    shown = figures(merged, comparisons)
    by_key = {(c.benchmark, c.metric, c.candidate): c for c in comparisons}
    per_metric: dict[str, list[list[float]]] = {}
    primary: list[list[float]] = []
    for bench in merged.benchmarks:
        for i, m in enumerate(bench.metrics):
            if m.direction == "none":
                continue
            keys = [(bench.name, m.name, label) for label in labels]
            values = [shown[k] if k in shown else spread[k].median if k in spread else 0.0 for k in keys]
            if not all(x > 0 for x in values):
                continue
            per_metric.setdefault(m.name, []).append(values)
            if i == 0 and not m.exact:
                # each side's ratio as its `vs` column shows it: the comparison's, not a quotient of figures
                found = [by_key.get(k) for k in keys[1:]]
                ratios = [1.0] + [c.ratio if c is not None and c.ratio is not None and percent_shown(c)
                                  else x / values[0] for c, x in zip(found, values[1:])]
                primary.append([1 / r for r in ratios] if m.direction == "higher" else ratios)
    out: dict[str, tuple[int, dict[str, float]]] = {}
    for metric, rows in [*per_metric.items(), (PRIMARY, primary)]:
        if len(rows) >= 2:
            out[metric] = (len(rows), {label: math.exp(sum(math.log(r[i]) for r in rows) / len(rows))
                                       for i, label in enumerate(labels)})
    return out
