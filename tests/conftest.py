"""Shared fixtures. No optional imports at module level."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"


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


@pytest.fixture
def run_cli(tmp_path: Path):
    """Run the CLI in a subprocess, as a user would; returns the CompletedProcess."""

    def _run(*args: str, timeout: float = 240, cwd: Path | None = None, env: dict[str, str] | None = None,
             input: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pairbench", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd or tmp_path,
            env=cli_env({"PAIRBENCH_HISTORY": str(tmp_path / "history.sqlite"), **(env or {})}),
            input=input,
        )

    return _run
