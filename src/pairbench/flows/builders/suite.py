"""The builder of a suite's run (`pairbench run`): a suite file loaded and validated, its git variants
built (or found in the build cache), its benchmarks under every point of the matrix.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from pairbench.flows.builders.common import new_run
from pairbench.model import Run
from pairbench.run_settings import SUITE_SETTINGS

__all__ = ["DEFAULT_FILE", "load_suite", "filter_variants", "suite_run", "suite_defaults"]

DEFAULT_FILE = "pairbench.toml"


def suite_defaults(suite: Any) -> dict[str, Any]:
    """The suite file's [defaults] that are set, by RunOptions field: flags left unset take them."""
    d = suite.defaults
    out = {k: getattr(d, k) for k in SUITE_SETTINGS}
    return {k: v for k, v in out.items() if v is not None}


def load_suite(file: str = DEFAULT_FILE, sets: Sequence[str] = (), only: str | None = None) -> Any:
    """The suite of `file` with `--set KEY=VALUE` overrides, its benchmarks selected by `only`;
    without ./pairbench.toml, the overrides alone are the suite."""
    from pathlib import Path

    from pairbench.errors import SuiteError
    from pairbench.suite import load_suite as load, parse_suite, select_benchmarks

    if file == DEFAULT_FILE and not Path(DEFAULT_FILE).exists():
        if sets:  # a suite said entirely on the command line
            return select_benchmarks(parse_suite("", "<command line>", list(sets)), only)
        raise SuiteError(f"no {DEFAULT_FILE} in {Path.cwd()}; name a suite file, write an example with "
                         "`pairbench init`, or describe the suite with --set KEY=VALUE")
    suite = select_benchmarks(load(file, list(sets)), only)
    return suite


def filter_variants(suite: Any, pattern: str | None) -> list[Any]:
    """The matrix points whose name matches `pattern` (comma-separated globs), the baseline always."""
    import fnmatch

    from pairbench.errors import SuiteError

    if not pattern:
        return list(suite.matrix)
    globs = [g.strip() for g in pattern.split(",") if g.strip()]
    kept = [v for v in suite.matrix if v.baseline or any(fnmatch.fnmatchcase(v.name, g) for g in globs)]
    if len(kept) < 2:
        names = [v.name for v in suite.matrix if not v.baseline]
        raise SuiteError(f"--variants {pattern!r} matches no candidate of {suite.path}; candidates: "
                         + ", ".join(names[:20]) + (" ..." if len(names) > 20 else ""))
    return kept


def suite_run(file: str = DEFAULT_FILE, sets: Sequence[str] = (), only: str | None = None,
              variants: str | None = None, cache_dir: str | None = None, say: Callable[[str], None] | None = None,
              build: bool = True) -> tuple[Run, Any]:
    """Load, build and assemble: the Run to execute and the Suite it came from.

    Args:
        file, sets, only: the suite (`load_suite`).
        variants: only the matrix points matching these globs (`filter_variants`).
        cache_dir: where git builds are kept (default $PAIRBENCH_CACHE_DIR or ~/.cache/pairbench).
        say: where build progress and warnings go.
        build: False leaves git variants unbuilt (each cluster worker builds them in its own cache).
    """
    from pathlib import Path

    from pairbench.builds import resolve_builds
    from pairbench.errors import UserError
    from pairbench.suite import suite_record

    suite = load_suite(file, sets, only)
    chosen = filter_variants(suite, variants)
    cache = Path(cache_dir).expanduser() if cache_dir else None
    built, notices = resolve_builds(chosen, cache=cache, progress=say) if build else (chosen, [])
    names = {v.name for v in built}
    baseline = next(v for v in chosen if v.baseline)
    if baseline.name not in names:
        failed = next((n for n in notices if n.kind == "build_failed"), None)
        raise UserError(f"the baseline {baseline.name} could not be built, so nothing can be compared"
                        + (f": {failed.message}" if failed else ""))
    if len(built) < 2:
        raise UserError("every candidate failed to build; nothing to compare:\n"
                        + "\n".join(n.message for n in notices))
    for n in notices:
        if say is not None:
            say(f"warning: {n.message}")
    run = new_run(built, list(suite.benchmarks), suite=suite_record(suite, built))
    run.notices.extend(notices)
    return run, suite
