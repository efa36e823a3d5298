"""A machine without scipy runs every measuring path: scipy is blocked at import, and `micro` and
`cmd` still finish with a verdict and never load it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import cli_env

# A meta-path finder that refuses scipy, as on an install without it; the script reports whether
# any scipy module was loaded anyway and the exit code of the run.
BLOCKED_RUN = """
import sys
class _NoScipy:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] == 'scipy':
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None
sys.meta_path.insert(0, _NoScipy())
from pairbench.cli import main
code = main(sys.argv[1:])
print('SCIPY' if any(m.split('.')[0] == 'scipy' for m in sys.modules) else 'CLEAN', code)
"""


def _run_blocked(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", BLOCKED_RUN, *argv], capture_output=True, text=True,
                          timeout=240, cwd=tmp_path, env=cli_env(), check=False)


@pytest.mark.slow
def test_micro_runs_and_reports_without_scipy(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    proc = _run_blocked(tmp_path, "micro", "-s", "d = {}", "d['a'] = 1", "--python", sys.executable,
                        "--python", sys.executable, "--samples", "3", "--warmup-samples", "1",
                        "--target-time", "0.01", "--runs", "3", "--seed", "1", "--no-history",
                        "--no-progress", "--export-json", str(out))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stdout.split()[-2:] == ["CLEAN", "0"], proc.stdout[-2000:]
    from pairbench.store.runfile import load_run

    run = load_run(out)
    (c,) = [c for c in run.comparisons if c.metric == "time_per_op"]
    assert c.ratio is not None and c.ci is not None and c.ci[0] <= c.ratio <= c.ci[1], c


@pytest.mark.slow
def test_cmd_runs_without_scipy(tmp_path: Path) -> None:
    proc = _run_blocked(tmp_path, "cmd", "true", "true ", "-r", "4", "-w", "0", "--no-history", "--no-progress")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stdout.split()[-2:] == ["CLEAN", "0"], proc.stdout[-2000:]
