"""Calibrations in the history store: the noise of one benchmark and metric on one machine.

`pairbench calibrate` records one row per benchmark and metric (history_schema.py version 3), with
the fingerprint of the machine it was measured on (kernel, CPU, governor: machine.py), so that
`--threshold auto` can use the latest one and say when the machine has changed since.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    from pairbench.store.history import History

__all__ = ["CalibrationRecord", "record_calibration", "latest_calibration"]

_COLUMNS = ("id", "recorded_at", "hostname", "fingerprint", "benchmark", "metric", "budget_s", "blocks", "block_s",
            "replicate_sd", "ratio_sd", "mde", "band", "delta", "run_file", "details")


@dataclass(frozen=True, slots=True)
class CalibrationRecord:
    """One stored calibration (fractions for spreads and bands, seconds for times)."""

    hostname: str
    """The machine it was measured on."""
    benchmark: str
    metric: str
    budget_s: float
    """The budget the band and δ were set for."""
    blocks: int
    """A/A blocks measured."""
    block_s: float
    """Seconds one block took."""
    replicate_sd: float
    ratio_sd: float
    mde: float | None
    """Smallest change detectable at 80% power within the budget (None: not within it)."""
    band: float | None
    """The ±δ that keeps A/A false alarms at 5% within the budget (None: too few blocks)."""
    delta: float | None
    """The band to use: the larger of `mde` and `band`, rounded up."""
    fingerprint: Mapping[str, Any] = field(default_factory=dict)
    """Kernel, CPU and governor when it was measured."""
    run_file: str = ""
    """The A/A run file with every sample."""
    details: Mapping[str, Any] = field(default_factory=dict)
    """Everything else: the other budgets, sub-runs and their false alarms."""
    recorded_at: float = 0.0
    """Unix time; 0 until it is recorded."""
    id: int = 0
    """Row id in the store; 0 until it is recorded."""


def _finite(x: float | None) -> float | None:
    return None if x is None or x != x or x in (float("inf"), float("-inf")) else float(x)


def record_calibration(history: History, record: CalibrationRecord) -> int:
    """Add one calibration; returns its id."""
    row = (time.time(), record.hostname, json.dumps(dict(record.fingerprint), sort_keys=True, default=str),
           record.benchmark, record.metric, float(record.budget_s), int(record.blocks), float(record.block_s),
           float(record.replicate_sd), float(record.ratio_sd), _finite(record.mde), _finite(record.band),
           _finite(record.delta), record.run_file, json.dumps(dict(record.details), sort_keys=True, default=str))
    with history.backend.write():
        got = history.backend.execute(
            f"INSERT INTO calibrations ({', '.join(_COLUMNS[1:])}) VALUES ({', '.join('?' * (len(_COLUMNS) - 1))}) "
            "RETURNING id", row)
    return int(got[0][0])


def latest_calibration(history: History, hostname: str, benchmark: str, metric: str) -> CalibrationRecord | None:
    """The newest calibration of `benchmark` and `metric` on `hostname`, or None."""
    rows = history.backend.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM calibrations WHERE hostname = ? AND benchmark = ? AND metric = ? "
        "ORDER BY recorded_at DESC, id DESC LIMIT 1", (hostname, benchmark, metric))
    if not rows:
        return None
    r = dict(zip(_COLUMNS, rows[0]))
    return CalibrationRecord(
        hostname=r["hostname"], benchmark=r["benchmark"], metric=r["metric"], budget_s=float(r["budget_s"]),
        blocks=int(r["blocks"]), block_s=float(r["block_s"]), replicate_sd=float(r["replicate_sd"]),
        ratio_sd=float(r["ratio_sd"]), mde=r["mde"], band=r["band"], delta=r["delta"],
        fingerprint=json.loads(r["fingerprint"]), run_file=r["run_file"], details=json.loads(r["details"]),
        recorded_at=float(r["recorded_at"]), id=int(r["id"]),
    )
