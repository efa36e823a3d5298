"""A profiled load of an HTTP benchmark's server (`--profile`): a fresh server, the sampler attached
to its processes for one measured load (no warm-up, figures not kept), then stopped.

The server's process is what is profiled, never the load generator: py-spy (`--pid`, following
its workers) when the server command runs CPython, else `perf record -p` on the server's process
group. Callgrind cannot attach to a running process, and a running target (`--url` without a server
command) is not pairbench's to profile: each is said once.
"""

from __future__ import annotations

import os
import signal
import subprocess
from typing import TYPE_CHECKING, Any

from pairbench.model import Benchmark, Notice, Profile, Variant
from pairbench.runners.base import Profiled
from pairbench.runners.samplers import SamplerMissing, choose_sampler

if TYPE_CHECKING:
    from pairbench.runners.http.runner import HttpRunner

__all__ = ["HttpProfiler"]

STOP_TIMEOUT_S = 60.0
"""How long a sampler may take to write its stacks once interrupted."""


class HttpProfiler:
    """The sampler of each HTTP benchmark, chosen from its server's executable on first use."""

    def __init__(self) -> None:
        self._samplers: dict[str, Any] = {}

    def profile(self, runner: HttpRunner, benchmark: Benchmark, variant: Variant, block: int,
                command: str, options: Any, load: Any) -> Profiled:
        """Start the server, sample it during `load(base_url)`, stop both; `command` is its command line."""
        from pairbench.runners.http.server import group_processes

        if not command:
            return Profiled(notice=Notice("profile", "--profile: the target is not started by pairbench, so its "
                                          "process is not profiled", "give the server's command", benchmark.name),
                            stop=True)
        chosen = self._samplers.get(benchmark.name)
        first = chosen is None
        if chosen is None:
            words = [w for w in command.split() if "=" not in w or w.startswith("-")]
            chosen = self._samplers[benchmark.name] = choose_sampler(words[:1], attaching=True)
        if isinstance(chosen, SamplerMissing) or not hasattr(chosen, "attach"):
            why = chosen.reason if isinstance(chosen, SamplerMissing) else "callgrind cannot attach to a running server"
            hint = chosen.hint if isinstance(chosen, SamplerMissing) else "install linux-perf (perf record -p)"
            return Profiled(notice=Notice("profile", f"no profile: {why}", hint, benchmark.name), stop=True)
        started = runner._start(benchmark, variant, block, command, options)
        if not hasattr(started, "proc"):
            return Profiled(notice=Notice("profile", f"no profile: the server of {variant.name!r} did not start",
                                          "", benchmark.name), stop=True)
        server = started
        sampler_proc: subprocess.Popen[bytes] | None = None
        err = ""
        try:
            pids = group_processes(server.proc.pid) or [server.proc.pid]
            sampler_proc = subprocess.Popen(chosen.attach(pids), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.PIPE, start_new_session=True)
            load(server.base_url)
        finally:
            if sampler_proc is not None:
                err = _stop(sampler_proc)
            server.stop()
            if server in runner._servers:
                runner._servers.remove(server)
        try:
            stacks = chosen.read()
        except (OSError, ValueError) as exc:
            tail = " ".join(err.split("Stack backtrace")[0].split())[-300:]
            return Profiled(notice=Notice("profile", f"no profile: {chosen.name} on the server of {variant.name!r}: "
                                          f"{tail or exc}", "", benchmark.name), stop=True)
        note = getattr(chosen, "note", "") if first else ""
        return Profiled(profile=Profile(benchmark.name, variant.name, block, chosen.name, chosen.unit,
                                        tuple(sorted(stacks.items()))),
                        notice=Notice("profile", note, "", benchmark.name) if note else None)

    def close(self) -> None:
        samplers, self._samplers = self._samplers, {}
        for s in samplers.values():
            if not isinstance(s, SamplerMissing):
                s.close()


def _stop(proc: subprocess.Popen[bytes]) -> str:
    """Interrupt a sampler (it writes its stacks on SIGINT) and wait; its stderr."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
    return (err or b"").decode("utf-8", "replace")
