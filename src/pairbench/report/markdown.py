"""A Markdown report to paste into GitHub, GitLab, Redmine or Discourse.

One table per benchmark kind, the verdict sentence of every comparison (with its CI and n), the
noise warnings, and a collapsed section with the machine metadata and the command line that
reproduces the run. Every string that came from the user is escaped, so a benchmark called
`<script>` or `a|b` shows as itself and cannot break the table.
"""

from __future__ import annotations

import html
import re
import shlex
from typing import Any, Iterable

from pairbench.model import Comparison, Metric, Run
from pairbench.report.kinds import kind_title, kinds_in_order
from pairbench.report.suite_summary import SUMMARY_TITLE, summary_cells, summary_header, summary_note
from pairbench.report.captions import figures_caption
from pairbench.report.summary import (
    change_text,
    ci_header,
    ci_mixed,
    ci_text,
    figures,
    metric_groups,
    notes_once,
    ratio_text,
    sentence_label,
    sentence_of,
    spreads,
    value_rows,
)
from pairbench.report.sweep import sweep_cells, sweep_header, sweep_lines, sweep_title
from pairbench.report.wording import verdict_word

__all__ = ["render_markdown", "md_escape", "UNPAIRED_LABEL"]

UNPAIRED_LABEL = "not interleaved: drift between the runs is not controlled"

# Characters that start emphasis, code, links, tables or strike-through anywhere in a line; `_`
# only at a word edge (GitHub ignores intra-word underscores, so `req_per_s` stays readable).
_MD_SPECIAL = re.compile(r"([\\`*\[\]|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")


def md_escape(text: Any) -> str:
    """Text that Markdown (and the HTML it allows) shows literally, on one line, safe in a table cell."""
    s = html.escape(str(text), quote=False)
    s = _MD_SPECIAL.sub(r"\\\1", s)
    return " ".join(s.split())


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks inside `text`."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _flatten(prefix: str, value: Any) -> Iterable[tuple[str, str]]:
    if isinstance(value, dict):
        for k in sorted(value, key=str):
            yield from _flatten(f"{prefix}.{k}" if prefix else str(k), value[k])
    elif isinstance(value, (list, tuple)):
        yield prefix, ", ".join(str(v) for v in value)
    else:
        yield prefix, "" if value is None else str(value)


def command_line(run: Run) -> str | None:
    """The command line that reproduces the run, as recorded in its metadata."""
    for key in ("command_line", "argv"):
        value = run.metadata.get(key)
        if isinstance(value, list) and value:
            words = [str(v) for v in value]
            # sys.argv[0] is a path (…/pairbench/__main__.py, …/bin/pairbench); a reader types `pairbench`
            if words[0].endswith(("__main__.py", "/pairbench")) or words[0] == "-m":
                words[0] = "pairbench"
            return shlex.join(words)
        if isinstance(value, str) and value:
            return value
    return None


def _verdict_cell(c: Comparison, metric: Metric) -> str:
    word = verdict_word(c.verdict, metric)
    word = f"**{word}**" if c.verdict in ("faster", "slower") else word
    return f"{word} (exact)" if c.exact else word


def _metric_rows(run: Run, metrics: list[tuple[str, Metric]], comparisons: list[Comparison]) -> list[str]:
    """One table row per (benchmark, metric) and variant."""
    spread = spreads(run)
    shown = figures(run, comparisons)
    by_key = {(c.benchmark, c.metric, c.candidate): c for c in comparisons}
    mixed = ci_mixed(comparisons)
    rows = []
    for bench, m in metrics:
        for row in value_rows(run, bench, m, by_key, shown, spread):
            c = row.comparison
            name = md_escape(row.variant) + (" (baseline)" if row.baseline else "")
            change = change_text(c, m.unit)
            change = md_escape(change) if c is not None and c.delta is not None else change
            ratio, ci = (ratio_text(c), ci_text(c, mixed).replace("*", "\\*")) if c is not None else ("", "")
            verdict = _verdict_cell(c, m) if c is not None else ""
            rows.append(f"| {md_escape(bench)} | {md_escape(m.name)} | {name} | {row.value} | {change} | {ratio} | {ci} | {row.n} | {verdict} |")
    return rows


