"""What a suite file says, once validated: defaults, variants as written, sweeps, the whole Suite.

Data only: the readers in validation.py build these, matrix.py multiplies variants by sweeps.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any, Mapping

from pairbench.model import Benchmark, Metric, Variant
from pairbench.runners.command import BUILTIN_METRICS

__all__ = ["Defaults", "GitSource", "VariantSpec", "Sweep", "Suite", "SWEEP_AS", "MAX_MATRIX", "MAX_RANGE",
           "DEFAULT_COMMAND_METRIC", "RESERVED_METRICS"]

SWEEP_AS: tuple[str, ...] = ("env", "arg", "placeholder")
MAX_MATRIX = 5000
"""More points than this is almost surely a mistake (and would run for days)."""
MAX_RANGE = 10000

DEFAULT_COMMAND_METRIC = Metric("time", "s", "lower", description="wall-clock time of the command")
"""What every command benchmark measures; regex metrics are added after it."""
RESERVED_METRICS: tuple[str, ...] = tuple(m.name for m in BUILTIN_METRICS)
"""Names the command runner measures by itself (its BUILTIN_METRICS): not for a suite's regex metrics."""


@dataclass(frozen=True, slots=True)
class Defaults:
    """Run settings from `[defaults]`; None means "not said here" (the CLI or built-in default wins)."""

    runs: int | None = None
    """Blocks."""
    warmup: int | None = None
    threshold: float | None = None
    """The noise band δ in percent (1.0 = ±1%)."""
    max_time: float | None = None
    """Seconds for the whole suite."""
    confidence: float | None = None
    seed: int | None = None
    profile: int | None = None
    """Profiling blocks (`profile = true` gives the default count, false 0)."""
    timeout: float | None = None
    """Per-command timeout in seconds, for benchmarks that set none."""
    metrics: Mapping[str, Metric] = field(default_factory=dict)
    """Regex metrics every command benchmark gets (a benchmark's own of the same name win)."""
    metric_regexes: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GitSource:
    """A variant built from a git ref in its own worktree."""

    repo: str
    """Path of the repository (`~` expanded, relative to the suite file's folder)."""
    ref: str
    build: str = ""
    """Shell command run once in the worktree (cached by commit and command); empty = no build."""
    timeout: float | None = None
    """Seconds the build may take before it is stopped and reported failed (None: no limit)."""


@dataclass(frozen=True, slots=True)
class VariantSpec:
    """A variant as written, before sweeps multiply it."""

    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    unset_env: tuple[str, ...] = ()
    cwd: str | None = None
    baseline: bool = False
    params: Mapping[str, str] = field(default_factory=dict)
    git: GitSource | None = None


@dataclass(frozen=True, slots=True)
class Sweep:
    """A parameter and its values; multiplies the variants it applies to."""

    name: str
    values: tuple[str, ...]
    """Values as strings, in the order written (that is the order of report rows)."""
    as_: str = "env"
    """`env` (an environment variable), `arg` (arguments after the variant's command) or
    `placeholder` (only `{name}` in commands)."""
    arg: str | Mapping[str, str] = "--{name}={value}"
    """For `as = "arg"`: a template, or a table from value to the argument(s) it means."""
    variants: tuple[str, ...] = ()
    """Base variants it applies to (all when the file names none)."""
    numeric: bool = False
    """Every value is a number: the report fits a trend over it."""

    def args_for(self, value: str) -> tuple[str, ...]:
        if isinstance(self.arg, str):
            text = self.arg.replace("{name}", self.name).replace("{value}", value)
        else:
            text = self.arg.get(value, "")
        return tuple(shlex.split(text))


@dataclass(frozen=True, slots=True)
class Suite:
    """A validated suite file with its matrix expanded."""

    path: str
    defaults: Defaults
    variants: tuple[VariantSpec, ...]
    sweeps: tuple[Sweep, ...]
    benchmarks: tuple[Benchmark, ...]
    matrix: tuple[Variant, ...]
    """Every point of the matrix as a Variant (`patched/RUBY_MAX_PACKED_HASH=9/jit=on`); exactly one
    is the baseline. Built variants still hold `{worktree}` until builds.resolve_builds fills it."""
    document: Mapping[str, Any] = field(default_factory=dict)
    """The parsed file, as written."""
    text: str = ""
    name: str = ""

    @property
    def baseline(self) -> Variant:
        return next(v for v in self.matrix if v.baseline)

    def spec(self, base: str) -> VariantSpec:
        return next(s for s in self.variants if s.name == base)
