"""A self-contained HTML report: one file that opens offline, with the plots people look at.

No CDN, no fonts, no images to fetch, no script: plots are inline SVG built in Python (plots.py),
laid out with measured text (labels.py), and the one style sheet is allowed by its hash in a
Content-Security-Policy that forbids everything else (network, scripts, other styles). Every user
string is escaped with `html.escape`, so a benchmark called `<script>alert(1)</script>` shows as
text, and would not run if it did not.
"""

from __future__ import annotations

import base64
import hashlib
import html
from typing import Sequence

from pairbench.model import Comparison, Metric, Run
from pairbench.report.kinds import kind_title, kinds_in_order
from pairbench.report.markdown import UNPAIRED_LABEL, command_line
from pairbench.report.plots import (
    LATENCY_METRIC,
    distribution_plot,
    drift_plot,
    forest_plot,
    latency_plot,
    sweep_parameter,
    sweep_plot,
    variant_labels,
)
from pairbench.report.suite_summary import SUMMARY_TITLE, summary_cells, summary_header, summary_note
from pairbench.report.sweep import BEST_MARK, sweep_cells, sweep_header, sweep_lines, sweep_title
from pairbench.report.captions import figures_caption
from pairbench.report.summary import (
    change_text,
    ci_header,
    ci_mixed,
    ci_text,
    figures,
    metric_groups,
    metric_of,
    notes_once,
    ratio_text,
    sentence_label,
    sentence_of,
    spreads,
    value_rows,
)
from pairbench.report.wording import verdict_word

