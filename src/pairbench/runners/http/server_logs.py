"""Where the logs of the servers an http run starts go: one file per variant, benchmark and round.

Why keep them: a server that fails to start or dies mid-round is explained by its own output, so the
failure's message names the log to read. A temporary directory of the runner's own goes when the run
ends, unless a server failed; a directory the user gave is never removed.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from pairbench.model import Benchmark, Variant

__all__ = ["ServerLogs"]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")[:60] or "root"


class ServerLogs:
    """The log files of one runner's servers, and the temporary directory it may own."""

    def __init__(self, log_dir: str | Path | None = None) -> None:
        self._log_dir = Path(log_dir) if log_dir else None
        self._own_log_dir = False
        self.keep = False
        """A server failed: its log stays, for the message that names it."""

    def path(self, benchmark: Benchmark, variant: Variant, block: int, given: str | None) -> str:
        """The log file of this round (`given`: the benchmark's log_dir option)."""
        if self._log_dir is None:
            self._own_log_dir = not given
            self._log_dir = Path(given or tempfile.mkdtemp(prefix="pairbench-http-"))
        self._log_dir.mkdir(parents=True, exist_ok=True)
        return str(self._log_dir / f"{_safe(variant.name)}-{_safe(benchmark.name)}-round{block}.log")

    def close(self) -> None:
        """Remove the temporary directory of our own, unless a server failed."""
        if self._own_log_dir and self._log_dir is not None and not self.keep:
            shutil.rmtree(self._log_dir, ignore_errors=True)
