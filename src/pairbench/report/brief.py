"""The short answer a measuring command prints by default (`-v` and the saved report: terminal.py).

Per benchmark: the table of the metrics a reader asked about (the kind's secondary metrics, such as
a command's user, sys and rss, get rows only when they changed meaningfully, else one line), a
caption that explains every symbol the table uses, one sentence per comparison; then, once for the
whole run, the notes that change how a verdict reads and each warning, those that differ only in
their figures (one per variant) merged into one line.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Callable, Sequence

from rich.console import Console
from rich.text import Text

from pairbench.analysis.inverse import INVERSE_METRICS
from pairbench.model import Benchmark, Comparison, Notice, Run
from pairbench.report.escape import visible
from pairbench.report.captions import table_caption
from pairbench.report.summary import metric_of, names, sentence_of
from pairbench.report.terminal import INFO_KINDS, SECONDARY_COMMAND_METRICS, VERDICT_STYLE, print_table, table_title

__all__ = ["render_brief", "BRIEF_VALUES_CAPTION", "reading_note", "merged_notices"]

BRIEF_VALUES_CAPTION = "values: geometric means, ± half the interquartile range of the per-block values"
"""The value columns, in one line (`-v` says how the candidate's figure is made)."""

HIDDEN_KINDS = frozenset({"adaptive", "stop", "outliers", "drift", "shell", "no-shell", "steady-state", "sample-plan"})
"""Notices left to `-v`: how many blocks were measured and why (the title has the count; a run
that stopped with a verdict still open, `budget`, says so, since that is why it is open),
outliers (kept, and the comparison turns robust by itself when its differences show them) and a
variant's drift over the run (interleaving keeps the paired comparison unbiased; a drift of the
differences themselves is a comparison's note) and how a command was started, through a shell or not
(the warning that the shell's start-up decides its times, `shell-startup`, stays), and each process's steady
state when every one reached it (a process that never did, or slowed down, is a warning that stays), and
the samples per process micro planned from the run's spreads."""

BRIEF_HINTS = {"machine-busy": "it widens the CI", "drift": "paired comparisons stay unbiased"}
"""Shorter hints for the short answer (`-v` has the whole advice)."""

_METHOD_NOTES = (
    re.compile(r"^adjusted for multiple comparisons"),  # the caption explains (adj.)
    re.compile(r"^CI at \d"),  # the caption explains a level widened for the looks
    re.compile(r"^a real but negligible"),  # the sentence says it
    re.compile(r"^with \d+ (blocks|and \d+ values) the "),  # which interval method: -v
    re.compile(r"^outliers: "),  # the outlier warning says it
    re.compile(r"^significant, but may be below"),  # the sentence says it
    re.compile(r"^non-normal differences|^skewed (differences|values)"),  # which estimate: -v
    re.compile(r"^cannot resolve within budget"),  # the inconclusive sentence says it
    re.compile(r"^too few (blocks|values per side) for a verdict"),  # the no-verdict sentence says it
)


def reading_note(note: str) -> bool:
    """Whether a comparison's note changes how its verdict reads (else it is method detail for -v)."""
    return not any(p.search(note) for p in _METHOD_NOTES)


COUNTER_METRICS = frozenset({
    "cycles", "sim-cycles", "instructions", "branch-misses", "sim-branch-misses", "cache-misses", "sim-cache-misses",
    "L1-dcache-load-misses", "sim-L1-dcache-load-misses", "context-switches", "page-faults", "task-clock", "ipc",
    "branch-miss-rate"})
"""The counter set's metrics (runners/counters.py; tests/unit/test_word_lists.py checks the two agree):
beside another primary metric, those that did not move are one line, as CPU time and RSS are."""
_FOLDED = SECONDARY_COMMAND_METRICS | COUNTER_METRICS


def _moved(c: Comparison) -> bool:
    return c.verdict in ("faster", "slower") and (c.meaningful or c.exact)


def _split(run: Run, bench: Benchmark) -> tuple[Benchmark, list[str]]:
    """`bench` with the metrics to show as rows, and the secondary metrics that did not move."""
    compared: dict[str, list[Comparison]] = {}
    for c in run.comparisons:
        if c.benchmark == bench.name:
            compared.setdefault(c.metric, []).append(c)
    rows, calm = [], []
    for m in bench.metrics:
        found = compared.get(m.name, [])
        if m.direction == "none" or not found:
            continue  # nothing compared (no values): `-v` shows the empty row
        if INVERSE_METRICS.get(m.name) in compared:
            continue  # a rate that is its time inverted: the time's row and sentence say it (-v shows both)
        folds = m.name in _FOLDED or m.exact  # an exact count beside a time, as CPU time and RSS are
        if folds and m is not bench.metrics[0] and not any(_moved(c) for c in found):
            calm.append(m.name)
            continue
        rows.append(m)
    return dataclasses.replace(bench, metrics=tuple(rows)), calm


def _caption(run: Run, bench: Benchmark) -> str:
    """BRIEF_VALUES_CAPTION, and what each symbol in this table means (only those it uses)."""
    return table_caption(run, bench, BRIEF_VALUES_CAPTION.split(", ±")[0], ", ")


def merged_notices(notices: Sequence[Notice]) -> list[Notice]:
    """Each notice once; those of one kind and benchmark that differ only in their figures (the same
    warning per variant) as one notice whose figures are the range, without a variant."""
    groups: dict[tuple[str, str, str, str], list[Notice]] = {}
    for n in notices:
        groups.setdefault((n.kind, n.hint, n.benchmark, _NUMBER.sub("#", n.message)), []).append(n)
    out = []
    for (kind, hint, bench, _template), members in groups.items():
        if len(members) == 1:
            out.append(members[0])
            continue
        figures = [_NUMBER.findall(n.message) for n in members]
        texts = iter([_range(column) for column in zip(*figures)])
        message = _NUMBER.sub(lambda _m: next(texts), members[0].message)
        variant = members[0].variant if len({n.variant for n in members}) == 1 else ""
        out.append(Notice(kind, message, hint, bench, variant))
    return out


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _range(values: Sequence[str]) -> str:
    """`16.8–23.3`: the lowest and highest of one figure, as written; one figure when all agree."""
    low, high = min(values, key=float), max(values, key=float)
    return low if float(low) == float(high) else f"{low}–{high}"


def render_brief(run: Run, console: Console, sentences: str = "primary",
                 after: Sequence[Callable[[Run, Console], None]] = (),
                 diagnostics: Console | None = None) -> None:
    """Print the short answer for `run` (see the module docstring); arguments as render_terminal's."""
    for line in _executables(run):
        console.print(Text(line, style="dim"))
    captions: set[str] = set()
    notes: dict[str, list[str]] = {}
    """Each note once, with the comparisons it is about (the sentences' labels)."""
    said = 0
    for bench in run.benchmarks:
        if len(run.variants) < 2:
            console.print(Text(f"{table_title(run, bench)}: one variant ({visible(run.baseline.name)}), nothing to compare"))
            continue
        rows, calm = _split(run, bench)
        if rows.metrics:
            caption = _caption(run, rows)
            print_table(run, rows, console, caption if caption not in captions else None)
            captions.add(caption)
        else:
            console.print(Text(table_title(run, bench)))
        if sentences != "none":
            for c in run.comparisons:
                if c.benchmark != bench.name or c.metric not in {m.name for m in rows.metrics}:
                    continue
                if sentences == "primary" and c.metric in _FOLDED and c.metric != bench.metrics[0].name:
                    continue
                text = sentence_of(c, metric_of(run, c.benchmark, c.metric))
                # several candidates: name the one a sentence is about when the sentence does not
                label = c.metric if len(run.variants) < 3 or names(text, c.candidate) else f"{c.metric} · {c.candidate}"
                console.print(Text(f"  {visible(label)}: {visible(text)}", style=VERDICT_STYLE.get(c.verdict, "")))
                said += 1
                about = _about(run, bench, c)
                for note in filter(reading_note, c.notes):
                    notes.setdefault(note, []).append(about)
        if calm:
            console.print(Text(f"  {', '.join(visible(n) for n in calm)}: no meaningful change found (-v shows them)",
                               style="dim"))
        console.print()
    for view in after:
        view(run, console)
    for note, about in notes.items():  # after several sentences, a note says which it is about
        where = f" [{visible('; '.join(about))}]" if said > 1 else ""
        console.print(Text(f"note{where}: {visible(note)}", style="dim"))
    out = diagnostics or console
    open_verdict = any(c.verdict in ("inconclusive", "insufficient") for c in run.comparisons)
    hidden = HIDDEN_KINDS | ({"few-blocks"} if sentences != "none" else set())  # the sentence says how many to run
    shown = merged_notices([n for n in run.notices if _kind(n) not in hidden
                            and (_kind(n) != "budget" or open_verdict)])
    busy = any(_kind(n) == "machine-busy" for n in shown)
    for notice in shown:
        where = f" [{visible(notice.benchmark)}{' · ' + visible(notice.variant) if notice.variant else ''}]" \
            if notice.benchmark else ""
        advice = "" if _kind(notice) == "noise" and busy else BRIEF_HINTS.get(_kind(notice), notice.hint)  # said once
        hint = f" ({visible(advice)})" if advice else ""
        message = notice.message.split("; ")[0] if notice.kind == "budget" else notice.message  # -v: which settled
        label, style = ("note", "dim") if notice.kind in INFO_KINDS else ("warning", "yellow")
        out.print(Text(f"{label}{where}: {visible(message)}{hint}", style=style))
    if run.status != "complete":
        console.print(Text(f"run {run.status}: results above use the samples measured so far", style="bold yellow"))
    path = run.metadata.get("run_file")
    if path:
        out.print(Text(f"run file: {visible(str(path))}", style="dim"))


def _about(run: Run, bench: Benchmark, c: Comparison) -> str:
    """The comparison a note is about: its metric, with its benchmark and candidate where the run has several."""
    parts = [bench.name] if len(run.benchmarks) > 1 else []
    return " · ".join([*parts, c.metric, *([c.candidate] if len(run.variants) > 2 else [])])


def _kind(notice: Notice) -> str:
    """The notice's kind without the `stats:` the analysis's own notices carry in the run."""
    return notice.kind.removeprefix("stats:")


def _executables(run: Run) -> list[str]:
    """The resolved executables worth a line: those with a version or a version manager's shim."""
    lines = []
    for v in run.variants:
        exe = v.meta.get("executable")
        if not exe or not (v.meta.get("version") or v.meta.get("shim")):
            continue
        facts = [str(v.meta["version"])] if v.meta.get("version") else []
        if v.meta.get("shim"):
            facts.append(f"{v.meta.get('shim_manager', 'version manager')} shim "
                         + ("unresolved" if v.meta.get("shim_unresolved") else "resolved"))
        lines.append(visible(f"{v.name}: {exe} ({', '.join(facts)})"))
    return lines
