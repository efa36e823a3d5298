"""`--threshold auto`: the noise band read back from the newest stored calibration.

Its own module because the measuring flow reads it and the calibrate flow measures through the
measuring flow: kept apart, the two import each other in one direction only.
"""

from __future__ import annotations

import dataclasses
import socket
from typing import Any

__all__ = ["auto_threshold"]


def auto_threshold(run: Any, options: Any, location: str | None) -> Any:
    """`--threshold auto`: the options with δ from the newest calibration of each benchmark's first metric.

    One band serves the whole run, so with several benchmarks the widest of their bands is used.
    Each calibration used is named in a notice, and one made before the machine's kernel, CPU or
    governor last changed gets a warning. No calibration is a UserError that says how to make one.
    """
    import time

    from pairbench.errors import UserError
    from pairbench.machine import fingerprint_changes, machine_fingerprint
    from pairbench.model import Notice
    from pairbench.store.calibrations import latest_calibration
    from pairbench.store.history import open_history

    host = str(run.metadata.get("hostname") or socket.gethostname())
    now = machine_fingerprint(run.metadata)
    found = []
    with open_history(location) as history:
        for bench in run.benchmarks:
            metric = bench.metrics[0].name
            rec = latest_calibration(history, host, bench.name, metric)
            if rec is None:
                raise UserError(
                    f"--threshold auto: no calibration of benchmark {bench.name!r} (`{metric}`) on {host} in "
                    f"{history.location}; run `pairbench calibrate --benchmark {bench.name!r} COMMAND` first, "
                    "or give --threshold PCT")
            if rec.delta is None:
                raise UserError(f"--threshold auto: calibration #{rec.id} of {bench.name!r} could not set a band "
                                f"({rec.blocks} blocks in {rec.budget_s:g} s); calibrate with a longer --max-time")
            found.append(rec)
    delta = max(r.delta for r in found if r.delta is not None)
    for rec in found:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(rec.recorded_at))
        run.notices.append(Notice(
            "threshold-auto", f"noise band δ = ±{delta * 100:g}% (--threshold auto): calibration #{rec.id} of "
            f"`{rec.metric}` on {host}, {when}, set δ = ±{(rec.delta or 0) * 100:g}% for a {rec.budget_s:g} s budget",
            "", rec.benchmark))
        changes = fingerprint_changes(dict(rec.fingerprint), now)
        if changes:
            run.notices.append(Notice(
                "calibration-stale", f"calibration #{rec.id} is older than this machine's last change "
                f"({'; '.join(changes)})", f"run `pairbench calibrate --benchmark {rec.benchmark!r}` again",
                rec.benchmark))
    return dataclasses.replace(options, threshold=delta * 100.0)
