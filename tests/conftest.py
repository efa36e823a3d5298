"""Shared fixtures. No optional imports at module level."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
USER_DATA_HOME = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
"""The data directory of whoever runs the suite, as it was before the suite started."""


@pytest.fixture(autouse=True, scope="session")
def _own_dirs(tmp_path_factory: pytest.TempPathFactory):
    """Run files a test does not place (no --export-json) go to a data directory of the suite's
    own, not into that of the person running it; temporary files (a failed server's log, a
    killed batch's directory) go under pytest's base directory, which pytest clears, not into
    the machine's /tmp. A test may still set its own."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data-home")))
        mp.setenv("TMPDIR", str(tmp_path_factory.mktemp("tmp")))
        mp.setattr(tempfile, "tempdir", None)  # read TMPDIR again
        yield


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for running `python -m pairbench` from this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["COLUMNS"] = "120"
    env["NO_COLOR"] = "1"
    env.pop("FORCE_COLOR", None)
    if extra:
        env.update(extra)
    return env


def assert_consistent(comparisons) -> None:
    """Fail when any comparison's verdict, CI level and (adjusted) p-value disagree (issue 10 §1),
    or its figures do not match its ratio: `candidate_value / baseline_value` inside the CI (issue 26 §3)."""
    from pairbench.analysis import check_consistent

    problems = check_consistent(comparisons)
    assert not problems, "inconsistent comparisons:\n" + "\n".join(problems)


def _check_run_file(path: Path) -> None:
    from pairbench.store.runfile import load_run

    try:
        run = load_run(path)
    except Exception:  # a deliberately broken or partial file: other tests judge it
        return
    assert_consistent(run.comparisons)


def _default_runs(env: dict[str, str]) -> Path:
    """Where a run goes without --export-json: $XDG_DATA_HOME/pairbench/runs."""
    home = env.get("XDG_DATA_HOME") or os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(home) / "pairbench" / "runs"


def _run_files(folder: Path) -> dict[Path, float]:
    try:
        return {p: p.stat().st_mtime for p in folder.glob("*.json")}
    except OSError:
        return {}


def _check_exported_run(args: tuple[str, ...], cwd: Path, before: dict[Path, float] | None = None,
                        runs: Path | None = None) -> None:
    """Every run file a CLI call wrote, with --export-json or in the default place, must hold
    consistent comparisons."""
    for i, a in enumerate(args[:-1]):
        if a == "--export-json":
            path = Path(args[i + 1])
            path = path if path.is_absolute() else cwd / path
            if path.is_file():
                _check_run_file(path)
    if runs is not None and before is not None:
        for path, mtime in _run_files(runs).items():
            if before.get(path) != mtime:
                _check_run_file(path)


@pytest.fixture
def run_cli(tmp_path: Path):
    """Run the CLI in a subprocess, as a user would; returns the CompletedProcess."""

    def _run(*args: str, timeout: float = 240, cwd: Path | None = None, env: dict[str, str] | None = None,
             input: str | None = None) -> subprocess.CompletedProcess[str]:
        runs = _default_runs(env or {})
        before = _run_files(runs)
        proc = subprocess.run(
            [sys.executable, "-m", "pairbench", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd or tmp_path,
            env=cli_env({"PAIRBENCH_HISTORY": str(tmp_path / "history.sqlite"), **(env or {})}),
            input=input,
        )
        _check_exported_run(args, cwd or tmp_path, before, runs)
        return proc

    return _run
