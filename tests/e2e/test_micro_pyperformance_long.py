"""`pairbench micro` on pyperformance benchmarks whose one operation lasts seconds (asyncio_tcp,
bpe_tokeniser) and on directories of many benchmarks (async_tree), real interpreters."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pairbench.store.runfile import load_run

PY = sys.executable
SMALLEST = ["--runs", "1", "--samples", "2", "--warmup-samples", "0", "--target-time", "0.01", "--no-alloc"]

# bm_asyncio_tcp's shape: a bench_async_func whose one operation is a transfer over a loopback
# server the coroutine starts itself, far longer than the target time (a nap makes sure of it).
# Each operation writes its process id to PB_LOG, so the test counts operations per process.
LONG_TCP = '''
import asyncio, os
from pyperf import Runner

CHUNK = 1024 * 256

async def handle(reader, writer):
    for _ in range(8):
        writer.write(b"x" * CHUNK)
        await writer.drain()
    writer.close()
    await writer.wait_closed()

async def main(nap):
    with open(os.environ["PB_LOG"], "a") as log:
        log.write("%d\\n" % os.getpid())
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        got = 0
        while True:
            data = await reader.read(CHUNK)
            if not data:
                break
            got += len(data)
        assert got == 8 * CHUNK
        writer.close()
        await writer.wait_closed()
    await asyncio.sleep(nap)

if __name__ == "__main__":
    runner = Runner()
    runner.bench_async_func("long_tcp", main, 0.2)
'''


# bm_bpe_tokeniser's and bm_mdp's shape: bench_time_func, seconds per loop, the script timing itself.
LONG_TIME_FUNC = '''
import os, time
import pyperf

def train(loops, nap):
    with open(os.environ["PB_LOG"], "a") as log:
        log.write("%d\\n" % os.getpid())
    t0 = pyperf.perf_counter()
    for _ in range(loops):
        time.sleep(nap)
    return pyperf.perf_counter() - t0

if __name__ == "__main__":
    runner = pyperf.Runner()
    runner.bench_time_func("long_time_func", train, 0.2)
'''


def ops_per_process(log: Path) -> list[int]:
    """Operations each worker process ran, in the order the processes started."""
    pids = log.read_text().split()
    return list(Counter(pids).values())  # Counter keeps first-seen order


@pytest.mark.slow
@pytest.mark.parametrize("script", [LONG_TCP, LONG_TIME_FUNC], ids=["bench_async_func", "bench_time_func"])
def test_an_operation_longer_than_the_target_runs_once_to_calibrate_and_once_per_sample(
        run_cli: Any, tmp_path: Path, script: str) -> None:
    path = tmp_path / "long.py"
    path.write_text(script)
    log = tmp_path / "ops.log"
    out = tmp_path / "run.json"
    proc = run_cli("micro", str(path), "--python", f"env PB_LOG={log} {PY}", *SMALLEST,
                   "--export-json", str(out), "--no-history")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # As pyperf calibrates: one loop that already lasts longer than the target time is the
    # answer (1 loop); running it twice more only multiplies a seconds-long operation by three.
    calibration, *measured = ops_per_process(log)
    assert calibration == 1, ops_per_process(log)
    # --samples 2, no warm-up sample: no extra call to see what the function returns (pyperf
    # checks the value its loop returned; a probe call would add one more seconds-long op)
    assert measured == [2]
    run = load_run(out)
    assert run.benchmarks[0].options["loops"] == 1
    times = [s.value for s in run.samples if s.metric == "time_per_op" and not s.warmup]
    assert len(times) == 2 and min(times) >= 0.2  # the nap is awaited: the op is timed, wall clock


TREE = '''
import argparse, os, time
import pyperf

def work(loops, kind):
    with open(os.environ["PB_LOG"], "a") as log:
        log.write("%s\\n" % kind)
    t0 = pyperf.perf_counter()
    for _ in range(loops):
        time.sleep(0.05)
    return pyperf.perf_counter() - t0

if __name__ == "__main__":
    runner = pyperf.Runner()
    runner.argparser.add_argument("kind")
    args = runner.parse_args()
    runner.bench_time_func("tree_" + args.kind, work, args.kind)
'''


def tree_directory(root: Path) -> Path:
    """bm_async_tree's shape: one script, a pyproject.toml and metafiles, one of them for a
    Python newer than any here (its `requires-python`, as bm_async_tree_eager*.toml's >=3.12)."""
    d = root / "bm_tree"
    d.mkdir(parents=True)
    (d / "run_benchmark.py").write_text(TREE)
    (d / "pyproject.toml").write_text('[project]\nname = "bm_tree"\nrequires-python = ">=3.8"\n\n'
                                      '[tool.pyperformance]\nname = "tree"\nextra_opts = ["plain"]\n')
    (d / "bm_tree_future.toml").write_text('[project]\nrequires-python = ">=3.99"\n\n'
                                           '[tool.pyperformance]\nname = "tree_future"\nextra_opts = ["future"]\n')
    (d / "bm_tree_tg.toml").write_text('[project]\nrequires-python = ">=3.8, !=3.0.*"\n\n'
                                       '[tool.pyperformance]\nname = "tree_tg"\nextra_opts = ["tg"]\n')
    return d


@pytest.mark.slow
def test_a_metafile_for_a_newer_python_is_refused_on_this_one_without_running_it(run_cli: Any,
                                                                                 tmp_path: Path) -> None:
    d = tree_directory(tmp_path / "benchmarks")
    log = tmp_path / "ops.log"
    out = tmp_path / "run.json"
    proc = run_cli("micro", str(d), "--python", f"env PB_LOG={log} {PY}", "--python", f"env PB_LOG={log} {PY}",
                   "--name", "a", "--name", "b", *SMALLEST, "--export-json", str(out), "--no-history")
    text = " ".join((proc.stdout + proc.stderr).split())
    assert proc.returncode == 0, text
    assert "Traceback" not in text
    # as `pyperformance run` skips it: never run, so nothing of another Python's code is timed
    assert "future" not in log.read_text().split(), log.read_text()
    version = ".".join(map(str, sys.version_info[:3]))
    assert (f"micro benchmark 'tree_future' on variant 'a': needs Python >=3.99 (requires-python of "
            f"bm_tree_future.toml); this interpreter is {version}") in text, text
    run = load_run(out)
    measured = {(s.benchmark, s.variant) for s in run.samples if s.metric == "time_per_op" and not s.warmup}
    assert measured == {(b, v) for b in ("tree", "tree_tg") for v in ("a", "b")}, measured
    # each benchmark costs one calibration loop and its samples, nothing more
    assert sorted(log.read_text().split()) == sorted(["plain"] * 5 + ["tg"] * 5)


def test_a_requires_python_that_does_not_parse_is_one_line_naming_the_file(run_cli: Any, tmp_path: Path) -> None:
    d = tree_directory(tmp_path / "benchmarks")
    (d / "bm_tree_tg.toml").write_text('[project]\nrequires-python = "three point twelve"\n\n'
                                       '[tool.pyperformance]\nname = "tree_tg"\n')
    proc = run_cli("micro", str(d), "--python", PY, "--python", PY)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    (line,) = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert "bm_tree_tg.toml" in line and "requires-python 'three point twelve'" in line, proc.stderr
