"""What runs on a worker machine: one work unit, in a fresh pairbench process of its own.

Why a process and not the worker's thread: the runners own signal handlers and children (an
HTTP server, a worker interpreter), which only a main thread may hold, and a unit measured in a
process of its own is not slowed by the Dask worker's threads. Git variants are built here, in
this machine's build cache, before the unit is measured: builds are never carried between
machines.

`python -m pairbench.cluster.worker UNIT.json RUN.json` measures one unit; `run_unit` is the task
the client submits.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

from pairbench.cluster.units import UnitResult, machine_name, unit_from_payload
from pairbench.errors import Interrupted, UserError

__all__ = ["run_unit", "main"]

STDERR_TAIL = 20
POLL_S = 0.5
KILL_AFTER_S = 5.0
"""After the hurry, how long a unit may take to write its run file before it is killed."""


def run_unit(payload: dict[str, Any]) -> UnitResult:
    """Measure one unit in a child pairbench process; its run file is the result.

    When the client stops the run (its Dask Event named in the payload is set), the child gets
    SIGTERM: it stops like a Ctrl-C'd run and writes its finished blocks, which go back to the
    client; no process of the unit outlives the run. A unit that starts after the stop returns at
    once with no run file.
    """
    machine = machine_name()
    stop, hurry = _event(payload.get("stop_event")), _event(payload.get("hurry_event"))
    if stop is not None and _is_set(stop):
        return UnitResult(index=int(payload["unit"]), machine=machine, run_file=None, returncode=0)
    with tempfile.TemporaryDirectory(prefix="pairbench-unit-") as tmp:
        unit_file, run_file, err_file = Path(tmp, "unit.json"), Path(tmp, "run.json"), Path(tmp, "stderr")
        unit_file.write_text(json.dumps(payload), encoding="utf-8")
        env = {**os.environ, "PAIRBENCH_HISTORY": "off"}
        with open(err_file, "wb") as err:
            proc = subprocess.Popen([sys.executable, "-m", "pairbench.cluster.worker", str(unit_file), str(run_file)],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env)
        try:
            _wait(proc, stop, hurry)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        # after a kill the file still holds the document and every finished block (its journal)
        text = run_file.read_text(encoding="utf-8") if run_file.exists() else None
        lines = err_file.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    tail = "\n".join(lines[-STDERR_TAIL:])
    return UnitResult(index=int(payload["unit"]), machine=machine, run_file=text, returncode=proc.returncode,
                      error=tail if proc.returncode else "")


def _event(name: str | None) -> Any:
    if not name:
        return None
    from distributed import Event

    return Event(name)


def _wait(proc: subprocess.Popen[bytes], stop: Any, hurry: Any) -> None:
    """Wait for the unit's process, passing on the client's stop as SIGTERM, its hurry as a second.

    A second SIGTERM makes the unit kill its children without their grace period; a unit still
    there KILL_AFTER_S later is killed (its run file keeps the finished blocks).
    """
    stopping = hurrying = False
    killed_at = None
    while True:
        try:
            proc.wait(timeout=POLL_S)
            return
        except subprocess.TimeoutExpired:
            pass
        if not stopping and stop is not None and _is_set(stop):
            proc.send_signal(signal.SIGTERM)
            stopping = True
        elif stopping and not hurrying and hurry is not None and _is_set(hurry):
            proc.send_signal(signal.SIGTERM)
            hurrying, killed_at = True, time.monotonic() + KILL_AFTER_S
        elif killed_at is not None and time.monotonic() > killed_at:
            proc.kill()


def _is_set(event: Any) -> bool:
    try:
        return bool(event.is_set())
    except Exception:  # noqa: BLE001 - the scheduler gone: the client is gone too, stop the unit
        return True


def main(argv: Sequence[str] | None = None) -> int:
    """Measure the unit in argv[0], writing its run file to argv[1]; 1 with one line on failure."""
    from pairbench import interrupts

    unit_path, run_path = list(argv if argv is not None else sys.argv[1:])
    try:
        with interrupts.installed():
            _measure(json.loads(Path(unit_path).read_text(encoding="utf-8")), run_path)
    except (KeyboardInterrupt, Interrupted):  # before UserError: Interrupted is one
        return interrupts.exit_code()
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _measure(doc: dict[str, Any], run_path: str) -> None:
    from pairbench.builds import resolve_builds
    from pairbench.machine import machine_metadata
    from pairbench.model import Run
    from pairbench.runners.kinds import make_runners
    from pairbench.runners.options import FakeOptions
    from pairbench.session import RunOptions, execute

    unit = unit_from_payload(doc)
    cache = Path(doc["cache_dir"]).expanduser() if doc.get("cache_dir") else None
    variants, notices = resolve_builds(unit.variants, cache=cache)
    run = Run(metadata={**machine_metadata(), "machine": machine_name(), "unit": unit.index},
              variants=list(variants), benchmarks=[unit.benchmark], suite=unit.suite, notices=list(notices))
    if not any(v.baseline for v in variants) or len(variants) < 2:
        raise UserError("the baseline or every candidate failed to build on this machine: "
                        + "; ".join(n.message.splitlines()[0] for n in notices))
    options = RunOptions(**{**doc["options"], "seed": unit.seed, "export_json": run_path,
                            "record_history": False})
    fake = FakeOptions(factors=tuple(doc["fake"])) if doc.get("fake") is not None else None
    execute(run, make_runners(run, options.seed, None, fake), options)

if __name__ == "__main__":
    sys.exit(main())
