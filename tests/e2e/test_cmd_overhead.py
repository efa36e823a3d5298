"""What a `cmd` run costs beside the commands it measures: pairbench's own peak memory, and how
each run is started (hyperfine is the yardstick: 2 x 300 runs of /bin/true in ~3.5 MB)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import cli_env

PY = sys.executable
PEAK_LIMIT_KIB = 80 * 1024
"""A generous bound: pairbench's target is 50 MB (docs/measurement.md); it peaked at ~140 MB when the
bootstrap's resampling matrix was built as four float64 copies of 10,000 x n."""

_PEAK = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
assert done.returncode == 0, done.stderr
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _peak_kib(args: list[str], tmp_path: Path, env: dict[str, str] | None = None) -> int:
    """The peak RSS of one pairbench call and every process it waited for (ru_maxrss of the
    children of a fresh wrapper, whose only child is that call)."""
    done = subprocess.run(
        [PY, "-c", _PEAK, PY, "-m", "pairbench", "cmd", *args, "--no-progress",
         "--export-json", str(tmp_path / "r.json")],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
        env=cli_env({"PAIRBENCH_HISTORY": str(tmp_path / "history.sqlite"), **(env or {})}))
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


def test_the_analysis_of_300_blocks_keeps_pairbench_small(tmp_path: Path) -> None:
    """Scripted timings: only the analysis and the reports, where the bootstrap's matrix lives."""
    peak = _peak_kib(["-r", "300", "-w", "0", "a", "b"], tmp_path, {"PAIRBENCH_DEBUG_FAKE": "1,1.05"})
    assert peak < PEAK_LIMIT_KIB, f"{peak / 1024:.0f} MiB"


@pytest.mark.slow
def test_two_times_300_runs_of_true_keep_pairbench_small(tmp_path: Path) -> None:
    peak = _peak_kib(["-N", "-r", "300", "-w", "0", "true", "true"], tmp_path)
    assert peak < PEAK_LIMIT_KIB, f"{peak / 1024:.0f} MiB"


@pytest.mark.slow
def test_every_run_is_forked_by_one_lasting_process(run_cli, tmp_path: Path) -> None:
    """One process start per run, as in hyperfine: the commands are forked by a launcher that
    lives for the whole call, not by a helper started afresh for each run."""
    parents = tmp_path / "parents"
    record = f"sh -c 'echo $PPID >> {parents}'"
    out = run_cli("cmd", "-N", "-r", "4", "-w", "1", record, record, "-n", "a", "-n", "b",
                  "--no-history", "--no-progress", "--export-json", str(tmp_path / "r.json"))
    assert out.returncode == 0, out.stderr
    pids = parents.read_text().split()
    assert len(pids) == 10 and len(set(pids)) == 1, pids
    doc = json.loads((tmp_path / "r.json").read_text())
    assert {v["meta"]["rss_method"] for v in doc["variants"]} == {"exec-helper"}


def test_a_run_imports_no_numpy_ma(tmp_path: Path) -> None:
    """np.median imports numpy.ma (~1.3 MB, ~10 ms) on its first call; the analysis uses its own."""
    seen = tmp_path / "modules"
    code = ("import atexit, runpy, sys\n"
            f"atexit.register(lambda: open({str(seen)!r}, 'w').write(' '.join(sorted(sys.modules))))\n"
            "sys.argv = ['pairbench', 'cmd', '-r', '30', '-w', '1', 'a', 'b', '--no-history', '--no-progress',\n"
            f"            '--export-json', {str(tmp_path / 'r.json')!r}]\n"
            "runpy.run_module('pairbench', run_name='__main__')\n")
    done = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env=cli_env({"PAIRBENCH_DEBUG_FAKE": "1,1.05"}))
    assert done.returncode == 0, done.stderr
    modules = seen.read_text().split()
    assert "pairbench.stats.compare" in modules and "numpy.ma" not in modules
