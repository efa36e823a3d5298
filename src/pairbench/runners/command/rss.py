"""How a command's peak RSS is measured: the exec helper, built once, or the launcher's rusage.

Why: Linux folds the peak RSS of the address space an exec replaces into the new program's
`ru_maxrss`, so every process started from Python inherits at least that Python's size as its
"peak" (`/bin/true` read 11 MiB where `/usr/bin/time -f %M` reads 1 MiB). A command forked by a
~1 MiB C program reads its own peak; `exec_helper.c` is that program (it also times the command
and takes its user and system time from the same wait4). It is compiled once with the system's
C compiler (`$CC`, else `cc`, `gcc`, `clang`) into pairbench's cache directory: linked statically
where the C library allows it, so that it can start commands by vfork (exec_helper.c says why), else
dynamically, forking. Without a compiler, the launcher's own rusage is used and its floor (~8-10
MiB) is part of every reading.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RssMethod", "rss_method", "HELPER", "LAUNCHER"]

HELPER = "exec-helper"
"""ru_maxrss of the command forked by the C exec helper: the command's own peak."""
LAUNCHER = "launcher-rusage"
"""ru_maxrss of the command started by the Python launcher: includes the launcher's ~8-10 MiB."""
_SOURCE = Path(__file__).with_name("exec_helper.c")
_COMPILE_TIMEOUT_S = 120.0
_BUILDS = (["-O2", "-static", "-DPAIRBENCH_VFORK"], ["-O2"])
"""Compiler flags, tried in order: static with vfork (a run costs what it costs under hyperfine),
then dynamic with fork, where no static C library is installed."""


@dataclass(frozen=True, slots=True)
class RssMethod:
    """Which way peak RSS is measured, and why."""

    name: str
    """HELPER or LAUNCHER (recorded in the run file as each variant's `rss_method`)."""
    helper: str | None
    """Path of the built helper, for HELPER."""
    reason: str = ""
    """For LAUNCHER: why the helper could not be used."""


_cached: dict[tuple[str, str], RssMethod] = {}


def rss_method() -> RssMethod:
    """The helper, built on first use (once per machine), or the launcher with the reason."""
    key = (os.environ.get("CC", ""), str(_cache_dir()))
    if key not in _cached:
        _cached[key] = _build()
    return _cached[key]


def _cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pairbench"


def _build() -> RssMethod:
    try:
        source = _SOURCE.read_bytes()
    except OSError as exc:
        return RssMethod(LAUNCHER, None, f"the helper's source is missing ({exc.strerror})")
    digest = hashlib.sha256(source + repr(_BUILDS).encode()).hexdigest()[:12]
    target = _cache_dir() / f"exec-helper-{os.uname().machine}-{digest}"
    if target.is_file() and os.access(target, os.X_OK):
        return RssMethod(HELPER, str(target))
    compilers = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    compiler = next((c for c in compilers if shutil.which(c)), None)
    if compiler is None:
        return RssMethod(LAUNCHER, None, f"no C compiler ({', '.join(compilers)}) to build the exec helper")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, partial = tempfile.mkstemp(prefix=target.name, dir=target.parent)
        os.close(fd)
        for flags in _BUILDS:
            done = subprocess.run([compiler, *flags, "-o", partial, str(_SOURCE)], capture_output=True, text=True,
                                  timeout=_COMPILE_TIMEOUT_S, stdin=subprocess.DEVNULL)
            if done.returncode == 0:
                break
        if done.returncode != 0:
            os.unlink(partial)
            why = " ".join(done.stderr.split())[:200]
            return RssMethod(LAUNCHER, None, f"`{compiler}` could not build the exec helper: {why}")
        os.chmod(partial, 0o755)
        os.replace(partial, target)  # atomic: two pairbench processes may build it at once
    except (OSError, subprocess.TimeoutExpired) as exc:
        return RssMethod(LAUNCHER, None, f"cannot build the exec helper in {target.parent}: {exc}")
    return RssMethod(HELPER, str(target))
