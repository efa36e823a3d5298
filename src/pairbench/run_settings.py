"""The run settings, in one table: each one's typed field, flag and suite key.

`RunOptions` (below; the session takes it) has one field per row. The shared flags of the
measuring commands (commands/common.py `add_run_options`) give a row with a flag that flag, read back into the field
by `options_from_args`. A row with `in_suite` is also a key of a suite file's `[defaults]`
(suite/validation.py reads it into suite/schema.py `Defaults`; suite/jsonschema.py types it for
editors; docs/suite.md describes it), which the flags override (flows/builders/suite.py
`suite_defaults` reads the keys from here). tests/unit/test_word_lists.py fails when one of these
places drifts from the table.
"""

from __future__ import annotations

from dataclasses import dataclass

from pairbench.errors import UserError

__all__ = ["RunOptions", "RunSetting", "RUN_SETTINGS", "SUITE_SETTINGS", "DEFAULT_BOUND_S", "DEFAULT_PROFILE_BLOCKS"]

DEFAULT_BOUND_S = 60.0
"""With none of -r, --max-time, -M: blocks are added until every primary comparison is settled,
for at most this many seconds (the -r minimum is always measured). docs/statistics.md has the
times measured on a busy 2-core machine to settle 2%, 5% and 20% differences that chose it."""

DEFAULT_PROFILE_BLOCKS = 3
"""Profiling blocks with `--profile`: three pairs give each frame's difference a t interval (2
degrees of freedom), for three runs of each variant under the sampler."""


@dataclass(frozen=True, slots=True)
class RunSetting:
    """One run setting, as each place spells it."""

    name: str
    """The `RunOptions` field, and the `[defaults]` key when the suite file has one."""
    flag: str | None
    """The long flag on every measuring command (None: set by code, such as `calibrate`'s)."""
    in_suite: bool = False
    """Also a key of a suite file's `[defaults]` (a flag given on the command line wins)."""


RUN_SETTINGS: tuple[RunSetting, ...] = (
    RunSetting("runs", "--runs", in_suite=True),
    RunSetting("warmup", "--warmup", in_suite=True),
    RunSetting("max_time", "--max-time", in_suite=True),
    RunSetting("max_runs", "--max-runs"),
    RunSetting("threshold", "--threshold", in_suite=True),
    RunSetting("confidence", "--confidence", in_suite=True),
    RunSetting("export_json", "--export-json"),
    RunSetting("fail_on_regression", "--fail-on-regression"),
    RunSetting("seed", "--seed", in_suite=True),
    RunSetting("correction", "--correction"),
    RunSetting("history", "--history"),
    RunSetting("record_history", "--no-history"),  # the flag turns it off
    RunSetting("stop_early", None),
    RunSetting("default_bound", None),  # set when none of -r, --max-time, -M is given
    RunSetting("min_time", None),  # `cmd --min-benchmarking-time` (hyperfine's), not a shared flag
    RunSetting("profile", "--profile", in_suite=True),  # the suite's `profile = true | N` (blocks)
)
"""Every run setting, in the order of RunOptions' fields."""

SUITE_SETTINGS: tuple[str, ...] = tuple(s.name for s in RUN_SETTINGS if s.in_suite)
"""The run settings a suite file's `[defaults]` may give."""


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How much to measure and how to judge it (the flags shared by every kind)."""

    runs: int = 10
    """Blocks to measure (the minimum when --max-time enables adaptive stopping)."""
    warmup: int = 1
    """Warm-up replicates per variant and benchmark, measured first and discarded."""
    max_time: float | None = None
    """Seconds for the whole run; enables adaptive stopping inside that budget."""
    max_runs: int | None = None
    """Upper bound on blocks with adaptive stopping."""
    threshold: float = 1.0
    """The noise band δ in percent."""
    confidence: float = 0.95
    export_json: str | None = None
    """Run file path; by default one is written under the user's data directory."""
    fail_on_regression: bool = False
    seed: int | None = None
    """Seed of the random order (and env offsets); recorded in the run file."""
    correction: str = "holm"
    """Multiplicity correction across comparisons: holm, bh or none."""
    history: str | None = None
    """History store location (path or URL); None for the default."""
    record_history: bool = True
    stop_early: bool = True
    """With --max-time, stop once every comparison is settled; False spends the whole budget
    (`calibrate`: an A/A run that stopped at "no difference" would measure too little noise)."""
    default_bound: float | None = None
    """Adaptive stopping by default (no -r, --max-time or -M given): blocks after the -r minimum are
    added until every primary comparison is settled, for at most these seconds; unlike --max-time
    it never refuses the minimum. None: without --max-time or -M, -r is a fixed count."""
    min_time: float | None = None
    """Seconds each variant is measured at least (hyperfine's --min-benchmarking-time): after the
    first block, the -r minimum is raised to the blocks that take (within -M and --max-time), as if given with -r."""
    profile: int = 0
    """Profiling blocks (`--profile`): one after each of the first timed blocks, never timed (0: none)."""

    def __post_init__(self) -> None:
        if self.runs < 1:
            raise UserError(f"--runs must be at least 1 (got {self.runs})")
        if self.warmup < 0:
            raise UserError(f"--warmup must be 0 or more (got {self.warmup})")
        if self.max_time is not None and self.max_time <= 0:
            raise UserError(f"--max-time must be positive seconds (got {self.max_time:g})")
        if self.max_runs is not None and self.max_runs < self.runs:
            raise UserError(f"--max-runs ({self.max_runs}) must be at least --runs ({self.runs})")
        if not 0 <= self.threshold < 100:
            raise UserError(f"--threshold is a percentage in [0, 100) (got {self.threshold:g})")
        if not 0.5 <= self.confidence < 1:
            raise UserError(f"--confidence must be in [0.5, 1) (got {self.confidence:g})")
        if self.default_bound is not None and self.default_bound <= 0:
            raise UserError(f"the default bound must be positive seconds (got {self.default_bound:g})")
        if self.profile < 0:
            raise UserError(f"--profile must be 0 or more profiling blocks (got {self.profile})")
        if self.correction not in ("holm", "bh", "none"):
            raise UserError(f"--correction {self.correction!r}: valid choices are holm, bh, none")
