"""The table of runner kinds: everything the rest of pairbench knows about a kind, in one place.

A kind is one descriptor in `KINDS`: its name, the metrics it yields, the parser of its options
(shared by suite files, flags and the runner), the factory of its runner and the metrics that do
not hold adaptive stopping open. A new kind is one folder `runners/<kind>/` plus one entry here
(docs/architecture.md); how reports present it (title, figures) is report's own table,
report/kinds.py. Runner modules are imported only when a runner or its metrics are asked for, so
that `pairbench --help` stays light.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Mapping

from pairbench.errors import UserError
from pairbench.model import Metric, Run
from pairbench.runners.base import Runner
from pairbench.runners.command.metric_spec import SECONDARY_METRICS
from pairbench.runners.options import FakeOptions, Where, parse_fake_options

__all__ = ["KindSpec", "KINDS", "get_kind", "kind_names", "secondary_metrics", "make_runners"]


@dataclass(frozen=True, slots=True)
class KindSpec:
    """One runner kind."""

    name: str
    """The `kind` of a benchmark (`command`, `http`...)."""
    metrics: Callable[[Any, tuple[Metric, ...]], tuple[Metric, ...]]
    """(typed options, declared metrics) -> the metrics a benchmark yields, primary first."""
    parse_options: Callable[[Mapping[str, Any], Where], Any]
    """(mapping, where) -> frozen typed options; raises the error `where` builds."""
    make: Callable[[int | None, Any], Runner]
    """(seed, typed options or None for the defaults) -> a runner for every benchmark of the kind."""
    secondary_metrics: frozenset[str] = field(default_factory=frozenset)
    """Built-in metrics recorded and compared that do not hold adaptive stopping open."""


class _Later:
    """`name` of the kind module `load` imports (its parser, metrics and runner factory), imported at
    its first call: a command run never loads the http, micro or pytest kinds' modules (start-up
    time and memory, docs/measurement.md).
    `__wrapped__` is the function itself (inspect.unwrap), for what reads its annotations."""

    def __init__(self, load: Callable[[], ModuleType], name: str) -> None:
        self._load, self.__name__ = load, name

    @property
    def __wrapped__(self) -> Callable[..., Any]:
        function: Callable[..., Any] = getattr(self._load(), self.__name__)
        return function

    def __call__(self, *args: Any) -> Any:
        return self.__wrapped__(*args)


def _command() -> ModuleType:
    from pairbench.runners.command import kind

    return kind


def _http() -> ModuleType:
    from pairbench.runners.http import kind

    return kind


def _micro() -> ModuleType:
    from pairbench.runners.micro import kind

    return kind


def _pytest() -> ModuleType:
    from pairbench.runners.pytest import kind

    return kind


# --- fake ------------------------------------------------------------------------------------------


_FAKE_METRICS = (Metric("time", "s", "lower", description="scripted time (no process runs)"),)


def _fake_metrics(options: FakeOptions, declared: tuple[Metric, ...]) -> tuple[Metric, ...]:
    return declared or _FAKE_METRICS


def _make_fake(seed: int | None, options: FakeOptions | None) -> Runner:
    from pairbench.runners.fake import FakeRunner

    o = options or FakeOptions()
    return FakeRunner(positional=o.factors, base=o.base, noise=o.noise, seed=seed or 0)


KINDS: Mapping[str, KindSpec] = {
    spec.name: spec
    for spec in (
        KindSpec("command", _Later(_command, "command_metrics"), _Later(_command, "parse_command_options"),
                 _Later(_command, "make_command"), SECONDARY_METRICS),
        KindSpec("http", _Later(_http, "http_kind_metrics"), _Later(_http, "parse_http_options"),
                 _Later(_http, "make_http")),
        KindSpec("micro", _Later(_micro, "micro_kind_metrics"), _Later(_micro, "parse_micro_options"),
                 _Later(_micro, "make_micro")),
        KindSpec("pytest", _Later(_pytest, "pytest_kind_metrics"), _Later(_pytest, "parse_pytest_options"),
                 _Later(_pytest, "make_pytest")),
        KindSpec("asv", _Later(_pytest, "pytest_kind_metrics"), _Later(_pytest, "parse_pytest_options"),
                 _Later(_pytest, "make_asv")),
        KindSpec("fake", _fake_metrics, parse_fake_options, _make_fake),
    )
}
"""Every kind (reports list them in the order of report/kinds.py)."""


def kind_names() -> tuple[str, ...]:
    return tuple(KINDS)


def get_kind(name: str) -> KindSpec:
    """The descriptor of kind `name`; an unknown name is a UserError listing the valid ones."""
    spec = KINDS.get(name)
    if spec is None:
        close = difflib.get_close_matches(name, list(KINDS), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UserError(f"unknown kind {name!r}{hint}; valid: {', '.join(KINDS)}")
    return spec


def secondary_metrics(name: str) -> frozenset[str]:
    """The kind's metrics that do not hold adaptive stopping open (none for an unknown kind)."""
    spec = KINDS.get(name)
    return spec.secondary_metrics if spec else frozenset()


def make_runners(run: Run, seed: int | None, kind_options: Mapping[str, Any] | None = None,
                 fake: FakeOptions | None = None) -> dict[str, Runner]:
    """A runner for every kind in `run`, made by its kind with the run's seed.

    Args:
        kind_options: typed options per kind for the runner itself (a subcommand's flags); a kind
            without any gets its defaults.
        fake: measure every kind with the fake runner (`--debug-fake`): no process runs.
    """
    given = kind_options or {}
    runners: dict[str, Runner] = {}
    for kind in dict.fromkeys(b.kind for b in run.benchmarks):
        spec = get_kind(kind)
        runners[kind] = get_kind("fake").make(seed, fake) if fake is not None else spec.make(seed, given.get(kind))
    return runners