def _kind_section(run: Run, kind: str, comparisons: list[Comparison]) -> list[str]:
    """The verdict rows, their sentences, then (collapsed) the figures never judged and the
    counters that are zero for every variant."""
    benches = [b for b in run.benchmarks if b.kind == kind]
    if not benches:
        return []
    groups = [(b.name, metric_groups(run, b, comparisons)) for b in benches]
    header = ci_header(comparisons).replace("*", "\\*")
    head = [f"| Benchmark | Metric | Variant | Median | Change | Ratio | {header} | n | Verdict |",
            "|---|---|---|--:|--:|--:|---|--:|---|"]
    lines = [f"## {md_escape(kind_title(kind))}", ""]
    judged_rows = _metric_rows(run, [(name, m) for name, g in groups for m in g.judged], comparisons)
    if judged_rows:  # a run that failed before its first block has none: no empty table, no caption
        lines += [head[0].replace("| Median |", "| Value |"), head[1], *judged_rows, ""]
        lines += [f"_{md_escape(figures_caption(run, comparisons))}_", ""]
    sentences: list[str] = []
    judged: list[Comparison] = []
    for b in benches:
        for m in b.metrics:
            for v in run.variants:
                c = next((c for c in comparisons if (c.benchmark, c.metric, c.candidate) == (b.name, m.name, v.name)),
                         None)
                if c is not None:
                    text = sentence_of(c, m)
                    sentences.append(f"- **{md_escape(sentence_label(c, text, comparisons))}**: {md_escape(text)}")
                    judged.append(c)
    if sentences:
        lines += sentences + [""]
    notes = notes_once(judged)
    if notes:
        lines += ["Notes:", ""] + [_note_line(note, held) for note, held in notes] + [""]
    described = _metric_rows(run, [(name, m) for name, g in groups for m in g.described], comparisons)
    if described:
        lines += ["<details>", f"<summary>Measured, not judged ({len(described)} rows)</summary>", ""]
        lines += head + described + ["", "</details>", ""]
    zero = _metric_rows(run, [(name, m) for name, g in groups for m in g.zero], comparisons)
    if zero:
        names = "; ".join(f"{html.escape(name)}: {html.escape(', '.join(m.name for m in g.zero))}"
                          for name, g in groups if g.zero)
        lines += ["<details>", f"<summary>Zero for every variant: {names}</summary>", ""]
        lines += head + zero + ["", "</details>", ""]
    return lines if len(lines) > 2 else []  # nothing under the heading: no section


def _note_line(note: str, held: dict[str, list[str]] | None) -> str:
    """A note once; the benchmarks and metrics it holds for named unless it holds for every sentence above."""
    if held is None:
        return f"- {md_escape(note)}"
    return f"- {md_escape(note)} — " + "; ".join(f"{md_escape(b)}: {', '.join(md_escape(m) for m in ms)}"
                                                 for b, ms in held.items())


def render_markdown(run: Run, *, title: str = "pairbench report", comparisons: list[Comparison] | None = None) -> str:
    """The whole report as GitHub-flavoured Markdown.

    Args:
        run: a finished or interrupted run, as loaded from its run file.
        title: the heading.
        comparisons: overrides `run.comparisons` (used by `compare` for unpaired results).
    """
    comps = list(run.comparisons if comparisons is None else comparisons)
    out = [f"# {md_escape(title)}", ""]
    facts = [f"**Status:** {md_escape(run.status)}"]
    host: Any = run.metadata.get("hostname") or run.metadata.get("host")
    started: Any = run.metadata.get("started") or run.metadata.get("start_time")
    if started:
        facts.append(f"**Started:** {md_escape(started)}")
    if host:
        facts.append(f"**Machine:** {md_escape(host)}")
    if run.variants:
        facts.append(f"**Baseline:** {md_escape(run.baseline.name)}")
    out.append(" · ".join(facts))
    out.append("")
    if run.status != "complete":
        out.append(f"> **Warning:** this run is {md_escape(run.status)}; the figures use only what was measured.")
        out.append("")
    if any(not c.paired for c in comps):
        out.append(f"> **{UNPAIRED_LABEL}.**")
        out.append("")
    if not any(not s.warmup for s in run.samples) and not comps:
        out.append("_No samples were measured (warm-ups only)._" if run.samples else "_No samples were measured._")
        out.append("")
    for kind in kinds_in_order(b.kind for b in run.benchmarks):
        out.extend(_kind_section(run, kind, [c for c in comps if _kind_of(run, c.benchmark) == kind]))
    out.extend(_sweeps(run))
    if run.profiles:  # --profile
        from pairbench.report.profiles import where_markdown

        out.extend(where_markdown(run, md_escape))
    out.extend(_suite_summary(run))
    out.extend(_geomeans(run))
    if run.notices:
        out.append("## Warnings")
        out.append("")
        for n in run.notices:
            where = " · ".join(md_escape(x) for x in (n.benchmark, n.variant) if x)
            line = f"- **{md_escape(n.kind)}**" + (f" ({where})" if where else "") + f": {md_escape(n.message)}"
            if n.hint:
                line += f" — {md_escape(n.hint)}"
            out.append(line)
        out.append("")
    out.extend(_details(run))
    return "\n".join(out).rstrip() + "\n"


