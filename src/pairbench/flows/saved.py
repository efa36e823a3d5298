"""Saved results read and written for the commands that do not measure (report, compare, import, init).

Run files are read as `report` reads them (a cut-short one yields what it holds, analysed from its
kept samples, with a warning; other tools' results are imported on the way), and written or
recorded in the history store here, so that `commands/` never opens the store itself.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from pathlib import Path

    from pairbench.model import Comparison, Notice, Run
    from pairbench.store.history import History

__all__ = ["load_results", "load_run", "open_history", "compare_unpaired", "import_files", "write_new_file", "warn"]


def warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def load_results(path: str, say: Callable[[str], None] = warn) -> Run:
    """A run file (a cut-short one yields what it holds, with a warning), or another tool's results
    (importers/formats.py: a file, or criterion's directory)."""
    from pathlib import Path

    from pairbench.errors import NotARunFile
    from pairbench.importers import FORMATS, Source, detect_format, import_file
    from pairbench.store.salvage import load_run_salvaging

    if Path(path).is_dir():
        return import_file(path)
    try:
        loaded = load_run_salvaging(path)
    except NotARunFile:
        if detect_format(Source(path)) in FORMATS:  # pyperf writes .json.gz too
            return import_file(path)
        raise
    for note in loaded.missing:
        say(f"{path}: {note}")
    if loaded.missing and loaded.run.samples:
        _analyse_what_was_kept(loaded.run, path, say)
    return _migrated(loaded.run)


def load_run(path: str) -> Run:
    """A run file, any version (migrated), read strictly: a cut-short file is an error."""
    from pairbench.store.runfile import load_run as load

    return _migrated(load(path))


def _migrated(run: Run) -> Run:
    """What a run file written by an earlier pairbench lacks and the analysis can add (the stored
    "where" figures of its profiles), added once as it is read."""
    from pairbench.analysis.profiles import fill_profile_differences

    fill_profile_differences(run)
    return run


def open_history(location: str | None = None, create: bool = False) -> History:
    """The history store at `location` (default: where the CLI records)."""
    from pairbench.store.history import open_history as open_store

    return open_store(location, create=create)


def compare_unpaired(base: Run, candidate: Run, threshold: float,
                     confidence: float) -> tuple[list[Comparison], list[Notice]]:
    """Two saved runs compared unpaired (analysis.compare_runs): their comparisons and notices."""
    from pairbench.analysis import compare_runs

    comparisons, notices = compare_runs(base, candidate, threshold=threshold, confidence=confidence)
    return list(comparisons), list(notices)


def _analyse_what_was_kept(run: Run, path: str, say: Callable[[str], None]) -> None:
    """A run that never finished (killed, or its file cut short) is analysed from the samples it
    kept, with the options it was started with and its CIs widened for the looks it had planned,
    so its report answers the question instead of showing medians alone."""
    from pairbench.errors import UserError
    from pairbench.session import RunOptions, finish_analysis

    given = run.metadata.get("options")
    given = given if isinstance(given, dict) else {}
    planned = run.metadata.get("adaptive")
    looks = planned.get("looks") if isinstance(planned, dict) else None
    try:
        options = RunOptions(threshold=float(given.get("threshold", 1.0)),
                             confidence=float(given.get("confidence", 0.95)),
                             correction=str(given.get("correction", "holm")))
    except (TypeError, ValueError, UserError):
        options = RunOptions()
    finish_analysis(run, options, len(looks) if isinstance(looks, list) and looks else 1)
    blocks = len({s.block for s in run.samples if not s.warmup and s.block >= 0})
    say(f"{path}: analysed here from the {blocks} block{'s' if blocks != 1 else ''} it kept; a finished run "
        "would have measured more, so its verdicts may be inconclusive where the whole run's were not")


def import_files(files: list[str], output: str | None = None, fmt: str = "auto", name: str | None = None,
                 benchmark: str | None = None, force: bool = False, record: bool = True,
                 history: str | None = None) -> int:
    """Other tools' results (importers/formats.py) written as run files (FILE stem + .run.json, or
    `output`) and recorded in the history; a pairbench run file is recorded (salvaged if cut short, written whole with
    `output`). One summary line per file; the exit code."""
    from pathlib import Path

    from pairbench.errors import NotARunFile, UserError
    from pairbench.importers import import_file
    from pairbench.store.history import record_run
    from pairbench.store.runfile import write_run
    from pairbench.store.salvage import load_run_salvaging

    if output and len(files) > 1:
        raise UserError("-o/--output takes one input FILE; without it each FILE gets FILE.run.json")
    for path in files:
        if not Path(path).exists():  # not yet a run file nor a results file: name neither
            raise UserError(f"cannot read {path}: no such file or directory")
        try:  # a run file, cut short or with a killed run's journal too; criterion writes a directory
            loaded = None if Path(path).is_dir() else load_run_salvaging(path)
        except NotARunFile:
            loaded = None
        out: Path | None
        if loaded is not None:
            run = loaded.run
            for note in loaded.missing:
                warn(f"{path}: {note}")
            out = Path(output) if output else None  # -o writes the run whole (journal folded in)
        else:
            run = import_file(path, fmt=fmt, name=name, benchmark=benchmark)
            out = Path(output) if output else _run_file_beside(Path(path))
        if out is not None:
            if out.exists() and not force:
                raise UserError(f"{out} exists; pass --force to overwrite it or -o to choose another name")
            write_run(out, run)
        if record:
            source = run.metadata.get("imported_from") or "pairbench"
            notice = record_run(run, history, source="import" if loaded is not None else f"import {source}")
            if notice:
                warn(notice.message)
        to_stdout = out is not None and str(out) == "-"
        what = ("wrote standard output" if to_stdout else f"wrote {out}") if out else f"{path} is a run file"
        recorded = "; recorded in the history" if record else ""
        samples = sum(not s.warmup for s in run.samples)
        # With `-o -` standard output is the run file's alone: the summary goes to stderr.
        print(f"{what}: {_count(len(run.variants), 'variant')}, {_count(len(run.benchmarks), 'benchmark')}, "
              f"{_count(samples, 'sample')}{recorded}", file=sys.stderr if to_stdout else sys.stdout)
    return 0


def _run_file_beside(path: Path) -> Path:
    """FILE's stem + .run.json beside it; for a directory (criterion's), DIR.run.json beside the directory."""
    if path.is_dir():
        resolved = path.resolve()
        return resolved.with_name((resolved.name or "imported") + ".run.json")
    stem = path.name.removesuffix(".gz")  # only the last suffix goes: asv's `COMMIT-py3.11.json` keeps its `.11`
    stem = stem.rsplit(".", 1)[0] if "." in stem.lstrip(".") else stem
    return path.with_name((stem or "imported") + ".run.json")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def write_new_file(path: str, text: str) -> None:
    """Write `text` to `path` through the store's one writer (store/output.py)."""
    from pathlib import Path

    from pairbench.store.output import write_output

    write_output(Path(path), text)
