"""Warm-up samples a micro process takes before its measured ones when none are given: by the kind
of interpreter its probe found (`implementation`: platform.python_implementation(), RUBY_ENGINE).

Why per interpreter: a warm-up sample costs as much as a measured one. CPython has no JIT to warm
up: its specialising interpreter (3.11+) rewrites an op's bytecode after a few executions, and
3.13's optional JIT compiles a loop's trace after its first few iterations, both far inside the
first of the thousands of loops a sample runs; one warm-up sample (pyperf's default) takes the first-run costs
(lazy imports, caches), and a second was ~20% of a default process's measuring time for nothing.
A JIT compiles hot code over the first samples and may keep recompiling for a while, so it keeps
two. `--warmup-samples` / a suite's `warmup` override the table on every interpreter.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["JIT_WARMUP", "WARMUP_BY_KIND", "default_warmup", "interpreter_kind"]

JIT_WARMUP = 2
"""Warm-up samples where a JIT may need warming, and for an interpreter not in the table (GraalPy,
TruffleRuby, JRuby all have one)."""

WARMUP_BY_KIND: Mapping[str, int] = {
    "cpython": 1,
    "pypy": JIT_WARMUP,
    "ruby": JIT_WARMUP,  # with --yjit or without: the probe sees YJIT only, and --mjit/--rjit compile too
}
"""Interpreter kind -> warm-up samples per process by default."""


def interpreter_kind(info: Mapping[str, Any]) -> str:
    """The table's key for a probed interpreter ("" when the probe said nothing)."""
    return str(info.get("implementation") or "").lower()


def default_warmup(info: Mapping[str, Any]) -> int:
    """Warm-up samples per process for the interpreter the probe described."""
    return WARMUP_BY_KIND.get(interpreter_kind(info), JIT_WARMUP)
