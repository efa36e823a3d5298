"""`--cluster local:N`: a Dask scheduler and N workers on this machine, in sessions of their own.

Why not Dask's LocalCluster: its worker processes share the terminal's process group, so a Ctrl-C
reaches them as well as pairbench; they die with tracebacks on the user's terminal before their
units can hand back what they measured, and the in-process scheduler logs there too. Here the
scheduler and each worker are `python -m distributed.cli.dask_*` processes, each in a session of
its own (a terminal's signals reach pairbench alone, which then stops the units itself), writing
their logs to a directory that is removed with them. They are stopped by process group, and get
SIGTERM from the kernel should pairbench die without stopping them (Linux).

    pairbench ── dask scheduler   (session 1, log in TMP/scheduler.log)
              ├─ dask worker 0    (session 2)  ── python -m pairbench.cluster.worker ── commands
              └─ dask worker 1    (session 3)  ── ...
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pairbench.errors import UserError

__all__ = ["LocalProcesses", "START_TIMEOUT_S", "STOP_TIMEOUT_S"]

START_TIMEOUT_S = 60.0
"""Longest wait for the scheduler to write its address (an interpreter importing Dask on a busy machine)."""
STOP_TIMEOUT_S = 10.0
"""Grace for a worker to close after SIGTERM before its process group is killed."""
_POLL_S = 0.05


class LocalProcesses:
    """A scheduler and `n` workers offering `resource`=1, started by `start` and stopped by `stop`."""

    def __init__(self, n: int, resource: str) -> None:
        self.n = n
        self.resource = resource
        self.address = ""
        self._dir: Path | None = None
        self._procs: list[subprocess.Popen[bytes]] = []

    def start(self) -> str:
        """Start the processes; returns the scheduler's address. Raises UserError if it never comes up."""
        self._dir = Path(tempfile.mkdtemp(prefix="pairbench-local-cluster-"))
        info = self._dir / "scheduler.json"
        self._spawn("scheduler", ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--no-dashboard", "--scheduler-file", str(info)])
        for i in range(self.n):
            home = self._dir / f"worker-{i}"
            home.mkdir()
            self._spawn(f"worker-{i}", ["distributed.cli.dask_worker", "--scheduler-file", str(info),
                                        "--name", str(i), "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                        "--resources", f"{self.resource}=1", "--local-directory", str(home),
                                        "--death-timeout", "30"])
        self.address = self._wait_address(info)
        return self.address

    def stop(self) -> None:
        """SIGTERM to every process group, then SIGKILL to those still there after STOP_TIMEOUT_S."""
        for proc in reversed(self._procs):  # the workers first: they close before their scheduler
            _signal_group(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT_S
        try:
            for proc in self._procs:
                while _group_alive(proc.pid) and time.monotonic() < deadline:
                    proc.poll()
                    time.sleep(_POLL_S)
        finally:  # a signal during the wait cuts it short, never leaves a process behind
            for proc in self._procs:
                _signal_group(proc.pid, signal.SIGKILL)
                proc.wait()
            self._procs.clear()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def _spawn(self, name: str, module_argv: list[str]) -> None:
        assert self._dir is not None
        with open(self._dir / f"{name}.log", "wb") as log:  # the child keeps its own descriptor
            self._procs.append(subprocess.Popen(
                [sys.executable, "-m", *module_argv], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                cwd=self._dir, start_new_session=True, preexec_fn=_die_with_parent))

    def _wait_address(self, info: Path) -> str:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._procs[0].poll() is not None:
                raise UserError(f"the local Dask scheduler exited: {self._last_log_line('scheduler')}")
            try:
                return str(json.loads(info.read_text(encoding="utf-8"))["address"])
            except (OSError, ValueError, KeyError):
                time.sleep(_POLL_S)
        raise UserError(f"the local Dask scheduler did not start within {START_TIMEOUT_S:g} s: "
                        f"{self._last_log_line('scheduler')}")

    def _last_log_line(self, name: str) -> str:
        assert self._dir is not None
        try:
            lines = (self._dir / f"{name}.log").read_text(encoding="utf-8", errors="replace").strip().splitlines()
        except OSError:
            lines = []
        return lines[-1] if lines else "no output"


def _die_with_parent() -> None:
    """Between fork and exec: the kernel sends SIGTERM when pairbench dies, even by SIGKILL (Linux)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - best effort; stop() is the rule
        pass


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
