"""The published schema in a real TOML tool: taplo (the engine of Even Better TOML) reads the
`#:schema` directive docs/suite.md describes, passes the repository's suites and flags a typo."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("taplo") is None, reason="taplo not installed (pip install taplo)")]


def _lint(tmp_path: Path, name: str, body: str) -> subprocess.CompletedProcess[str]:
    shutil.copy(ROOT / "schema" / "pairbench.schema.json", tmp_path / "pairbench.schema.json")
    path = tmp_path / name
    path.write_text("#:schema ./pairbench.schema.json\n" + body, encoding="utf-8")
    return subprocess.run(["taplo", "lint", "--no-auto-config", str(path)], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)


def test_taplo_passes_the_example_suites(tmp_path: Path) -> None:
    for example in sorted((ROOT / "examples").glob("*.toml")):
        proc = _lint(tmp_path, example.name, example.read_text(encoding="utf-8"))
        assert proc.returncode == 0, (example.name, proc.stderr)


def test_taplo_flags_a_misspelt_key_at_its_line(tmp_path: Path) -> None:
    proc = _lint(tmp_path, "bad.toml", '[variants.a]\ncomand = "true"\n\n[benchmarks.x]\ncommand = "{variant}"\n')
    assert proc.returncode == 1
    assert "'comand' was unexpected" in proc.stderr and "bad.toml:3:1" in proc.stderr
