"""The table of formats `pairbench import` reads, in the order it tries them, and the one entry point.

Each format is a module beside this one holding its `IMPORTER` (importers/source.py `Importer`);
`--format` takes these names, and detection asks each in turn (the loosest shape, Bencher's, last).
"""

from __future__ import annotations

import os
from typing import Any

from pairbench.errors import UserError
from pairbench.importers import asv, bmf, criterion, go_bench, google_benchmark, hyperfine, pyperf, pytest_benchmark
from pairbench.importers.source import Importer, Naming, Source
from pairbench.model import Run

__all__ = ["IMPORTERS", "FORMATS", "detect_format", "get_importer", "import_file"]

IMPORTERS: dict[str, Importer] = {i.name: i for i in (
    pyperf.IMPORTER, hyperfine.IMPORTER, pytest_benchmark.IMPORTER, google_benchmark.IMPORTER, criterion.IMPORTER,
    go_bench.IMPORTER, asv.IMPORTER, bmf.IMPORTER)}
"""Every format by its `--format` name."""

FORMATS: tuple[str, ...] = tuple(IMPORTERS)


def get_importer(name: str) -> Importer:
    """The importer called `name`; an unknown name lists the valid ones."""
    try:
        return IMPORTERS[name]
    except KeyError:
        raise UserError(f"unknown import format {name!r}; choose one of: auto, {', '.join(FORMATS)}") from None


def detect_format(doc: Any) -> str | None:
    """The format of a JSON document or a `Source`: 'pairbench' for a run file, a name of FORMATS, or None."""
    source = doc if isinstance(doc, Source) else Source.of(doc)
    if isinstance(source.doc, dict) and source.doc.get("schema") == "pairbench.run":
        return "pairbench"
    return next((name for name, importer in IMPORTERS.items() if importer.detect(source)), None)


def import_file(path: str | os.PathLike[str], *, fmt: str = "auto", name: str | None = None,
                benchmark: str | None = None) -> Run:
    """Read a file (or criterion's directory) another tool wrote as a Run.

    Args:
        fmt: "auto" or a name of FORMATS.
        name: the variant's name, for formats holding one variant (default: the file name without extension,
            or what the file says: asv's commit, criterion's baseline).
        benchmark: benchmark name for hyperfine (default "hyperfine", so that two exports match in `compare`).
    """
    source = Source(path)
    if not source.path or not source.path.exists():
        raise UserError(f"cannot read {path}: no such file or directory")
    found = detect_format(source)
    if found == "pairbench":
        raise UserError(f"{path} is already a pairbench run file; use it directly with report, compare or history")
    if fmt == "auto":
        if found is None:
            _raise_unknown(source)
        fmt = str(found)
    importer = get_importer(fmt)
    if found != fmt:
        looks = f"; it looks like {IMPORTERS[found].reads} (--format {found})" if found else ""
        raise UserError(f"{path} is not {importer.reads}{looks}")
    return importer.read(source, Naming(name, benchmark))


def _raise_unknown(source: Source) -> None:
    if source.doc is None and source.text.lstrip()[:1] in ("{", "["):
        from pairbench.importers.source import read_json

        read_json(source.label)  # raises the JSON error, with its position
    raise UserError(f"{source.label} is not a results file pairbench imports (formats: {', '.join(FORMATS)}; "
                    "`pairbench import --help` says which file each is)")
