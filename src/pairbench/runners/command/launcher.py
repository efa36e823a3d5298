"""The lasting process that starts every measured command of a runner, and how to talk to it.

Why a lasting process: a command forked straight from pairbench (numpy, rich: ~40 MiB) would
report pairbench's size as its own peak RSS (rss.py says why), so commands are started by a
small process that lives for the whole call. Two kinds, one interface:

- the C exec helper (`exec_helper.c`, built by rss.py), serving requests: a run costs one fork
  and one exec, as in hyperfine, and the command's rusage is its own;
- without a C compiler, the Python spawner (`spawner.py`, ~8 MiB, whose size every reading
  includes), with JSON lines.

Before, the Python spawner started the C helper afresh for every run, which started the command:
two execs a run, 1.4 ms for each run of /bin/true where hyperfine takes 0.65 ms.

    runner --request--> launcher --fork, exec--> command
           <--reply---           <--wait4 (wall time, rusage)

A request is a dict: argv, env (shared between runs: encoded once), extra_env (this run's own
variables, after env's), cwd, timeout, stdin (a path or None), stdout (a path, or None to
discard it), stderr (a path), pipe (drain stdout through a pipe), inherit (pairbench's own stdout
and stderr, as descriptors the launcher was given). A reply: wall, utime, stime (s), maxrss_kib,
exit_code, timed_out, faults and switches (rusage's page faults and context switches, for
`--measure counters`); None when the launcher died.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from pairbench.runners.command.invocation import kill_group
from pairbench.runners.command.spawner import resolve_program

__all__ = ["Launcher", "start_launcher"]


class Launcher:
    """One launcher process; `run` sends a request and waits for its reply."""

    def __init__(self, argv: list[str], inherit: tuple[int, ...], helper: bool) -> None:
        self._helper = helper
        self._encoded: dict[int, tuple[dict[str, str], bytes]] = {}
        """id(env) -> (env, its fields encoded): the same environment object is encoded once."""
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        start_new_session=True, pass_fds=inherit)

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def run(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The command's figures, or None when the launcher died before it replied."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        if self._helper:
            stdin.write(_encode(request, self._env_fields(request["env"])))
        else:
            env = {**request["env"], **(request.get("extra_env") or {})}
            stdin.write(json.dumps({**request, "env": env, "extra_env": None}).encode() + b"\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            return None
        if not self._helper:
            reply: dict[str, Any] = json.loads(line)
            reply["exit_code"] = reply.pop("status")
            return reply
        status, maxrss, utime_us, stime_us, wall_ns, timed_out, faults, switches = (int(x) for x in line.split())
        return {"wall": wall_ns / 1e9, "utime": utime_us / 1e6, "stime": stime_us / 1e6, "maxrss_kib": maxrss,
                "exit_code": os.waitstatus_to_exitcode(status), "timed_out": bool(timed_out), "faults": faults,
                "switches": switches}

    def _env_fields(self, env: dict[str, str]) -> bytes:
        known = self._encoded.get(id(env))
        if known is None or known[0] is not env:
            if len(self._encoded) >= 64:  # environments made per run (a counter's) are not kept
                self._encoded.clear()
            known = self._encoded[id(env)] = (env, b"".join(os.fsencode(f"{k}={v}") + b"\0" for k, v in env.items()))
        return known[1]

    def stop(self) -> None:
        """Ends the launcher (it kills a running command's group first), and closes its pipes."""
        proc = self.process
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                kill_group(proc)
                proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream:
                try:
                    stream.close()
                except OSError:  # a request left unsent in the buffer of a dead launcher
                    pass


def start_launcher(helper: str | None, inherit: tuple[int, ...]) -> Launcher:
    """The C helper serving requests when it is built, else the Python spawner."""
    if helper is not None:
        return Launcher([helper], inherit, helper=True)
    script = os.path.join(os.path.dirname(__file__), "spawner.py")
    return Launcher([sys.executable, "-S", "-E", script], inherit, helper=False)


def _encode(request: dict[str, Any], env_fields: bytes) -> bytes:
    """The request as exec_helper.c reads it: NUL-terminated fields (see its header), the shared
    environment's fields given encoded."""
    env: dict[str, str] = request["env"]
    extra: dict[str, str] = request.get("extra_env") or {}
    argv: list[str] = request["argv"]
    inherit = request.get("inherit") or ("", "")
    mode = "inherit" if request.get("inherit") else "pipe" if request.get("pipe") else (
        "file" if request.get("stdout") else "null")
    timeout = request.get("timeout")
    fields = ["R", repr(float(timeout)) if timeout else "", request.get("cwd") or "", request.get("stdin") or "",
              mode, request.get("stdout") or "", request["stderr"], str(inherit[0]), str(inherit[1]),
              resolve_program(argv[0], extra.get("PATH", env.get("PATH"))), str(len(argv)), *argv,
              str(len(env) + len(extra))]
    return (b"".join(os.fsencode(f) + b"\0" for f in fields) + env_fields
            + b"".join(os.fsencode(f"{k}={v}") + b"\0" for k, v in extra.items()))
