"""The run settings, in one table: each one's typed field, flag and suite key.

`RunOptions` (session.py) has one field per row. The shared flags of the measuring commands
(commands/common.py `add_run_options`) give a row with a flag that flag, read back into the field
by `options_from_args`. A row with `in_suite` is also a key of a suite file's `[defaults]`
(suite/validation.py reads it into suite/schema.py `Defaults`; suite/jsonschema.py types it for
editors; docs/suite.md describes it), which the flags override (flows/builders/suite.py
`suite_defaults` reads the keys from here). tests/unit/test_word_lists.py fails when one of these
places drifts from the table.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RunSetting", "RUN_SETTINGS", "SUITE_SETTINGS", "DEFAULT_BOUND_S", "DEFAULT_PROFILE_BLOCKS"]

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
