"""Where the logs of the servers an http run starts go: one file per variant, benchmark and round.

Why keep them: a server that fails to start or dies mid-round is explained by its own output, so the
failure's message names the log to read. A benchmark's own `log_dir` holds that benchmark's logs
only; the others go to the runner's (`--log-dir` of `pairbench http`), else to a temporary directory
of the runner's own, which goes when the run ends unless a server failed. A directory the user gave
is never removed.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from pairbench.errors import UserError
from pairbench.model import Benchmark, Variant

__all__ = ["ServerLogs"]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")[:60] or "root"


class ServerLogs:
    """The log files of one runner's servers, and the temporary directory it may own."""

    def __init__(self, log_dir: str | Path | None = None) -> None:
        self._log_dir = Path(log_dir) if log_dir else None
        """The runner's directory, for the benchmarks without one of their own."""
        self._temp_dir: Path | None = None
        self.keep = False
        """A server failed: its log stays, for the message that names it."""

    def check(self, given: str | None) -> None:
        """One error before anything runs when the directory given (the benchmark's, else the
        runner's) cannot be made or written to; the first server start would fail on it."""
        directory = Path(given) if given else self._log_dir
        if directory is None:
            return
        if directory.exists() and not directory.is_dir():
            raise UserError(f"--log-dir {directory}: a file, not a directory")
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"--log-dir {directory}: {exc.strerror or exc}") from None
        if not os.access(directory, os.W_OK | os.X_OK):
            raise UserError(f"--log-dir {directory}: not writable")

    def path(self, benchmark: Benchmark, variant: Variant, block: int, given: str | None) -> str:
        """The log file of this round (`given`: the benchmark's log_dir option, for its logs alone)."""
        if given:
            directory = Path(given)
        elif self._log_dir is not None:
            directory = self._log_dir
        else:
            if self._temp_dir is None:
                self._temp_dir = Path(tempfile.mkdtemp(prefix="pairbench-http-"))
            directory = self._temp_dir
        directory.mkdir(parents=True, exist_ok=True)
        return str(directory / f"{_safe(variant.name)}-{_safe(benchmark.name)}-round{block}.log")

    def close(self) -> None:
        """Remove the temporary directory of our own, unless a server failed."""
        if self._temp_dir is not None and not self.keep:
            shutil.rmtree(self._temp_dir, ignore_errors=True)