def _md_table(header: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    """A table of text cells (escaped here); the columns in `right` hold numbers, aligned right."""
    align = ["--:" if i in right else "---" for i in range(len(header))]
    lines = ["| " + " | ".join(md_escape(h) for h in header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(md_escape(c) for c in cells) + " |" for cells in rows]
    return lines + [""]


def _sweeps(run: Run) -> list[str]:
    """Every sweep table with its best point, runner-up and trends, as the terminal prints them."""
    if not run.sweeps:
        return []
    lines = ["## Sweeps", ""]
    for t in run.sweeps:
        header = sweep_header(t)
        lines += [f"### {md_escape(sweep_title(t))}", ""]
        lines += _md_table(header, sweep_cells(t), set(range(len(header) - 1)))
        lines += [f"- {md_escape(line)}" for line in sweep_lines(t)] + [""]
    return lines


def _geomeans(run: Run) -> list[str]:
    """`compare` of three or more sides: the geomean rows of its terminal table."""
    from pairbench.report.tables import stored_geomeans, geomean_rows

    stored = stored_geomeans(run)
    if not stored:
        return []
    labels = [v.name for v in run.variants]
    header = ["", "metric", labels[0]] + [x for label in labels[1:] for x in (label, f"vs {labels[0]}")]
    return ["## Geomean", ""] + _md_table(header, geomean_rows(run, labels, stored), set(range(2, len(header))))


def _suite_summary(run: Run) -> list[str]:
    """Each candidate's geometric mean over the benchmarks, with its CI."""
    rows = run.summaries
    if not rows:
        return []
    lines = [f"## {SUMMARY_TITLE.capitalize()}", ""]
    header = summary_header(rows)
    lines += _md_table(header, summary_cells(rows), set(range(1, len(header))))
    return lines + [md_escape(summary_note(rows)), ""]


def _kind_of(run: Run, benchmark: str) -> str:
    try:
        return run.benchmark(benchmark).kind
    except KeyError:
        return "command"


def _details(run: Run) -> list[str]:
    lines = ["<details>", "<summary>Machine, variants and how to reproduce</summary>", ""]
    meta = [(k, v) for k, v in _flatten("", run.metadata)
            if k not in ("command_line", "argv") and not k.startswith("geomeans.")]
    if meta:
        lines += ["| Metadata | Value |", "|---|---|"]
        lines += [f"| {md_escape(k)} | {md_escape(v)} |" for k, v in meta]
        lines.append("")
    if run.variants:
        lines += ["| Variant | Command | Environment | Parameters |", "|---|---|---|---|"]
        for v in run.variants:
            cmd = " ".join(x for x in (v.command, shlex.join(v.args)) if x)
            env = " ".join(f"{k}={val}" for k, val in sorted(v.env.items()))
            env += "".join(f" -{k}" for k in v.unset_env)
            params = ", ".join(f"{k}={val}" for k, val in v.params.items())
            lines.append(f"| {md_escape(v.name)} | {md_escape(cmd)} | {md_escape(env.strip())} | {md_escape(params)} |")
        lines.append("")
    repro = command_line(run)
    if repro:
        fence = _fence(repro)
        lines += ["To reproduce:", "", f"{fence}sh", repro, fence, ""]
    lines.append("</details>")
    return lines
