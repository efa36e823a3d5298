"""The exact-work C loop that bench/calibrate.py, duet.py and instructions.py time and count.

`loop N` runs N iterations of one add the compiler cannot remove, so B = `loop 1.01N` does exactly
1% more work than A: the truth every figure of those scripts is checked against.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

LOOP_C = Path(__file__).resolve().parents[1] / "tests" / "data" / "exact_loop.c"
"""The loop's source, shared with the test suite's exact-work tests."""


def compile_loop(directory: Path) -> Path:
    """The loop built with cc -O1 in `directory`; returns the executable's path."""
    source, exe = directory / "loop.c", directory / "loop"
    source.write_text(LOOP_C.read_text())
    subprocess.run(["cc", "-O1", "-o", str(exe), str(source)], check=True)
    return exe
