"""A small process that starts measured commands and reports their wall time and rusage.

Why it exists: Linux carries a process's peak RSS across fork and exec (exec records the old
image's high-water mark), so a command forked straight from pairbench, which holds numpy and
rich, would report at least pairbench's own ~100 MiB as its peak RSS. Forked from this lean
process (the standard library's os, sys, json and signal only), a command's `ru_maxrss` is its
own. Timing is taken here too, around fork and wait4, so the pipe to pairbench adds nothing.

Protocol: one JSON request per line on stdin, one JSON reply per line on stdout.
Request: {"argv": [...], "env": {...}, "cwd": str|null, "timeout": float|null, "stdout": path, "stderr": path}
Reply:   {"wall": s, "utime": s, "stime": s, "maxrss_kib": int, "status": int, "timed_out": bool}
Run as a script by `sys.executable -S -E`; keep it importing nothing outside the standard library.
"""

import json
import os
import signal
import sys
import time

_child = 0
_timed_out = False


def _kill_child(*_args):
    global _timed_out
    if _child:
        _timed_out = True
        try:
            os.killpg(_child, signal.SIGKILL)
        except OSError:
            pass


def _terminate(*_args):
    _kill_child()
    os._exit(143)


def _die_with_parent():
    """Ask the kernel for SIGTERM if pairbench dies, so no command outlives it."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - best effort on platforms without prctl
        pass


def _run(req):
    global _child, _timed_out
    _timed_out = False
    out = os.open(req["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    devnull = os.open(os.devnull, os.O_RDONLY)
    argv = req["argv"]
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the command
        try:
            os.setsid()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.dup2(devnull, 0)
            os.dup2(out, 1)
            os.dup2(err, 2)
            if req.get("cwd"):
                os.chdir(req["cwd"])
            os.execvpe(argv[0], argv, req["env"])
        except BaseException as exc:  # noqa: BLE001 - report and leave the child
            os.write(2, ("pairbench: cannot run %r: %s\n" % (argv[0], exc)).encode())
        finally:
            os._exit(127)
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
        "status": os.waitstatus_to_exitcode(status),
        "timed_out": _timed_out,
    }


def main():
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
