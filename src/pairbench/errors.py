"""Errors a user can fix, shown as one line by `cli.main` (never a traceback).

    UserError                 bad input: flags, files, executables, ports
    ├── SuiteError            a malformed suite file (names the file, line and valid choices)
    ├── BenchmarkFailed       a measured command, server or snippet failed; samples so far are kept
    └── RunFileError          a file that is not a run file, or of a newer schema version

Any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

__all__ = ["UserError", "SuiteError", "BenchmarkFailed", "RunFileError", "Interrupted"]


class UserError(Exception):
    """Something the user can fix; the message names the input and the fix."""


class SuiteError(UserError):
    """A suite file or its flags are invalid; raised before anything runs."""


class BenchmarkFailed(UserError):
    """A benchmark could not be measured (non-zero exit, timeout, missing metric, dead server)."""


class RunFileError(UserError):
    """A run file cannot be read."""


class Interrupted(Exception):
    """The user pressed Ctrl-C; what was measured is kept."""
