"""The data model: what is compared, what was measured, what was concluded.

Data only, no I/O. Every layer (suite, plan, runners, stats, reports, stores) speaks in these
types. Values are stored in SI units (seconds, bytes, operations per second); units are converted
only when formatting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Mapping

if TYPE_CHECKING:  # the derived tables a Run carries live beside the model (summaries.py)
    from pairbench.summaries import ProfileDifference, SuiteSummary, SweepTable

__all__ = [
    "Direction",
    "Kind",
    "Verdict",
    "Metric",
    "Variant",
    "Benchmark",
    "WorkUnit",
    "Sample",
    "SteadyState",
    "ProcessSeries",
    "Comparison",
    "Spread",
    "Notice",
    "Profile",
    "Run",
    "SeriesPoint",
    "VERDICTS",
]

Direction = Literal["lower", "higher", "none"]
"""Which way is better: "lower" for times and memory, "higher" for throughput, "none" for
metrics that are recorded but never judged (an exit code)."""

Kind = str
"""The name of a runner kind. The kinds are a table in runners/kinds.py, which the model does not
import: a benchmark's kind is checked where benchmarks are built (suite, subcommands, session)."""

Verdict = Literal["faster", "slower", "same", "inconclusive", "exact", "insufficient"]
VERDICTS: tuple[str, ...] = ("faster", "slower", "same", "inconclusive", "exact", "insufficient")
"""`exact` is only read from run files before version 3; exact comparisons are judged faster, slower
or same since (with `Comparison.exact` set)."""


@dataclass(frozen=True, slots=True)
class Metric:
    """A named measured quantity."""

    name: str
    """Short identifier used in samples, tables and the run file (`time`, `rss`, `req_per_s`)."""
    unit: str = "s"
    """SI unit of the stored values: `s`, `B`, `op/s`, `req/s`, `count`, or `""` for a plain number."""
    direction: Direction = "lower"
    """Which way is better; decides whether a ratio below 1 reads as faster or slower."""
    exact: bool = False
    """Exact counts (allocations, instructions): shown as deltas, never tested statistically."""
    description: str = ""
    """One line for reports."""

    def __post_init__(self) -> None:
        if not self.name or any(c.isspace() for c in self.name):
            raise ValueError(f"metric name {self.name!r} must be non-empty without spaces")
        if self.direction not in ("lower", "higher", "none"):
            raise ValueError(f"metric {self.name!r}: direction {self.direction!r} is not lower/higher/none")


@dataclass(frozen=True, slots=True)
class Variant:
    """One way to run the system under test."""

    name: str
    """Unique name shown in reports (`head`, `patched/RUBY_MAX_PACKED_HASH=9`)."""
    command: str = ""
    """Command prefix or full command line; `{variant}` in a benchmark stands for it."""
    args: tuple[str, ...] = ()
    """Extra arguments appended after the benchmark's own command."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Environment variables added to the inherited environment."""
    unset_env: tuple[str, ...] = ()
    """Environment variables removed from the inherited environment."""
    cwd: str | None = None
    """Working directory, or None for pairbench's own."""
    baseline: bool = False
    """True for the variant every other one is compared with."""
    params: Mapping[str, str] = field(default_factory=dict)
    """Sweep parameters and their values for this point of the matrix; also `{name}` substitutions."""
    meta: Mapping[str, Any] = field(default_factory=dict)
    """Free-form facts recorded in the run file (git commit, build log path, resolved executable; a
    command's own `prepare`/`conclude` hook when `cmd -p` is given once per command)."""

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a variant needs a non-empty name")


@dataclass(frozen=True, slots=True)
class Benchmark:
    """One workload, of one kind, with the metrics it yields."""

    name: str
    """Unique name within a run."""
    kind: Kind
    """Which runner measures it (`command`, `http`, `micro`...: runners/kinds.py)."""
    metrics: tuple[Metric, ...]
    """Metrics this benchmark yields; the first is the primary one."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """Kind-specific settings (command template, URLs, snippet...), JSON-serialisable."""

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a benchmark needs a non-empty name")
        if not self.kind:
            raise ValueError(f"benchmark {self.name!r} needs a kind")

    def metric(self, name: str) -> Metric:
        """The metric called `name` (KeyError if the benchmark has none)."""
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(name)


@dataclass(frozen=True, slots=True)
class Sample:
    """One measured value of one metric."""

    benchmark: str
    variant: str
    metric: str
    value: float
    """In the metric's SI unit."""
    block: int
    """Index of the randomized block (round) it was measured in; pairs are formed within a block."""
    replicate: int = 0
    """Independent process/server start within the block (0 when there is one per block)."""
    iteration: int = 0
    """Sample number within the replicate's process (micro: several samples per process)."""
    warmup: bool = False
    """Warm-up samples are stored but never used in estimates."""
    time: float = 0.0
    """Unix time when it was measured."""
    machine: str = ""
    """Host that measured it (runs merged from several machines keep their origin)."""


