"""`pairbench history publish`: a static site of the history store, like asv's, with verdicts.

Pages (all self-contained, under the same strict Content-Security-Policy as the HTML report, and
without any script, so they work from file:// and any static host):

- `index.html`: every benchmark x metric x machine x variant with its runs, latest median and
  latest change point (its size and verdict);
- `series/<n>.html`: per benchmark x metric, a trend plot per machine and variant (each run's
  median with its CI, change points marked with their size), each point linking to its run;
- `runs/<id>.html`: the HTML report of each run whose run file still exists.

The filter by machine and variant is CSS `:target`: every view is in the page and a link shows it.
"""

from __future__ import annotations

from pairbench.report.site.pages import is_site_index, render_site

__all__ = ["render_site", "is_site_index"]
