"""Ruby benchmark directories and globs as `pairbench micro` targets.

ruby/ruby's `benchmark/` holds benchmark_driver `.yml` files and single-run `.rb` scripts side by
side, with helpers in sub-directories (`benchmark/lib/`); benchmark-driver is given
`benchmark/*.yml`. A directory is its top-level `*.yml`, `*.yaml` and `*.rb` files, in name order;
a quoted glob is the Ruby files it matches, so `'benchmark/vm_*.yml'` works without the shell.
"""

from __future__ import annotations

import glob
from pathlib import Path

from pairbench.errors import UserError
from pairbench.suite.pyperformance import is_benchmark_dir

__all__ = ["RUBY_FILE_SUFFIXES", "expand_ruby_target"]

RUBY_FILE_SUFFIXES = (".yml", ".yaml", ".rb")
GLOB_CHARS = "*?["


def _ruby_files(paths: list[Path]) -> list[Path]:
    return sorted(p.resolve() for p in paths if p.is_file() and p.suffix in RUBY_FILE_SUFFIXES)


def _pyperformance(path: Path) -> bool:
    """A pyperformance bm_* directory or a directory of them (a data file in one is no Ruby benchmark)."""
    return is_benchmark_dir(path) or any(c.is_dir() and is_benchmark_dir(c) for c in path.iterdir())


def expand_ruby_target(text: str, ruby: bool) -> list[Path] | None:
    """The Ruby benchmark files a directory or glob names, or None when it names none of them.

    Args:
        text: one `pairbench micro` target.
        ruby: the run is for Ruby (`--ruby` given), so a directory without Ruby files is an
            error here rather than something for the other target forms to try.

    Returns:
        The files, absolute and sorted, or None for a target that is not a Ruby directory or glob.
    """
    if "\n" in text:
        return None
    if any(c in text for c in GLOB_CHARS):
        matches = [Path(m) for m in glob.glob(text)]
        files = _ruby_files(matches)
        if files:
            return files
        # `x[0]` or `a * b` is a statement: only a pattern of Ruby files is an error to miss
        if not matches and text.endswith(RUBY_FILE_SUFFIXES):
            raise UserError(f"{text!r} matches no file; check the directory and the pattern")
        return None
    path = Path(text)
    if not path.is_dir() or _pyperformance(path):
        return None
    files = _ruby_files(list(path.iterdir()))
    if not files and ruby:
        raise UserError(f"{path}: no benchmark files (*.yml or *.rb) at its top level; give Ruby's benchmark/ "
                        "directory or the files themselves")
    return files or None
