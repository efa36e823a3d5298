"""The history site's pages: the index and one page per benchmark x metric (see the package doc)."""

from __future__ import annotations

import time
from typing import Callable, Sequence

from pairbench.report.format import format_value
from pairbench.report.site.data import Series, SiteData, change_verdict
from pairbench.report.site.trend import trend_plot
from pairbench.report.svg import esc

__all__ = ["render_site", "is_site_index", "CSP"]

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
"""Stricter than the run report's: the site has no script at all."""

_GENERATOR = '<meta name="generator" content="pairbench history publish">'
"""Marks every page, so that publishing again knows the folder holds a site of ours, not the user's pages."""

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1000px;color:#222;padding:0 1em}
h1{font-size:1.5em}table{border-collapse:collapse;margin:.5em 0}td,th{border-bottom:1px solid #e5e5e5;padding:.25em .6em;text-align:left}
th{background:#f6f6f6}.slower{color:#b22}.faster{color:#282}nav a{margin-right:.6em}nav{margin:.6em 0}
.view{display:none}.view:target{display:block}.view.all{display:block}.view:target~.view.all{display:none}
svg{max-width:100%;height:auto}.muted{color:#777}
"""


def _page(title: str, body: Sequence[str], up: str = "") -> str:
    back = f'<p><a href="{up}index.html">← all benchmarks</a></p>' if up else ""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">' + _GENERATOR +
            f"<title>{esc(title)}</title><style>{_STYLE}</style></head>\n<body>\n{back}<h1>{esc(title)}</h1>\n"
            + "\n".join(body) + "\n</body></html>\n")


def is_site_index(html: str) -> bool:
    """Whether `html` is the index page of a site `history publish` wrote (whose pages it may replace)."""
    if _GENERATOR in html:
        return True
    # Sites published before the marker: the index's own head, policy and title.
    return f'content="{CSP}"' in html and "<title>pairbench history</title>" in html


def _views(series: Sequence[Series], render: Callable[[Sequence[Series]], str]) -> list[str]:
    """A nav of filters and one view per machine and per variant; the unfiltered view is last, so
    that `:target ~ .all` hides it when a filter is chosen."""
    machines = sorted({s.machine for s in series})
    variants = sorted({s.variant for s in series})
    nav = ['<nav>show: <a href="#all">all</a>']
    views = []
    for label, values, key in (("machine", machines, "m"), ("variant", variants, "v")):
        if len(values) < 2:
            continue
        nav.append(f"· {label}: " + " ".join(f'<a href="#{key}{i}">{esc(v)}</a>' for i, v in enumerate(values)))
        for i, v in enumerate(values):
            chosen = [s for s in series if (s.machine if key == "m" else s.variant) == v]
            views.append(f'<div class="view" id="{key}{i}"><p class="muted">{label} {esc(v)}</p>{render(chosen)}</div>')
    nav.append("</nav>")
    return [" ".join(nav), *views, f'<div class="view all" id="all">{render(series)}</div>']


def _latest_change(s: Series) -> str:
    if not s.changes:
        return '<span class="muted">none</span>'
    cp = s.changes[-1]
    verdict = change_verdict(cp.change, s.direction)
    at = s.points[cp.index]
    return (f'<span class="{verdict}">{cp.change:+.1%} {verdict}</span> at '
            f"{esc(at.commit[:12] or time.strftime('%Y-%m-%d', time.gmtime(at.recorded_at)))}")


def _index(data: SiteData, pages: dict[tuple[str, str], str]) -> str:
    def table(series: Sequence[Series]) -> str:
        rows = ["<table><tr><th>benchmark</th><th>metric</th><th>machine</th><th>variant</th><th>runs</th>"
                "<th>latest median</th><th>latest change</th></tr>"]
        for s in series:
            link = pages[(s.benchmark, s.metric)]
            rows.append(f'<tr><td><a href="{link}">{esc(s.benchmark)}</a></td><td>{esc(s.metric)}</td>'
                        f"<td>{esc(s.machine)}</td><td>{esc(s.variant)}</td><td>{len(s.points)}</td>"
                        f"<td>{esc(format_value(s.points[-1].median, s.unit))}</td><td>{_latest_change(s)}</td></tr>")
        return "".join(rows) + "</table>"

    runs = len({p.run_id for s in data.series for p in s.points})
    body = [f'<p class="muted">{runs} runs from {esc(data.location)}; published '
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. A change point is a step the noise does not "
            "explain.</p>"]
    return _page("pairbench history", body + (_views(data.series, table) if data.series else ["<p>No runs yet.</p>"]))


def _series_page(benchmark: str, metric: str, series: Sequence[Series], run_link: dict[int, str]) -> str:
    def plots(chosen: Sequence[Series]) -> str:
        return "".join(f"<h2>{esc(s.variant)} on {esc(s.machine)}</h2>{trend_plot(s, run_link)}" for s in chosen)

    return _page(f"{benchmark} · {metric}", _views(series, plots), up="../")


def render_site(data: SiteData, run_reports: dict[int, str]) -> dict[str, str]:
    """Every page of the site: relative path -> HTML.

    Args:
        data: the series from the history store.
        run_reports: run id -> that run's HTML report (rendered by the caller from its run file).
    """
    groups: dict[tuple[str, str], list[Series]] = {}
    for s in data.series:
        groups.setdefault((s.benchmark, s.metric), []).append(s)
    pages = {key: f"series/{i}.html" for i, key in enumerate(groups)}
    links = {run_id: f"../runs/{run_id}.html" for run_id in run_reports}
    out = {"index.html": _index(data, pages)}
    for key, chosen in groups.items():
        out[pages[key]] = _series_page(key[0], key[1], chosen, links)
    for run_id, html in run_reports.items():
        out[f"runs/{run_id}.html"] = html
    return out
