"""A small Python process that starts measured commands and reports their wall time and rusage.

Why it exists: Linux carries a process's peak RSS across fork and exec (exec records the old
image's high-water mark), so a command forked straight from pairbench, which holds numpy and
rich, would report at least pairbench's own ~40 MiB as its peak RSS. Forked from this lean
process (the standard library's os, sys, json and signal only), a command's `ru_maxrss` is its
own plus this process's ~8 MiB. Timing is taken here too, around fork and wait4, so the pipe to
pairbench adds nothing. It is the launcher only where the C exec helper (exec_helper.c, which
has no such floor) cannot be built; launcher.py starts one or the other.

Protocol: one JSON request per line on stdin, one JSON reply per line on stdout.
Request: {"argv": [...], "env": {...}, "cwd": str|null, "timeout": float|null, "stdout": path|null, "stderr": path,
          "stdin": path|null, "pipe": bool, "inherit": [out_fd, err_fd]|null}
          (stdin: read from this file, else /dev/null; pipe: stdout goes through a pipe that is read
          and discarded, hyperfine's --output=pipe; inherit: stdout and stderr are these descriptors,
          pairbench's own, --output=inherit)
Reply:   {"wall": s, "utime": s, "stime": s, "maxrss_kib": int, "faults": int, "switches": int, "status": int,
          "timed_out": bool}
Run as a script by `sys.executable -S -E`; keep it importing nothing outside the standard library.
"""

import json
import os
import signal
import sys
import time
from typing import Any

_child = 0
_timed_out = False


def _kill_child(*_args: object) -> None:
    global _timed_out
    if _child:
        _timed_out = True
        try:
            os.killpg(_child, signal.SIGKILL)
        except OSError:
            pass


def _terminate(*_args: object) -> None:
    _kill_child()
    os._exit(143)


def _die_with_parent() -> None:
    """Ask the kernel for SIGTERM if pairbench dies, so no command outlives it."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - best effort on platforms without prctl
        pass


_resolved: dict[tuple[str, str], str] = {}


def resolve_program(name: str, path: "str | None") -> str:
    """The executable `name` names, found on `path` once and remembered (as a shell's hash does).

    Why: os.execvpe tries every PATH entry in the forked child; with a long PATH (pyenv puts a
    dozen directories first) that added ~2.5 ms to every run of a 1 ms command.
    """
    if "/" in name:
        return name
    key = (name, path or os.defpath)
    found = _resolved.get(key)
    if found is None:
        found = name  # not found: execve fails and the child reports it
        for directory in key[1].split(os.pathsep):
            candidate = os.path.join(directory or ".", name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                found = candidate
                break
        if found != name:
            _resolved[key] = found
    return found


def _fork_exec(program: str, argv: "list[str]", env: "dict[str, str]", cwd: "str | None", stdin: int, out: int, err: int) -> int:
    """fork and exec, for what posix_spawn cannot do here (a working directory)."""
    pid = os.fork()
    if pid == 0:  # the command
        try:
            os.setsid()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.dup2(stdin, 0)
            os.dup2(out, 1)
            os.dup2(err, 2)
            if cwd:
                os.chdir(cwd)
            os.execve(program, argv, env)
        except BaseException as exc:  # noqa: BLE001 - report and leave the child
            os.write(2, ("pairbench: cannot run %r: %s\n" % (argv[0], exc)).encode())
        finally:
            os._exit(127)
    return pid


def _run(req: "dict[str, Any]") -> "dict[str, Any]":
    global _timed_out
    _timed_out = False
    out, err, drain = _outputs(req)
    devnull = os.open(req.get("stdin") or os.devnull, os.O_RDONLY)
    argv = req["argv"]
    env = req["env"]
    program = resolve_program(argv[0], env.get("PATH"))
    try:
        return _spawn_and_wait(req, program, argv, env, out, err, devnull)
    finally:
        if drain is not None:
            drain.join()


def _outputs(req: "dict[str, Any]") -> "tuple[int, int, Any]":
    """The command's stdout and stderr descriptors, and the thread that drains a pipe (or None).

    No stdout path: discarded, as hyperfine's --output=null (a copy of it costs the command time).
    """
    inherit = req.get("inherit")
    if inherit:
        return os.dup(inherit[0]), os.dup(inherit[1]), None
    err = os.open(req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    if req.get("stdout"):
        return os.open(req["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), err, None
    if not req.get("pipe"):
        return os.open(os.devnull, os.O_WRONLY), err, None
    import threading

    read_end, write_end = os.pipe()

    def drain() -> None:
        try:
            while os.read(read_end, 65536):
                pass
        finally:
            os.close(read_end)

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    return write_end, err, thread


def _spawn_and_wait(req: "dict[str, Any]", program: str, argv: "list[str]", env: "dict[str, str]",
                    out: int, err: int, devnull: int) -> "dict[str, Any]":
    global _child
    start = time.perf_counter()
    if req.get("cwd") or not hasattr(os, "posix_spawn"):
        pid = _fork_exec(program, argv, env, req.get("cwd"), devnull, out, err)
    else:
        # posix_spawn (vfork, then exec): no copy of this process's page tables, so a run of a
        # 1 ms command costs about what it costs under hyperfine.
        try:
            pid = os.posix_spawn(
                program, argv, env, setsid=True, setsigdef=(signal.SIGINT, signal.SIGTERM),
                file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, out, 1),
                              (os.POSIX_SPAWN_DUP2, err, 2)],
            )
        except OSError as exc:
            os.write(err, ("pairbench: cannot run %r: %s\n" % (argv[0], exc)).encode())
            for fd in (out, err, devnull):
                os.close(fd)
            return {"wall": time.perf_counter() - start, "utime": 0.0, "stime": 0.0, "maxrss_kib": 0,
                    "status": 127, "timed_out": False}
    _child = pid
    os.close(out)
    os.close(err)
    os.close(devnull)
    if req.get("timeout"):
        signal.setitimer(signal.ITIMER_REAL, float(req["timeout"]))
    _, status, usage = os.wait4(pid, 0)
    end = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, 0)
    # anything the command left running in its group goes too
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    _child = 0
    return {
        "wall": end - start,
        "utime": usage.ru_utime,
        "stime": usage.ru_stime,
        "maxrss_kib": usage.ru_maxrss,
        "faults": usage.ru_minflt + usage.ru_majflt,
        "switches": usage.ru_nvcsw + usage.ru_nivcsw,
        "status": os.waitstatus_to_exitcode(status),
        "timed_out": _timed_out,
    }


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is pairbench's to handle
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGALRM, _kill_child)
    _die_with_parent()
    for line in sys.stdin:
        reply = _run(json.loads(line))
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
