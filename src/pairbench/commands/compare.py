"""`pairbench compare BASE CAND`: two saved runs measured at different times, compared unpaired.

Like pyperf compare_to or benchstat, but labelled for what it is: the two runs were not
interleaved, so drift of the machine between them is not controlled. Benchmarks are matched by
name; those on one side only are listed; differing machine metadata draw a warning.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pairbench.model import Comparison, Notice, Run

__all__ = ["register", "handle", "machine_differences", "merge_for_report"]

# Metadata keys (flattened, lower case) that describe the machine; a difference deserves a warning.
_MACHINE_WORDS = ("host", "cpu", "kernel", "platform", "os", "arch", "governor", "memory", "machine", "boot", "python")
_VOLATILE_WORDS = ("load", "freq", "uptime", "date", "time", "temp", "started")


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "compare", help="compare two saved runs (unpaired; not interleaved)",
        description="Compare the baseline variant of BASE with that of CAND, benchmark by benchmark. "
                    "Run files, pyperf and hyperfine JSON files are accepted.",
    )
    # Optional here only so that `--markdown BASE CAND` can be read as meant (reclaim_positionals).
    p.add_argument("base", metavar="BASE", nargs="?", help="run file of the reference")
    p.add_argument("cand", metavar="CAND", nargs="?", help="run file of the candidate")
    p.add_argument("--variant", metavar="NAME", help="compare this variant of each run instead of their baselines")
    p.add_argument("--threshold", type=float, default=1.0, metavar="PCT",
                   help="noise band ±PCT%% within which a change counts as no difference (default 1)")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level of the intervals (default 0.95)")
    p.add_argument("--markdown", nargs="?", const="-", metavar="FILE", help="also write a Markdown report")
    p.add_argument("--html", metavar="FILE", help="also write an HTML report with plots")
    p.set_defaults(handler=handle)


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
    return RunT(dict(run.metadata), [replace(chosen[0], name=label, baseline=True)], list(run.benchmarks),
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
    from pairbench.analysis import compare_runs

    comparisons, notices = compare_runs(base, cand, threshold=threshold, confidence=confidence)
    # benchmarks on one side only are listed by the command itself
    return list(comparisons), [n for n in notices if n.kind != "unmatched"]


def handle(args: argparse.Namespace) -> int:
    from pairbench.commands.reading import load_results, reclaim_positionals, warn
    from pairbench.errors import UserError
    from pairbench.report.exporters import ExportOptions, export
    from pairbench.report.markdown import UNPAIRED_LABEL
    from pairbench.report.summary import metric_of, sentence_of
    from pairbench.report.tables import render_unpaired_table

    reclaim_positionals(args, ["base", "cand"], ["BASE", "CAND"])
    if not 0 < args.confidence < 1:
        raise UserError(f"--confidence {args.confidence} must be between 0 and 1 (e.g. 0.95)")
    if args.threshold < 0:
        raise UserError(f"--threshold {args.threshold} must be a percentage ≥ 0 (e.g. 1 for ±1%)")
    base_all, cand_all = load_results(args.base), load_results(args.cand)
    labels = _labels(args.variant or base_all.baseline.name, args.variant or cand_all.baseline.name, args.base, args.cand)
    base = _select(base_all, args.variant, args.base, labels[0])
    cand = _select(cand_all, args.variant, args.cand, labels[1])
    comparisons, notices = _unpaired(base, cand, args.threshold / 100, args.confidence)
    merged = merge_for_report(base, cand, comparisons)
    merged.notices.extend(notices)

    out = sys.stdout
    out.write(f"base:      {args.base} ({args.variant or base_all.baseline.name})\n")
    out.write(f"candidate: {args.cand} ({args.variant or cand_all.baseline.name})\n")
    out.write(f"{UNPAIRED_LABEL}\n")
    for key, a, b in machine_differences(base.metadata, cand.metadata):
        text = f"machine metadata differ: {key}: {a!r} in {args.base}, {b!r} in {args.cand}"
        warn(text)
        from pairbench.model import Notice as NoticeT

        merged.notices.append(NoticeT("machine", text, "compare runs from the same machine, or re-measure both"))
    only_base = [b.name for b in base.benchmarks if b.name not in {c.name for c in cand.benchmarks}]
    only_cand = [b.name for b in cand.benchmarks if b.name not in {c.name for c in base.benchmarks}]
    out.write("\n")
    out.write(render_unpaired_table(merged, comparisons, labels, args.confidence))
    out.write("\n")
    for c in comparisons:
        out.write(f"{c.benchmark} · {c.metric}: {sentence_of(c, metric_of(merged, c.benchmark, c.metric))}\n")
    if only_base:
        out.write(f"\nonly in {args.base}: {', '.join(only_base)}\n")
    if only_cand:
        out.write(f"{'' if only_base else chr(10)}only in {args.cand}: {', '.join(only_cand)}\n")
    for n in notices:
        warn(n.message)
    if not comparisons:
        warn("no benchmark is in both runs; nothing was compared")
    options = ExportOptions(title="pairbench compare")
    for fmt, target in (("markdown", args.markdown), ("html", args.html)):
        if target:
            export(merged, fmt, target, options, inputs=[args.base, args.cand])
    return 0
