"""Results people already have, as pairbench runs: one module per tool's format, one table of them.

An imported run keeps every value the tool wrote (warm-ups marked), so `compare` and `history` work
on it. The tools measure all of one thing before the next, so an imported run is marked not
interleaved (metadata `interleaved: false`) and carries a notice; no verdict is stored with it. A
file holding summary statistics only (no raw timings) becomes one value per benchmark and variant,
with a `summary-only` notice. The formats: importers/formats.py `IMPORTERS`; docs/reports.md.
"""

from __future__ import annotations

from pairbench.importers.formats import FORMATS, IMPORTERS, detect_format, get_importer, import_file
from pairbench.importers.hyperfine import import_hyperfine
from pairbench.importers.pyperf import import_pyperf
from pairbench.importers.source import Importer, Naming, Source, read_json

__all__ = ["detect_format", "read_json", "import_file", "import_pyperf", "import_hyperfine", "FORMATS", "IMPORTERS",
           "get_importer", "Importer", "Naming", "Source"]
