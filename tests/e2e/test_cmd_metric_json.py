"""`cmd --metric-json pyperf`: a real pyperf benchmark script, its JSON read with no regex."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from pairbench.store.runfile import load_run

BENCH = '''
import pyperf


def add_cmdline_args(cmd, args):
    cmd.extend(("--n", str(args.n)))  # pyperf's workers get the benchmark's own option too


runner = pyperf.Runner(add_cmdline_args=add_cmdline_args)
runner.argparser.add_argument("--n", type=int, required=True)
args = runner.parse_args()
runner.bench_func("sum_range", sum, range(args.n))
'''


@pytest.mark.slow
def test_pyperf_json_is_read_as_a_metric_per_benchmark(run_cli: Any, tmp_path: Path) -> None:
    script = tmp_path / "bm_sum.py"
    script.write_text(BENCH)
    pyperf_flags = "--processes 1 --values 3 --warmups 1 --min-time 0.005 --quiet"
    command = f'{sys.executable} {script} {pyperf_flags} -o "$PAIRBENCH_METRIC_JSON"'
    out = tmp_path / "run.json"
    proc = run_cli("cmd", f"{command} --n 2000", f"{command} --n 16000", "-n", "small", "-n", "large",
                   "--metric-json", "pyperf", "--runs", "3", "--export-json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = load_run(out)
    per_variant = {v: [s.value for s in run.samples if s.metric == "sum_range" and s.variant == v and not s.warmup]
                   for v in ("small", "large")}
    assert all(len(vs) == 3 for vs in per_variant.values()), per_variant
    # seconds per call of sum(range(n)): microseconds, and 8x the items cost several times more
    assert all(1e-7 < v < 1e-2 for vs in per_variant.values() for v in vs), per_variant
    assert min(per_variant["large"]) / max(per_variant["small"]) > 3, per_variant
    (c,) = [c for c in run.comparisons if c.metric == "sum_range"]
    assert c.ratio is not None and c.ratio > 3


@pytest.mark.slow
def test_a_command_that_writes_no_json_is_one_error_line(run_cli: Any, tmp_path: Path) -> None:
    proc = run_cli("cmd", "true", "sleep 0", "--metric-json", "pyperf", "--runs", "2")
    assert proc.returncode == 1
    (line,) = proc.stderr.strip().splitlines()
    assert "wrote no pyperf JSON to $PAIRBENCH_METRIC_JSON" in line and "Traceback" not in proc.stderr
