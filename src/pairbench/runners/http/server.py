"""Server lifecycle for one variant and one round: start, wait until ready, measure, stop.

The server runs in its own session (process group), so that one signal reaches every process it
spawns (passenger, unicorn and puma fork workers) and a Ctrl-C in pairbench's terminal does not
reach it before pairbench has read what it needs. It is stopped by SIGTERM to the group, then
SIGKILL after a grace period. The direct child also gets PR_SET_PDEATHSIG, and an atexit hook stops every
live server, so that no server outlives pairbench (signals: pairbench.interrupts).

CPU time and peak RSS come from the kernel: /proc/<pid>/stat (utime + stime) and
/proc/<pid>/status (VmHWM), summed over the processes of the group.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import shlex
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

from pairbench import interrupts
from pairbench.runners.http.processes import cmdline, escaped_from, group_processes, start_ticks, stop_group

__all__ = ["ServerSpec", "Server", "ServerFailed", "free_port", "port_in_use", "stop_all_servers",
           "group_processes"]

_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_SHELL_CHARS = set("|&;<>()$`\\\"'*?[]#~=%{}\n")
_LIVE: set[Server] = set()
_LOCK = threading.Lock()
READY_POLL_MAX_S = 0.05
"""The longest wait between two readiness polls: a round starts at most this long after the server
answers (with 0.25 s, a Ruby server up in 0.3 s was seen at 0.41 s: idle time at every start)."""


class ServerFailed(Exception):
    """The server could not be started or died; the message says how and quotes its log."""


@dataclass(frozen=True, slots=True)
class ServerSpec:
    """How to start one server."""

    command: str
    """Command line; `{port}` and `{host}` are filled in."""
    env: Mapping[str, str] = field(default_factory=dict)
    unset_env: tuple[str, ...] = ()
    cwd: str | None = None
    host: str = "127.0.0.1"
    port: int | None = None
    """A fixed port, or None to pick a free one."""
    ready_path: str | None = "/"
    """Path polled with GET until any HTTP response arrives; None: a TCP connect suffices."""
    ready_timeout: float = 30.0
    grace: float = 5.0
    """Seconds between SIGTERM and SIGKILL."""
    log_path: str | None = None


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on now (the kernel's pick for port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def port_in_use(host: str, port: int) -> bool:
    """True when something accepts connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


def _set_pdeathsig() -> None:
    # Runs in the child between fork and exec: the kernel sends SIGTERM when pairbench dies,
    # even by SIGKILL. Best effort (Linux only).
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def _cpu_and_hwm(pid: int) -> tuple[float, int]:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        fields = stat[stat.rfind(b")") + 2 :].split()
        cpu = (int(fields[11]) + int(fields[12])) / _CLK_TCK  # utime, stime
        hwm = 0
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    hwm = int(line.split()[1]) * 1024
                    break
        return cpu, hwm
    except (OSError, IndexError, ValueError):
        return 0.0, 0


