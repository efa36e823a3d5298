"""pairbench: is this change faster? Interleaved, paired benchmarks with honest verdicts."""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__"]
