"""Errors a user can fix, shown as one line by `cli.main` (never a traceback).

    UserError                 bad input: flags, files, executables, ports
    ├── SuiteError            a malformed suite file or option (names the file, line and valid choices)
    ├── BenchmarkFailed       a measured command, server or snippet failed; samples so far are kept
    ├── RunFileError          a run file that cannot be read (missing, damaged)
    │   ├── NotARunFile       not JSON, or JSON of something else (no "schema": "pairbench.run")
    │   ├── TruncatedRunFile  ends before its document does; store.salvage reads what it holds
    │   └── NewerRunFile      written by a newer pairbench (a higher run file version)
    ├── HistoryError          the history store is locked, corrupt, newer or unreachable
    ├── BudgetTooSmall        --max-time cannot fit the minimum blocks (-r)
    └── Interrupted           Ctrl-C; what was measured is kept (exit code 130, not 1)

Code branches on these classes, never on message text. Any other exception is a bug and keeps its
traceback.
"""

from __future__ import annotations

__all__ = ["UserError", "SuiteError", "BenchmarkFailed", "RunFileError", "NotARunFile", "TruncatedRunFile",
           "NewerRunFile", "HistoryError", "BudgetTooSmall", "Interrupted"]


class UserError(Exception):
    """Something the user can fix; the message names the input and the fix."""


class SuiteError(UserError):
    """A suite file or its flags are invalid; raised before anything runs."""


class BenchmarkFailed(UserError):
    """A benchmark could not be measured (non-zero exit, timeout, missing metric, dead server)."""


class RunFileError(UserError):
    """A run file cannot be read."""


class NotARunFile(RunFileError):
    """The file holds something else; readers of other formats (pyperf, hyperfine) may take it."""


class TruncatedRunFile(RunFileError):
    """The document stops short (a cut copy, a full disk); its complete records can be salvaged."""


class NewerRunFile(RunFileError):
    """The file's version is newer than this pairbench reads; the fix is to upgrade."""


class HistoryError(UserError):
    """The history store cannot be used: locked, corrupt, newer, unreachable. Nothing was changed."""


class BudgetTooSmall(UserError):
    """The time budget cannot fit the minimum blocks; bisect then measures a step's minimum unbudgeted."""


class Interrupted(UserError):
    """The user pressed Ctrl-C; what was measured is kept. `cli.main` catches it before UserError."""
