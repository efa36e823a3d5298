"""pairbench: is this change faster? Interleaved, paired benchmarks with honest verdicts.

The Python API (docs/api.md) lives in `pairbench.api` and is re-exported here on first use
(module `__getattr__`, PEP 562), so that `import pairbench` and `pairbench --help` stay light.
"""

from __future__ import annotations

__version__ = "0.1.0"

# The names of pairbench.api.__all__ (tests/unit/test_api_exports.py checks they agree).
_API = (
    "Benchmark",
    "Comparison",
    "Run",
    "Sample",
    "UserError",
    "Variant",
    "compare_commands",
    "compare_http",
    "compare_micro",
    "export",
    "formats",
    "load_run",
    "measure",
    "open_history",
    "regressions",
    "render",
    "run_suite",
)

__all__ = ["__version__", *_API]


def __getattr__(name: str) -> object:
    if name in _API:
        from pairbench import api

        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pairbench' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