class Server:
    """One running server; use `start()`, then `stop()` (also safe after a failure)."""

    def __init__(self, spec: ServerSpec, clock: Callable[[], float] = time.monotonic) -> None:
        self.spec = spec
        self.clock = clock
        self.port = spec.port or 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = spec.log_path
        self.returncode: int | None = None
        self._not_http = ""
        """The first line of a readiness poll's answer that was not HTTP, for the message."""
        self._started_ticks: int | None = None
        """When the command started (clock ticks since boot): what listens on its port and started
        since is its own, even in a session of its own."""

    @property
    def base_url(self) -> str:
        return f"http://{self.spec.host}:{self.port}"

    def argv(self) -> list[str]:
        command = self.spec.command.replace("{port}", str(self.port)).replace("{host}", self.spec.host)
        if any(c in _SHELL_CHARS for c in command):
            # Shell syntax: let sh run it. A simple command gets `exec`, so that the server replaces
            # the shell, stays our direct child and keeps PR_SET_PDEATHSIG.
            words = command.split()
            simple = not any(c in command for c in ";&|()`\n") and words and "=" not in words[0]
            return ["/bin/sh", "-c", ("exec " + command) if simple else command]
        return shlex.split(command)

    def start(self) -> None:
        """Start the server and wait until it answers. Raises ServerFailed (after cleaning up)."""
        spec = self.spec
        if spec.port is not None:
            if port_in_use(spec.host, spec.port):
                raise ServerFailed(
                    f"port {spec.port} on {spec.host} is already in use: stop what listens there or "
                    "drop --port so that pairbench picks a free port"
                )
        else:
            self.port = free_port(spec.host)
        env = dict(os.environ)
        for name in spec.unset_env:
            env.pop(name, None)
        env.update(spec.env)
        env["PORT"] = str(self.port)
        if spec.cwd is not None and not Path(spec.cwd).is_dir():
            raise ServerFailed(f"working directory {spec.cwd!r} does not exist")
        log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL
        try:
            argv = self.argv()
            with _LOCK:
                self.proc = subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=spec.cwd,
                    start_new_session=True, preexec_fn=_set_pdeathsig,
                )
                _LIVE.add(self)
                _install_handlers()
            self._started_ticks = start_ticks(self.proc.pid)
        except FileNotFoundError:
            raise ServerFailed(f"server command not found: {argv[0]!r} (from {spec.command!r})") from None
        except PermissionError:
            raise ServerFailed(f"server command is not executable: {argv[0]!r}") from None
        finally:
            if log is not subprocess.DEVNULL:
                log.close()  # type: ignore[union-attr]
        try:
            # A stop signal that landed in Python's fork hooks (preexec_fn forks, and logging's lock
            # hook runs then) was raised there and dropped as "Exception ignored": raise it here.
            signum = interrupts.first_signal()
            if signum is not None:
                raise interrupts.Stopped(signum)
            self._wait_ready()
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self) -> None:
        spec = self.spec
        deadline = self.clock() + spec.ready_timeout
        delay = 0.02
        while True:
            code = self.proc.poll() if self.proc else None
            if code is not None:
                self.returncode = code
                raise ServerFailed(f"server exited at start with {_describe_exit(code)}{self._background_text(code)}"
                                   f"{self._tail_text()}")
            if self._answers():
                if self.proc is not None and self.proc.poll() is not None:
                    continue  # it answered, but the command itself ended: said just above
                return
            if self.clock() >= deadline:
                where = f"{self.base_url}{spec.ready_path or ''}"
                answer = (f"it answers on {where}, but not HTTP: {self._not_http!r}" if self._not_http
                          else f"no answer on {where}")
                raise ServerFailed(
                    f"server did not become ready within {spec.ready_timeout:g} s "
                    f"({answer}); raise --ready-timeout if it "
                    f"starts slowly, and check that it listens on the {{port}} pairbench gives it"
                    f"{self._tail_text()}"
                )
            time.sleep(delay)
            delay = min(delay * 1.5, READY_POLL_MAX_S)

    def _answers(self) -> bool:
        spec = self.spec
        try:
            with socket.create_connection((spec.host, self.port), timeout=1.0) as s:
                if spec.ready_path is None:
                    return True
                s.sendall(f"GET {spec.ready_path} HTTP/1.1\r\nHost: {spec.host}:{self.port}\r\n"
                          f"Connection: close\r\n\r\n".encode("latin-1"))
                s.settimeout(max(1.0, min(5.0, spec.ready_timeout)))
                head = s.recv(64)
                # Read the rest up to the server's close, so that the server never writes into a reset
                # socket (that would put a traceback in its log); bounded in bytes and time.
                deadline = time.monotonic() + 2.0
                received = len(head)
                s.settimeout(0.5)
                try:
                    while head and received < 1 << 20 and time.monotonic() < deadline:
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        received += len(chunk)
                except OSError:
                    pass  # a server that keeps the connection open anyway: the status line is enough
                if head and not head.startswith(b"HTTP/"):
                    # Something else listens there (another protocol, TLS): said if it never becomes ready.
                    self._not_http = head.split(b"\n", 1)[0].strip().decode("latin-1")[:60]
                return head.startswith(b"HTTP/")
        except OSError:
            return False

    def _escaped(self) -> list[int]:
        """Processes of this server that listen on its port outside its process group (daemonized)."""
        if self._started_ticks is None or not self.port:
            return []
        pgid = self.proc.pid if self.proc is not None else None
        return escaped_from(self.port, self._started_ticks, pgid)

    def _background_text(self, code: int) -> str:
        """A command that exits 0 at start may have put the server in the background (nginx without
        `daemon off;`): it may listen a moment later; say so, by pid and command line (stop() ends it)."""
        if code != 0:
            return ""
        deadline = time.monotonic() + 1.0
        while not (escaped := self._escaped()) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not escaped:
            return ""
        who = ", ".join(f"{pid} ({cmdline(pid)})" for pid in escaped)
        return (f", leaving {who} listening on port {self.port} in the background, which pairbench stopped: "
                "give a command that keeps the server in the foreground (nginx: -g 'daemon off;'; "
                "gunicorn without --daemon)")

    def alive(self) -> bool:
        if self.proc is None:
            return False
        code = self.proc.poll()
        if code is not None:
            self.returncode = code
            return False
        return True

    def usage(self) -> tuple[float, int]:
        """CPU seconds used so far and peak RSS in bytes, summed over the server's process group."""
        if self.proc is None:
            return 0.0, 0
        cpu = 0.0
        rss = 0
        for pid in group_processes(self.proc.pid):
            c, r = _cpu_and_hwm(pid)
            cpu += c
            rss += r
        return cpu, rss

    def died_message(self) -> str:
        code = self.returncode
        return (f"server died during the round with {_describe_exit(code)}"
                f"{self._background_text(code) if code is not None else ''}{self._tail_text()}")

    def stop(self) -> None:
        """SIGTERM to the process group, SIGKILL after the grace period; waits for the leader."""
        proc = self.proc
        if proc is None:
            return
        pgid = proc.pid
        try:
            os.killpg(pgid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + self.spec.grace
        # After a second stop signal the user wants out now: no grace period (pairbench.interrupts).
        while time.monotonic() < deadline and not interrupts.hurried():
            if proc.poll() is not None and not group_processes(pgid):
                break
            time.sleep(0.02)
        else:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        # Children that left the group still die with their parent's SIGKILL only if they share it;
        # reap stragglers of the group one last time.
        for pid in group_processes(pgid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        # A server that went to the background left the group: what listens on its port and started
        # since it did is its own; its group goes the same way (SIGTERM, SIGKILL after the grace period).
        for pid in self._escaped():
            stop_group(pid, self.spec.grace)
        if self.returncode is None:
            self.returncode = proc.returncode
        with _LOCK:
            _LIVE.discard(self)
        self.proc = None

    def log_tail(self, lines: int = 12) -> str:
        if not self.log_path:
            return ""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - 8192))
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def _tail_text(self) -> str:
        tail = self.log_tail()
        where = f" (log: {self.log_path})" if self.log_path else ""
        if not tail:
            return f"; its log is empty{where}"
        return f"; last lines of its log{where}:\n" + "\n".join("    " + line for line in tail.splitlines())


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "an unknown status"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


def stop_all_servers() -> None:
    """Stop every server this process started and has not stopped yet."""
    with _LOCK:
        live = list(_LIVE)
    for server in live:
        server.stop()


_installed = False


def _install_handlers() -> None:
    """atexit cleanup, installed once, on the first server start.

    Signals are the CLI's (pairbench.interrupts): they raise into the measuring code, whose
    cleanup and the runner's close() stop the servers.
    """
    global _installed
    if _installed:
        return
    _installed = True
    atexit.register(stop_all_servers)
