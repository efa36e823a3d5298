"""`--metric` specs and the units of the numbers they find (bm_pprint prints `1.09 sec` under one
interpreter and `860 ms` under another: compared raw, the faster one looked 790x slower).

A spec is `NAME=REGEX` or `NAME:UNIT=REGEX`. The regex's first group is the number; a second group
(or one named `unit`) captures the unit it is printed in, normalised to seconds or bytes
(`output.py` UNITS); `:UNIT` says what unit an uncaptured number is in. Without a unit
group, the word printed right after the number must be the same unit in every run.
"""

from __future__ import annotations

import re

from pairbench.errors import BenchmarkFailed, UserError
from pairbench.model import Metric
from pairbench.runners.command.output import UNITS, unit_scale

__all__ = ["BUILTIN_METRICS", "SECONDARY_METRICS", "BUILTIN_NAMES", "parse_metric_spec", "compile_metric",
           "metric_value", "unit_mismatch"]

BUILTIN_METRICS: tuple[Metric, ...] = (
    Metric("time", "s", "lower", description="wall-clock time"),
    Metric("user", "s", "lower", description="user CPU time"),
    Metric("sys", "s", "lower", description="system CPU time"),
    Metric("rss", "B", "lower", description="peak resident set size"),
    Metric("exit_code", "", "none", description="process exit code"),
)

# Built-in metrics that are recorded and compared but do not hold adaptive stopping open.
SECONDARY_METRICS: frozenset[str] = frozenset({"user", "sys", "rss", "exit_code"})

BUILTIN_NAMES = frozenset(m.name for m in BUILTIN_METRICS)
"""The command runner's own metrics: not for --metric."""


def parse_metric_spec(spec: str) -> tuple[str, re.Pattern[str], str]:
    """Parse `NAME=REGEX` or `NAME:UNIT=REGEX`: (name, regex, unit or ""); raise UserError if invalid.

    The regex's first group is the number. A second group (or one named `unit`) captures the unit
    it is printed in, which is normalised to seconds or bytes; `:UNIT` says what unit an uncaptured
    number is in (ns, us, ms, s, sec, min, B, kB, MB, GB, KiB...), e.g. `pprint:ms=took ([\\d.]+)`.
    """
    head, sep, pattern = spec.partition("=")
    name, colon, unit = head.strip().partition(":")
    name, unit = name.strip(), unit.strip()
    if not sep or not name or not pattern:
        raise UserError(f"--metric {spec!r}: expected NAME=REGEX, e.g. 'exec=execution time: ([\\d.]+)'")
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", name):
        raise UserError(f"--metric {spec!r}: the name {name!r} must be a word (letters, digits, _ . -)")
    if name in BUILTIN_NAMES:
        raise UserError(f"--metric {spec!r}: {name!r} is a built-in metric; choose another name")
    if colon and unit_scale(unit) is None:
        raise UserError(f"--metric {spec!r}: unknown unit {unit!r}; known: {', '.join(UNITS)}")
    try:
        regex = re.compile(pattern, re.MULTILINE)
    except re.error as exc:
        raise UserError(f"--metric {name}: invalid regular expression {pattern!r}: {exc}") from None
    if regex.groups < 1:
        raise UserError(f"--metric {name}: the regex {pattern!r} needs a group around the number, e.g. ([\\d.]+)")
    return name, regex, unit


def compile_metric(spec: str) -> tuple[str, re.Pattern[str]]:
    """Parse `NAME=REGEX` (the regex's first group is the number); raise UserError if invalid."""
    name, regex, _unit = parse_metric_spec(spec)
    return name, regex


def metric_value(name: str, regex: re.Pattern[str], found: str | float, word: str, declared: str, *,
                 first: tuple[str, str] | None = None, variant: str = "") -> float:
    """The number a metric's regex found, in seconds or bytes when its unit is known.

    Args:
        name: the metric.
        regex: its regex (a second or `unit` group captures the unit).
        found: the number matched.
        word: the captured unit, else the word printed right after the number.
        declared: the `:UNIT` given with the metric, or "".
        first: (variant, word) of the first run that printed this metric, to check `word` against.
        variant: the variant of this run.
    Raises:
        BenchmarkFailed: not a number; a captured unit pairbench does not know, or of another kind
            than declared; a unit word that differs from the first run's with no group to capture it.
    """
    try:
        number = float(found)
    except ValueError:
        raise BenchmarkFailed(f"metric {name!r}: the regex's first group matched {found!r}, which is not a number") from None
    problem = unit_mismatch(name, regex, first, (variant, word)) if first is not None else ""
    if problem:
        raise BenchmarkFailed(problem)
    captured = "unit" in regex.groupindex or regex.groups >= 2
    scale = unit_scale(word)
    base = unit_scale(declared) if declared else None
    if captured and word:
        if scale is None:
            raise BenchmarkFailed(f"metric {name!r}: the regex's unit group matched {word!r}, not a unit "
                                  f"pairbench knows ({', '.join(UNITS)})")
        if base is not None and scale[0] != base[0]:
            raise BenchmarkFailed(f"metric {name!r} is declared in {declared} but was printed in {word}")
        return number * scale[1]
    if base is None:
        return number
    if scale is not None and scale != base:
        raise BenchmarkFailed(f"metric {name!r} is declared in {declared} but was printed in {word}; capture "
                              f"the unit with a second group instead, e.g. '{name}=([\\d.]+) (\\w+)'")
    return number * base[1]


def unit_mismatch(name: str, regex: re.Pattern[str], first: tuple[str, str], this: tuple[str, str]) -> str:
    """Why two runs' numbers cannot be compared ((variant, word after the number) each), or "".

    Only for a regex without a unit group: the words differ and at least one is a unit.
    """
    if "unit" in regex.groupindex or regex.groups >= 2:
        return ""
    (first_variant, first_word), (variant, word) = first, this
    if word == first_word or not (unit_scale(word) or unit_scale(first_word)):
        return ""
    return (f"metric {name!r}: {first_variant!r} printed it in {first_word or '(no unit)'!r} but {variant!r} in "
            f"{word or '(no unit)'!r}, so the numbers cannot be compared as they are; capture the unit with a "
            f"second group, e.g. --metric '{name}={regex.pattern}\\s*(\\w+)'")
