"""What the machine was like during a run, and warnings about states that make results unreliable."""

from __future__ import annotations

import os
import platform
import socket
import sys
import time
from pathlib import Path
from typing import Any

from pairbench import __version__
from pairbench.model import Notice

__all__ = ["FINGERPRINT_KEYS", "machine_fingerprint", "fingerprint_changes", "machine_metadata", "machine_notices"]

FINGERPRINT_KEYS = ("kernel", "cpu_model", "cpu_count", "governor")
"""What makes earlier noise measurements of a machine stale when it changes."""

# A one-minute load above this fraction of the cores means other work competes with the benchmark.
BUSY_LOAD_PER_CORE = 0.5


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def _cpu_model() -> str:
    info = _read("/proc/cpuinfo") or ""
    for line in info.splitlines():
        if line.lower().startswith(("model name", "hardware", "cpu model")):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _swap_used_bytes() -> int | None:
    info = _read("/proc/meminfo")
    if not info:
        return None
    fields = {}
    for line in info.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            fields[key] = int(parts[0]) * 1024
    if "SwapTotal" in fields and "SwapFree" in fields:
        return fields["SwapTotal"] - fields["SwapFree"]
    return None


def machine_metadata(argv: list[str] | None = None) -> dict[str, Any]:
    """Facts recorded at the start of every run (the run file's `metadata`)."""
    try:
        load = list(os.getloadavg())
    except OSError:
        load = None
    return {
        "pairbench_version": __version__,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "started_unix": time.time(),
        "command_line": ["pairbench", *(sys.argv[1:] if argv is None else argv)],
        "cwd": os.getcwd(),
        "hostname": socket.gethostname(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "kernel": f"{platform.system()} {platform.release()}",
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "load_average": load,
        "governor": _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        "swap_used_bytes": _swap_used_bytes(),
    }


def machine_notices(metadata: dict[str, Any]) -> list[Notice]:
    """Warnings about the machine state recorded in `metadata`."""
    notices: list[Notice] = []
    load = metadata.get("load_average")
    cores = metadata.get("cpu_count") or 1
    if load and load[0] > BUSY_LOAD_PER_CORE * cores:
        notices.append(
            Notice(
                "machine-busy",
                f"load average {load[0]:.2f} on {cores} cores when the run started",
                "other work competes with the benchmark; interleaving keeps the comparison fair but widens the CI",
            )
        )
    governor = metadata.get("governor")
    if governor and governor not in ("performance",):
        notices.append(
            Notice(
                "frequency-scaling",
                f"CPU frequency governor is {governor!r}",
                "set it to 'performance' for steadier timings (cpupower frequency-set -g performance)",
            )
        )
    swap = metadata.get("swap_used_bytes")
    if swap and swap > 64 * 1024 * 1024:
        notices.append(Notice("swap", f"{swap / 2**20:.0f} MiB of swap in use", "memory pressure makes timings erratic"))
    return notices


def machine_fingerprint(metadata: dict[str, Any]) -> dict[str, Any]:
    """The facts of `metadata` (a run's) whose change invalidates a calibration: kernel, CPU, governor."""
    return {key: metadata.get(key) for key in FINGERPRINT_KEYS}


def fingerprint_changes(before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """What changed between two fingerprints, in words: `kernel Linux 6.1 -> Linux 6.5`."""
    names = {"kernel": "kernel", "cpu_model": "CPU", "cpu_count": "CPU count", "governor": "governor"}
    return [f"{names[k]} {before.get(k)} -> {now.get(k)}" for k in FINGERPRINT_KEYS
            if before.get(k) != now.get(k)]