__all__ = ["render_html"]

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1000px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.6em}h3{margin-bottom:.3em}
table{border-collapse:collapse;margin:.6em 0;font-size:.92em}th,td{border:1px solid #ddd;padding:.25em .6em;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}th{background:#f6f6f6}
.faster{color:#2a7d2a;font-weight:600}.slower{color:#b22222;font-weight:600}
.warn{background:#fff6e0;border-left:4px solid #e0a000;padding:.5em .8em;margin:.6em 0}
.sentences li{margin:.2em 0}.notes{color:#666;font-size:.9em}
svg.flame{display:block;margin:.4em 0;max-width:100%;height:auto}
svg.plot{display:block;margin:.4em 0;max-width:100%;height:auto;font-family:inherit}
pre{background:#f6f6f6;padding:.6em;overflow:auto}details{margin-top:1.5em}details.figs{margin:.4em 0;color:#555}
"""
_STYLE_HASH = base64.b64encode(hashlib.sha256(_STYLE.encode()).digest()).decode()
CSP = f"default-src 'none'; style-src 'sha256-{_STYLE_HASH}'; base-uri 'none'; form-action 'none'"
"""Nothing but the page's own style sheet: no script, no fetch, no other style."""


def esc(s: object) -> str:
    return html.escape(str(s), quote=True)


def _kind_of(run: Run, name: str) -> str:
    try:
        return run.benchmark(name).kind
    except KeyError:
        return "command"


def _rows(run: Run, metrics: Sequence[tuple[str, Metric]], comps: Sequence[Comparison]) -> list[str]:
    """One row per (benchmark, metric) and variant."""
    spread = spreads(run)
    shown = figures(run, comps)
    by_key = {(c.benchmark, c.metric, c.candidate): c for c in comps}
    mixed = ci_mixed(comps)
    rows = []
    for bench, m in metrics:
        for row in value_rows(run, bench, m, by_key, shown, spread):
            c = row.comparison
            verdict = ""
            change = change_text(c, m.unit)
            ratio, ci = (ratio_text(c), ci_text(c, mixed)) if c is not None else ("", "")
            if c is not None:
                word = verdict_word(c.verdict, m) + (" (exact)" if c.exact else "")
                verdict = f'<span class="{esc(c.verdict)}">{esc(word)}</span>'
            base = " (baseline)" if row.baseline else ""
            rows.append(
                f"<tr><td>{esc(bench)}</td><td>{esc(m.name)}</td><td>{esc(row.variant)}{base}</td>"
                f'<td class="num">{esc(row.value)}</td>'
                f'<td class="num">{esc(change)}</td><td class="num">{esc(ratio)}</td><td>{esc(ci)}</td>'
                f'<td class="num">{row.n}</td><td>{verdict}</td></tr>'
            )
    return rows


def _table(run: Run, kind: str, comps: Sequence[Comparison]) -> tuple[str, str]:
    """(the verdict rows, the rest collapsed): figures that are never judged in one section, and
    the counters that are zero for every variant named in one line, their rows collapsed too."""
    groups = [(b.name, metric_groups(run, b, comps)) for b in run.benchmarks if b.kind == kind]
    judged = _rows(run, [(name, m) for name, g in groups for m in g.judged], comps)
    described = _rows(run, [(name, m) for name, g in groups for m in g.described], comps)
    zero = _rows(run, [(name, m) for name, g in groups for m in g.zero], comps)
    if not (judged or described or zero):
        return "", ""
    head = (f"<tr><th>Benchmark</th><th>Metric</th><th>Variant</th><th>Median</th><th>Change</th><th>Ratio</th>"
            f"<th>{esc(ci_header(comps))}</th><th>n</th><th>Verdict</th></tr>")
    main = (f"<table>{head.replace('<th>Median</th>', '<th>Value</th>')}{''.join(judged)}</table>"
            f'<p class="caption">{esc(figures_caption(run, comps))}</p>') if judged else ""
    parts = []
    if described:
        parts.append(f'<details class="figs"><summary>Measured, not judged ({len(described)} rows)</summary>'
                     f"<table>{head}{''.join(described)}</table></details>")
    if zero:
        names = "; ".join(f"{esc(name)}: {esc(', '.join(m.name for m in g.zero))}" for name, g in groups if g.zero)
        parts.append(f'<details class="figs zero"><summary>Zero for every variant: {names}</summary>'
                     f"<table>{head}{''.join(zero)}</table></details>")
    return main, "".join(parts)


def _notes(comparisons: list[Comparison]) -> str:
    """Each note once, after the sentences, as the Markdown report gives them ("" without notes)."""
    notes = notes_once(comparisons)
    if not notes:
        return ""
    return '<ul class="notes">' + "".join(
        f"<li>{esc(n)}" + ("" if held is None else " — " + "; ".join(
            f"{esc(b)}: {', '.join(esc(m) for m in ms)}" for b, ms in held.items())) + "</li>"
        for n, held in notes) + "</ul>"


def render_html(run: Run, *, title: str = "pairbench report", comparisons: list[Comparison] | None = None) -> str:
    """The whole report as one HTML document (a string to write to a file)."""
    comps = list(run.comparisons if comparisons is None else comparisons)
    body: list[str] = [f"<h1>{esc(title)}</h1>"]
    facts = [f"status: <b>{esc(run.status)}</b>"]
    for key in ("started", "hostname"):
        if run.metadata.get(key):
            facts.append(f"{key}: {esc(run.metadata[key])}")
    if run.variants:
        facts.append(f"baseline: <b>{esc(run.baseline.name)}</b>")
    facts_at = len(body)
    if run.status != "complete":
        body.append(f'<p class="warn">This run is {esc(run.status)}; the figures use only what was measured.</p>')
    if any(not c.paired for c in comps):
        body.append(f'<p class="warn"><b>{esc(UNPAIRED_LABEL)}.</b></p>')
    labels = variant_labels(run)
    if labels.shortened:
        body.append(f'<p class="notes">Plots name each variant by the part that differs: '
                    f'<code>{esc(labels.prefix)}</code>…<code>{esc(labels.suffix)}</code></p>')
    forest = forest_plot(comps, labels, run)
    if forest:
        body += ["<h2>Summary</h2>", forest]
    body.append(_suite_summary(run))
    body.append(_geomeans(run))
    for kind in kinds_in_order(b.kind for b in run.benchmarks):
        kind_comps = [c for c in comps if _kind_of(run, c.benchmark) == kind]
        table, collapsed = _table(run, kind, kind_comps)
        if not (table or collapsed):
            continue
        body.append(f"<h2>{esc(kind_title(kind))}</h2>")
        body.append(table)
        said = [(c, sentence_of(c, metric_of(run, c.benchmark, c.metric))) for c in kind_comps]
        items = [f"<li><b>{esc(sentence_label(c, text, kind_comps))}</b>: {esc(text)}</li>" for c, text in said]
        if items:
            body.append(f'<ul class="sentences">{"".join(items)}</ul>')
        body.append(_notes(kind_comps))
        body.append(collapsed)
        for b in (b for b in run.benchmarks if b.kind == kind):
            body.append(f"<h3>{esc(b.name)}</h3>")
            if kind == "http":
                lat = latency_plot(run, b.name)
                if lat:
                    body.append(lat)
            for m in b.metrics:
                if (kind == "http" and LATENCY_METRIC.match(m.name)) or m.direction == "none":
                    continue  # latencies have their own plot; "none" metrics (exit codes) are never judged
                for plot in (distribution_plot(run, b.name, m.name),
                             sweep_plot(run, b.name, m.name, comps) if sweep_parameter(run) else None):
                    if plot:
                        body.append(plot)
            if b.metrics:
                drift = drift_plot(run, b.name, b.metrics[0].name)
                if drift:
                    body.append(drift)
            if any(p.benchmark == b.name for p in run.profiles):  # --profile
                from pairbench.report.flamegraph import profiles_html

                body.append(profiles_html(run, b.name))
    body.append(_sweeps(run))
    if run.notices:
        body.append("<h2>Warnings</h2><ul>")
        for n in run.notices:
            where = " · ".join(x for x in (n.benchmark, n.variant) if x)
            body.append(f"<li><b>{esc(n.kind)}</b>{' (' + esc(where) + ')' if where else ''}: {esc(n.message)}"
                        f"{' — ' + esc(n.hint) if n.hint else ''}</li>")
        body.append("</ul>")
    body.append(_details(run))
    plots = sum(part.count('<svg class="plot') for part in body)
    body.insert(facts_at, f"<p>{' · '.join(facts)} · <span id=\"plot-count\">{plots} plots</span></p>")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{_STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _cells_table(header: list[str], rows: list[list[str]], right: set[int]) -> str:
    """A table of text cells; the columns in `right` hold numbers."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f'<td class="num">{esc(c)}</td>' if i in right else f"<td>{_verdict_span(c)}</td>"
                                    for i, c in enumerate(cells)) + "</tr>" for cells in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _verdict_span(cell: str) -> str:
    """A verdict cell coloured as in the main table (`faster ★` keeps its mark)."""
    word = cell.removesuffix(BEST_MARK)
    if word in ("faster", "slower"):
        return f'<span class="{word}">{esc(cell)}</span>'
    return esc(cell)


def _sweeps(run: Run) -> str:
    """Every sweep table with its best point, runner-up and trends, as the terminal prints them."""
    if not run.sweeps:
        return ""
    parts = ["<h2>Sweeps</h2>"]
    for t in run.sweeps:
        header = sweep_header(t)
        parts.append(f'<h3>{esc(sweep_title(t))}</h3>')
        parts.append(_cells_table(header, sweep_cells(t), set(range(len(header) - 1))))
        parts.append('<ul class="sentences">' + "".join(f"<li>{esc(line)}</li>" for line in sweep_lines(t)) + "</ul>")
    return "\n".join(parts)


def _geomeans(run: Run) -> str:
    """`compare` of three or more sides: the geomean rows of its terminal table."""
    from pairbench.report.tables import geomean_rows, stored_geomeans

    stored = stored_geomeans(run)
    if not stored:
        return ""
    labels = [v.name for v in run.variants]
    header = ["", "metric", labels[0]] + [x for label in labels[1:] for x in (label, f"vs {labels[0]}")]
    return "<h2>Geomean</h2>" + _cells_table(header, geomean_rows(run, labels, stored), set(range(2, len(header))))


def _suite_summary(run: Run) -> str:
    """Each candidate's geometric mean over the benchmarks, with its CI."""
    rows = run.summaries
    if not rows:
        return ""
    header = summary_header(rows)
    return (f"<h2>{esc(SUMMARY_TITLE.capitalize())}</h2>"
            + _cells_table(header, summary_cells(rows), set(range(1, len(header))))
            + f'<p class="notes">{esc(summary_note(rows))}</p>')


def _details(run: Run) -> str:
    parts = ["<details><summary>Machine, variants and how to reproduce</summary>"]
    if run.metadata:
        rows = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in sorted(run.metadata.items(), key=lambda kv: str(kv[0]))
                       if k not in ("command_line", "argv", "geomeans"))
        parts.append(f"<table>{rows}</table>")
    if run.variants:
        rows = "".join(
            f"<tr><td>{esc(v.name)}</td><td>{esc(v.command)} {esc(' '.join(v.args))}</td>"
            f"<td>{esc(' '.join(f'{k}={x}' for k, x in sorted(v.env.items())))}</td>"
            f"<td>{esc(', '.join(f'{k}={x}' for k, x in v.params.items()))}</td></tr>"
            for v in run.variants)
        parts.append(f"<table><tr><th>Variant</th><th>Command</th><th>Environment</th><th>Parameters</th></tr>{rows}</table>")
    cmd = command_line(run)
    if cmd:
        parts.append(f"<p>To reproduce:</p><pre>{esc(cmd)}</pre>")
    parts.append("</details>")
    return "".join(parts)
