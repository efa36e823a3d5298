"""What every builder shares: a Run with this machine's metadata and unique variant names."""

from __future__ import annotations

from typing import Any

from pairbench.model import Run

__all__ = ["new_run"]


def new_run(variants: list[Any], benchmarks: list[Any], suite: dict[str, Any] | None = None) -> Run:
    """A Run with this machine's metadata, ready for the session."""
    from pairbench.machine import machine_metadata

    names = [v.name for v in variants]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        from pairbench.errors import UserError

        raise UserError(f"variant names must be unique; repeated: {', '.join(duplicates)} (give each a distinct name)")
    return Run(metadata=machine_metadata(), variants=variants, benchmarks=benchmarks, suite=suite)