@dataclass(frozen=True, slots=True)
class SteadyState:
    """How one process's in-process series settled (Barrett et al. 2017's categories)."""

    benchmark: str
    variant: str
    block: int
    replicate: int
    classification: str
    """flat, warmup, slowdown or no steady state (stats/steady_state.py)."""
    warmup_iterations: int | None
    """Samples before the steady state (warm-up samples included); None without one. Samples before
    it are left out of the process's value."""
    iterations: int
    """Values in the series classified: samples, or batches when the process timed them (ProcessSeries)."""
    metrics: tuple[str, ...] = ()
    """The metrics sampled per iteration, to which the cut applies (a once-per-process count is kept)."""
    per_sample: int = 1
    """Values of the series per sample (its batches); a steady state starting inside a sample cuts all of it."""


@dataclass(frozen=True, slots=True)
class ProcessSeries:
    """One process's times at a finer grain than its samples: each sample's loop timed in equal
    batches, oldest first, warm-up samples included. A default micro process takes 4-9 samples, too
    few to find a JIT's warm-up in; its batches are enough (analysis/steady_state.py)."""

    benchmark: str
    variant: str
    block: int
    replicate: int
    metric: str
    """The metric the batches are values of (time_per_op), in its unit."""
    per_sample: int
    """Batches per sample."""
    values: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class Comparison:
    """A candidate against the baseline, for one benchmark and metric."""

    benchmark: str
    metric: str
    baseline: str
    candidate: str
    ratio: float | None
    """Candidate ÷ baseline of the metric in its own unit."""
    ci: tuple[float, float] | None
    """Confidence interval of `ratio` at `confidence`."""
    p_value: float | None
    n: int
    """Paired blocks (or replicates per side when unpaired) used."""
    significant: bool
    """The CI excludes 1."""
    meaningful: bool
    """The whole CI lies beyond ±threshold."""
    verdict: Verdict
    """Judged in the metric's direction: lower time or higher throughput is `faster`."""
    more_runs: int | None
    """Estimated extra blocks to settle an inconclusive result, or None."""
    threshold: float = 0.01
    """The noise band δ as a fraction (0.01 = ±1%)."""
    confidence: float = 0.95
    method: str = ""
    """How the estimate and CI were made (`paired mean t`, `paired Hodges-Lehmann`, `unpaired Welch`...)."""
    paired: bool = True
    mde: float | None = None
    """Minimum detectable change (fraction) at 80% power for the current n."""
    sentence: str = ""
    """The verdict in words as a version 1 run file froze it; empty since. Reports word every
    sentence from the numbers when drawn (report.wording.verdict_sentence)."""
    notes: tuple[str, ...] = ()
    """Diagnostics that change the wording (outliers, drift, non-normal differences)."""
    adjusted_ci: tuple[float, float] | None = None
    """CI corrected for multiplicity across the suite, when several comparisons are made."""
    delta: float | None = None
    """For exact metrics: candidate minus baseline in the metric's unit."""
    adjusted_p: float | None = None
    """The p-value corrected for multiplicity (Holm or Benjamini-Hochberg), beside `adjusted_ci`: the
    verdict is significant exactly when it is at most 1 - `confidence`."""
    adjusted_confidence: float | None = None
    """Level of `adjusted_ci` (Holm's step level, or the Benjamini-Yekutieli level)."""
    achieved_confidence: float | None = None
    """Coverage actually achieved by the CI the verdict rests on (rank CIs are discrete); never
    below the level asked."""
    exact: bool = False
    """An exact metric's comparison (a count that does not vary between identical runs): no test and
    no CI; the verdict is the change itself against ±threshold (`stats.verdict.judge_exact`)."""
    baseline_value: float | None = None
    """The baseline's figure shown beside the ratio, in the metric's unit: its geometric mean over
    the compared blocks (the arithmetic mean when a value is <= 0; the median of an exact count)."""
    candidate_value: float | None = None
    """The candidate's figure: `baseline_value` times `ratio`, so that the two figures and the ratio
    agree (the candidate's own location when there is no ratio). None only in comparisons made
    outside the analysis."""
    reached_ci: tuple[float, float] | None = None
    """Too few blocks for a verdict (`insufficient`): the interval of `ratio` at the highest level
    those blocks reach (a rank CI: 75% with 3 blocks), at most `confidence`; reports give it and
    that level instead of an interval labelled with a level it does not reach. None otherwise."""
    reached_confidence: float | None = None
    """The level of `reached_ci`."""

    @property
    def verdict_ci(self) -> tuple[float, float] | None:
        """The CI the verdict rests on: the adjusted one when there is one (every format shows it)."""
        return self.adjusted_ci if self.adjusted_ci is not None else self.ci


