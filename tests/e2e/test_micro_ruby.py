"""`pairbench micro` on the shapes of ruby/ruby's benchmark directory, with the real Ruby.

The files are written here in the shapes of ruby/ruby's benchmark/*.yml and *.rb (benchmark_driver's
format), not copied from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_micro import flat, geo_ratio, need, per_process, run_micro

FIB_SCRIPT = '''
def fib(n)
  n < 2 ? n : fib(n - 1) + fib(n - 2)
end

puts fib(Integer(ENV.fetch("PB_FIB")))
'''


def samples_per_process(run: Any, bench: str, variant: str) -> list[int]:
    counts: dict[tuple[int, int], int] = {}
    for s in run.samples:
        if s.benchmark == bench and s.variant == variant and s.metric == "time_per_op" and not s.warmup:
            counts[(s.block, s.replicate)] = counts.get((s.block, s.replicate), 0) + 1
    return list(counts.values())


@pytest.mark.slow
def test_a_rb_file_is_a_script_run_once_per_process_in_each_ruby(run_cli: Any, tmp_path: Path) -> None:
    need("ruby")
    path = tmp_path / "app_fib.rb"
    path.write_text(FIB_SCRIPT)
    proc, run = run_micro(run_cli, tmp_path, str(path), "--ruby", "env PB_FIB=19 ruby", "--ruby",
                          "env PB_FIB=23 ruby", "--name", "small", "--name", "large", runs=4)
    (bench,) = run.benchmarks
    assert bench.name == "app_fib"
    assert bench.options["script"] is True and bench.options["loops"] == 1
    for v in ("small", "large"):
        # one run of the script is one sample of one process, as benchmark_driver counts it
        assert samples_per_process(run, "app_fib", v) == [1, 1, 1, 1], v
    # fib(23) makes 1.618^4 = 6.9 times the calls of fib(19): each variant ran its own script
    assert geo_ratio(run, "app_fib", "large", "small") > 3
    assert "failed" not in flat(proc)
