"""The history site's pages, rendered from series built by hand (no store, no browser)."""

from __future__ import annotations

import re

from pairbench.report.site import is_site_index, render_site
from pairbench.report.site.data import Point, Series, SiteData
from pairbench.stats.changepoint import ChangePoint, median_interval


def _series(machine: str, variant: str, n: int, changes: tuple[ChangePoint, ...] = (), first_run: int = 0) -> Series:
    pts = tuple(Point(first_run + i, 1_700_000_000.0 + i, f"{i:040x}", 0.01, (0.0099, 0.0101), 8) for i in range(n))
    return Series("parse", "time", "s", "lower", machine, variant, pts, changes)


def test_pages_hold_one_point_per_run_the_change_points_and_no_script() -> None:
    up = ChangePoint(5, 0.01, 0.02, 9.0)
    data = SiteData((_series("ci-1", "main", 10, (up,)), _series("ci-2", "<b>x</b>", 4, first_run=100)), {}, "h.sqlite")
    pages = render_site(data, {3: "<html>report 3</html>"})
    assert set(pages) == {"index.html", "series/0.html", "runs/3.html"}
    page = pages["series/0.html"]
    everything = page[page.index('id="all"'):]
    assert everything.count('class="pt"') == 14
    assert re.findall(r'class="cp" data-index="(\d+)" data-change="([\d.]+)"', everything) == [("5", "1.0000")]
    assert "+100.0% slower" in pages["index.html"]
    # Only run 3 has a report, so only its point links.
    assert re.findall(r'<a href="([^"]+)"><circle', everything) == ["../runs/3.html"]
    for html in (pages["index.html"], page):
        assert "<script" not in html and "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
        assert "default-src 'none'" in html
    # One view per machine and per variant, the unfiltered one last (CSS :target hides it).
    assert re.findall(r'class="view[^"]*" id="(\w+)"', page) == ["m0", "m1", "v0", "v1", "all"]


def test_median_interval_uses_the_binomial_order_statistics() -> None:
    # n = 10 at 95%: ranks 2 and 9 (coverage 97.9%; Conover 1999, table A3).
    assert median_interval([float(x) for x in range(10, 0, -1)]) == (2.0, 9.0)
    assert median_interval([1.0, 2.0, 3.0, 4.0, 5.0]) is None  # 5 values cannot reach 95%
    assert median_interval([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]) == (1.0, 6.0)


def test_an_index_is_known_as_ours_by_its_marker_or_an_earlier_sites_head() -> None:
    data = SiteData((_series("ci-1", "main", 3),), {}, "h.sqlite")
    assert is_site_index(render_site(data, {})["index.html"])
    earlier = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-"
               "Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\"><title>pairbench "
               "history</title>")  # published before the marker
    assert is_site_index(earlier)
    assert not is_site_index("<title>pairbench history</title><h1>my notes on pairbench</h1>")
    assert not is_site_index("<h1>my own page</h1>")
