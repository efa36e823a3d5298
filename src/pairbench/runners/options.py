"""What the typed options of every runner kind share: where they were written, and their mapping.

Each kind parses its options once from a mapping (a suite table, or flags) in its own
`runners/<kind>/options.py`. A suite file, the subcommands' flags and the runners all go through
that parser, so a mistake in an http or micro option is refused before anything runs, with the
file and line (suite) or the flag (command line) that said it (`Flags` here, the suite's own
`Where`). Each options type turns back into the JSON mapping kept in `Benchmark.options` and the
run file (`as_mapping`). The fake kind's options, for `--debug-fake` and tests, are here too.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from pairbench.errors import UserError
from pairbench.runners.option_fields import Where, check_keys, read_number, shown

__all__ = ["Where", "Flags", "FakeOptions", "parse_fake_options", "as_mapping"]


@dataclass(frozen=True, slots=True)
class Flags:
    """Options that came from command-line flags: an error names the flag that set the key."""

    names: Mapping[str, str] = field(default_factory=dict)
    """Option key -> the flag that sets it (`connections` -> `-c/--concurrency`)."""

    def fail(self, key: str | None, message: str) -> UserError:
        """The flag that set `key`, then the message; a message that begins with the key (as it
        must in a suite file) gets the flag in its place, so the option is named once."""
        if key is None:
            return UserError(message)
        flag = self.names.get(key, key)
        for word in (key, key.replace("_", " ")):
            if message.startswith(f"{word} ") or message.startswith(f"{word}:"):
                return UserError(f"{flag}{message[len(word):]}")
        return UserError(f"{flag}: {message}")


def as_mapping(options: Any) -> dict[str, Any]:
    """The JSON-serialisable mapping of typed options (what `Benchmark.options` holds).

    Options left unset (None) are left out, so a runner can ask `"index" in options`.
    """
    out: dict[str, Any] = {}
    for f in dataclasses.fields(options):
        value = getattr(options, f.name)
        if value is None:
            continue
        if isinstance(value, tuple):
            value = [list(v) if isinstance(v, tuple) else dict(v) if isinstance(v, Mapping) else v for v in value]
        elif isinstance(value, Mapping):
            value = dict(value)
        out[f.name] = value
    return out


# --- fake -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FakeOptions:
    """Scripted timings without processes (runners/fake.py), for `--debug-fake` and tests."""

    factors: tuple[float, ...] = ()
    """True ratio of each variant, in order, to the first (missing ones are 1.0)."""
    base: float = 0.1
    noise: float = 0.01
    """Standard deviation of the log noise."""


def parse_fake_options(m: Mapping[str, Any], where: Where) -> FakeOptions:
    """Typed fake options."""
    check_keys(m, tuple(f.name for f in dataclasses.fields(FakeOptions)), where, "fake")
    raw = m.get("factors") or []
    if not isinstance(raw, (list, tuple)):
        raise where.fail("factors", f"factors must be a list of positive numbers, not {shown(raw)}")
    factors = []
    for x in raw:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not x > 0 or not math.isfinite(x):
            raise where.fail("factors", f"factors must be positive numbers, not {shown(x)}")
        factors.append(float(x))
    return FakeOptions(tuple(factors), read_number(m, "base", where, 0.1, positive=True) or 0.1,
                       read_number(m, "noise", where, 0.01) or 0.0)
