"""What /proc says of a server's processes: its process group, and those of it that left the group.

Why the second: a command that daemonizes (nginx without `daemon off;`) exits 0 at once, and its server,
in a session of its own, keeps listening on the port pairbench gave it; signalling the command's
group misses it, and it outlived the run. What listens on that port and started since the command
did is the server's own: found from /proc/net/tcp and the processes' file descriptors, and
stopped as the server is (SIGTERM to its group, SIGKILL after the grace period).
"""

from __future__ import annotations

import os
import signal
import time

from pairbench import interrupts

__all__ = ["group_processes", "escaped_from", "start_ticks", "cmdline", "stop_group", "listeners_since"]


def group_processes(pgid: int) -> list[int]:
    """PIDs of the live processes in process group `pgid` (read from /proc)."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        # fields[0] is the state, fields[2] the process group.
        if int(fields[2]) == pgid and fields[0] != b"Z":
            pids.append(int(name))
    return pids


def _listening_inodes(port: int) -> set[str]:
    """The inodes of the sockets that listen on TCP `port` (any address), from /proc/net."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 9 and fields[3] == "0A" and int(fields[1].rpartition(":")[2], 16) == port:
                inodes.add(fields[9])
    return inodes


def start_ticks(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        return int(stat[stat.rfind(b")") + 2 :].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return ""


def listeners_since(port: int, started: int) -> list[int]:
    """PIDs of the processes started at or after `started` (clock ticks since boot) that hold a
    socket listening on `port`: a server that went to the background from the command pairbench
    started (its own session, out of the process group that stop() signals)."""
    sockets = {f"socket:[{i}]" for i in _listening_inodes(port)}
    if not sockets:
        return []
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            fds = os.listdir(f"/proc/{name}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{name}/fd/{fd}") in sockets:
                    ticks = start_ticks(int(name))
                    if ticks is not None and ticks >= started:
                        pids.append(int(name))
                    break
            except OSError:
                continue
    return pids


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def stop_group(pid: int, grace: float) -> None:
    """SIGTERM to the process group of `pid` (not our child's), SIGKILL after `grace` seconds."""
    pgid = _pgid(pid) or pid
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while group_processes(pgid) and time.monotonic() < deadline and not interrupts.hurried():
        time.sleep(0.02)
    for pid in group_processes(pgid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def escaped_from(port: int, started: int, pgid: int | None) -> list[int]:
    """PIDs listening on `port`, started since `started`, outside process group `pgid`."""
    return [pid for pid in listeners_since(port, started) if _pgid(pid) != pgid]
