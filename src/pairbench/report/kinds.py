"""How reports present each runner kind: the title of its section and the figures it renders
itself (ab-style HTTP tables, benchmark-ips lines), by kind name.

A report reads a finished Run, whose benchmarks name their kind; it needs nothing from the
runners, so this table is the report's own. A kind without an entry (an old run file, a kind
this pairbench does not know) gets a title made from its name and no figures of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from pairbench.model import Run

__all__ = ["KindPresentation", "PRESENTATIONS", "kind_title", "kinds_in_order", "kind_figures"]


@dataclass(frozen=True, slots=True)
class KindPresentation:
    """What reports show of one kind."""

    title: str
    """Heading of its section in reports."""
    figures: Callable[[Run], str] | None = None
    """Its own figures, printed before the comparisons (None: none)."""


def _command_figures(run: Run) -> str:
    # each kind's report module loads when a run of that kind is shown (start-up time and memory)
    from pairbench.report.command import render_command_figures

    return render_command_figures(run)


def _http_figures(run: Run) -> str:
    from pairbench.report.http import render_http_figures

    return render_http_figures(run)


def _micro_figures(run: Run) -> str:
    from pairbench.report.micro import render_micro_figures

    return render_micro_figures(run)


PRESENTATIONS: Mapping[str, KindPresentation] = {
    "command": KindPresentation("Command benchmarks", _command_figures),
    "http": KindPresentation("HTTP benchmarks", _http_figures),
    "micro": KindPresentation("Micro benchmarks", _micro_figures),
    "pytest": KindPresentation("pytest benchmarks"),
    "asv": KindPresentation("asv benchmarks"),
    "fake": KindPresentation("Fake benchmarks"),
}
"""Every kind, in the order reports list them."""


def kind_title(name: str) -> str:
    """Report heading of a kind; a kind this pairbench does not know (an old run file) gets one too."""
    shown = PRESENTATIONS.get(name)
    return shown.title if shown else f"{name.capitalize()} benchmarks"


def kinds_in_order(names: Iterable[str]) -> list[str]:
    """The kinds among `names`, in the table's order, then any unknown ones by name."""
    present = set(names)
    return [k for k in PRESENTATIONS if k in present] + sorted(present - set(PRESENTATIONS))


def kind_figures(run: Run) -> list[str]:
    """The figures each kind of `run` renders itself, in the table's order (empty ones left out)."""
    out = []
    for kind in kinds_in_order(b.kind for b in run.benchmarks):
        shown = PRESENTATIONS.get(kind)
        if shown is None or shown.figures is None:
            continue
        text = shown.figures(run)
        if text.strip():
            out.append(text.rstrip("\n"))
    return out