@dataclass(frozen=True, slots=True)
class Spread:
    """Median and quartiles of one variant's per-block values of one metric (`n` blocks)."""

    benchmark: str
    metric: str
    variant: str
    n: int
    median: float
    """The figure every table shows for a variant."""
    q1: float
    q3: float
    minimum: float
    maximum: float


@dataclass(frozen=True, slots=True)
class Notice:
    """A warning that changes how results should be read (noise, machine state, failures)."""

    kind: str
    message: str
    hint: str = ""
    benchmark: str = ""
    variant: str = ""


@dataclass(frozen=True, slots=True)
class Profile:
    """One profiled run of a variant (`--profile`): its folded call stacks, from a profiling block.

    Profiling blocks run apart from the timed blocks, so a profile never adds a timed sample.
    """

    benchmark: str
    variant: str
    block: int
    """Index of the profiling block (its own count, not a timed block's)."""
    sampler: str
    """What recorded it: py-spy, perf, callgrind or fake."""
    unit: str
    """What a stack's weight counts: samples (py-spy, perf) or instructions (callgrind)."""
    stacks: tuple[tuple[str, float], ...]
    """Folded stacks, root first, frames joined by ';', with their weights (flamegraph.pl's input)."""
    seconds: float = 0.0
    """Wall time of the profiled run (under the sampler: slower than a timed run)."""


@dataclass(slots=True)
class Run:
    """One invocation of pairbench: what was asked, where, and everything measured.

    Mutable because it grows while the run goes on (samples are appended as they arrive).
    """

    metadata: dict[str, Any]
    variants: list[Variant]
    benchmarks: list[Benchmark]
    samples: list[Sample] = field(default_factory=list)
    comparisons: list[Comparison] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    status: str = "running"
    """`running`, `complete`, `interrupted` or `failed`."""
    suite: dict[str, Any] | None = None
    """The suite as written, when one was given."""
    sweeps: list[SweepTable] = field(default_factory=list)
    """Sweep tables the analysis made from `comparisons` (empty without sweeps)."""
    summaries: list[SuiteSummary] = field(default_factory=list)
    """Suite summaries the analysis made, one per candidate (empty with fewer than 2 benchmarks)."""
    steady_states: list[SteadyState] = field(default_factory=list)
    series: list[ProcessSeries] = field(default_factory=list)
    """Per-batch series of the processes that timed batches (micro), classified into steady_states."""
    """One per process with enough in-process samples to classify (micro), made by the analysis."""
    profiles: list[Profile] = field(default_factory=list)
    """The profiling blocks' folded stacks (`--profile`; empty without it)."""
    profile_differences: list[ProfileDifference] = field(default_factory=list)
    """Where each candidate differs, per profiled benchmark, made by the analysis from `profiles`."""

    @property
    def baseline(self) -> Variant:
        for v in self.variants:
            if v.baseline:
                return v
        return self.variants[0]

    def benchmark(self, name: str) -> Benchmark:
        for b in self.benchmarks:
            if b.name == name:
                return b
        raise KeyError(name)


@dataclass(frozen=True, slots=True)
class SeriesPoint:
    """One recorded run's measured values of one benchmark, metric and variant: a point of a trend.

    What the history store returns and the history analysis reads (the store's rows as data).
    """

    run_id: int
    recorded_at: float
    git_commit: str
    """The checkout the run was started from ("" when unknown)."""
    variant_commit: str
    """The variant's own commit when it was built from git, else ""."""
    variant: str
    values: tuple[float, ...]

    @property
    def median(self) -> float:
        import statistics

        return statistics.median(self.values)


@dataclass(frozen=True, slots=True)
class WorkUnit:
    """What one machine measures in one go: one benchmark under all its variants, interleaved.

    Never a variant on one machine and another variant elsewhere: machines differ more than
    patches do, so every comparison is made inside one unit.
    """

    index: int
    """Position in the suite, for ordering the merged results as the suite lists them."""
    benchmark: Benchmark
    variants: tuple[Variant, ...]
    seed: int
    """Seed of this unit's random order (the run's seed plus `index`)."""
    suite: dict[str, Any] | None = None
