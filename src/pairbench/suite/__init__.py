"""Suite files: a whole experiment (variants, sweeps, builds, benchmarks, defaults) in one TOML file.

`load_suite(path)` reads and validates the file and expands the sweeps into the variant matrix, so
that every mistake (a typo in a key, an unknown variant, an empty sweep, an unknown kind, a bad
option of a kind, a duplicated name) is refused before anything runs, as one SuiteError naming the
file, the line and the valid choices. The format is documented in docs/suite.md.

    tomlcheck.py    the reader: a key's line in the TOML text (tomllib gives none), typed checks
    schema.py       Defaults, GitSource, VariantSpec, Sweep, Suite
    overrides.py    `--set KEY=VALUE` merged into the document
    validation.py   each part of the document checked (benchmark options by their kind's parser)
    matrix.py       variants × sweeps − exclusions, one baseline
    load.py         text -> TOML -> overrides -> validation -> matrix
    selection.py    `--only`
    record.py       what the run file keeps of the suite
"""

from __future__ import annotations

from pairbench.suite.load import load_suite, parse_suite
from pairbench.suite.matrix import expand_matrix, expand_point
from pairbench.suite.overrides import apply_overrides
from pairbench.suite.record import suite_record
from pairbench.suite.schema import (
    DEFAULT_COMMAND_METRIC,
    SWEEP_AS,
    Defaults,
    GitSource,
    Suite,
    Sweep,
    VariantSpec,
)
from pairbench.suite.selection import select_benchmarks

__all__ = [
    "Defaults",
    "GitSource",
    "VariantSpec",
    "Sweep",
    "Suite",
    "SWEEP_AS",
    "load_suite",
    "parse_suite",
    "expand_matrix",
    "expand_point",
    "apply_overrides",
    "select_benchmarks",
    "suite_record",
    "DEFAULT_COMMAND_METRIC",
]
