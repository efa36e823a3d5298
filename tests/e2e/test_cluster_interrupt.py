"""A cluster run stopped by a signal keeps the finished blocks of its running units, quietly.

Each benchmark appends a line to a file of its own every time it starts, so the test knows when
its unit has finished a few blocks on the worker without sleeping a fixed time. Every process the
run starts inherits a tag in its environment, so a process left behind is found wherever it went
(the runners start commands in sessions of their own).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import cli_env
from tests.e2e.test_cluster import Cluster, cluster  # noqa: F401 - the fixture

pytestmark = pytest.mark.slow

TAG = "PAIRBENCH_TEST_TAG"
BENCHMARKS = ("a", "b")
WARMUP_STARTS = 2
"""One warm-up per variant (the default) before the first block."""
BLOCKS_BEFORE_STOP = 3


def _suite(tmp: Path) -> tuple[Path, Path]:
    """Two benchmarks of 0.2 s per replicate and far more blocks than a test waits for."""
    marks = tmp / "marks"
    marks.mkdir()
    lines = ['[variants.base]', 'command = "python3 -S"', '[variants.more]', 'command = "python3 -S"']
    for name in BENCHMARKS:
        lines += [f"[benchmarks.{name}]",
                  f"command = '''echo x >> {marks}/{name}; {{variant}} -c \"import time; time.sleep(0.2)\"'''"]
    path = tmp / "suite.toml"
    path.write_text("\n".join(lines) + "\n")
    return marks, path


def _starts(marks: Path, name: str) -> int:
    try:
        return len((marks / name).read_text().splitlines())
    except FileNotFoundError:
        return 0


def _tagged(tag: str) -> set[int]:
    """Live processes (not zombies) whose environment holds the tag."""
    found = set()
    needle = f"{TAG}={tag}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.add(int(entry.name))
    return found


def _left(tag: str, spared: set[int]) -> set[int]:
    """The tagged processes other than `spared`, after a bounded wait for them to go."""
    deadline = time.monotonic() + 15
    left = _tagged(tag) - spared
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = _tagged(tag) - spared
    return left


def _stop_mid_run(tmp: Path, address: str, signals: tuple[signal.Signals, ...], whole_group: bool = True,
                  tag: str | None = None) -> tuple[int, str, str, Path]:
    """Run the suite on `address`, send `signals` once every unit has finished some blocks."""
    marks, suite = _suite(tmp)
    out_file = tmp / "r.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pairbench", "run", str(suite), "--cluster", address, "-r", "200",
         "--no-history", "--export-json", str(out_file), "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env({TAG: tag or str(tmp)}), cwd=tmp,
        start_new_session=True)
    try:
        wanted = WARMUP_STARTS + 2 * BLOCKS_BEFORE_STOP + 1
        deadline = time.monotonic() + 240
        while (time.monotonic() < deadline and proc.poll() is None
               and min(_starts(marks, b) for b in BENCHMARKS) < wanted):
            time.sleep(0.1)
        assert proc.poll() is None, "the run ended before the test stopped it"
        assert min(_starts(marks, b) for b in BENCHMARKS) >= wanted, "the units did not measure their blocks in time"
        for i, sig in enumerate(signals):
            if i:
                time.sleep(0.3)
            if whole_group:
                os.killpg(proc.pid, sig)  # as a terminal does
            else:
                os.kill(proc.pid, sig)  # as `kill PID` does
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, out.decode(), err.decode(), out_file


def _assert_kept_quietly(code: int, expected_code: int, out: str, err: str, out_file: Path) -> None:
    from pairbench.store.runfile import load_run

    assert code == expected_code, out + err
    assert "Traceback" not in err, err
    assert "distributed." not in err and "WARNING" not in err, err
    run = load_run(out_file)
    assert run.status == "interrupted"
    for bench in BENCHMARKS:
        for variant in ("base", "more"):
            measured = [s for s in run.samples if s.benchmark == bench and s.variant == variant
                        and s.metric == "time" and not s.warmup]
            assert len(measured) >= BLOCKS_BEFORE_STOP, (bench, variant, len(measured))
    assert {c.benchmark for c in run.comparisons if c.metric == "time"} == set(BENCHMARKS)  # analysed
    assert "kept in" in err.strip().splitlines()[-1], err


@pytest.mark.parametrize("signals,code", [((signal.SIGINT,), 130), ((signal.SIGINT, signal.SIGINT), 130)],
                         ids=["ctrl-c", "double-ctrl-c"])
def test_ctrl_c_on_a_local_cluster_keeps_the_running_units_blocks(tmp_path: Path, signals, code: int) -> None:
    got, out, err, out_file = _stop_mid_run(tmp_path, "local:2", signals)
    _assert_kept_quietly(got, code, out, err, out_file)
    assert _left(str(tmp_path), set()) == set()  # no scheduler, worker, unit or command left


def test_sigterm_on_a_local_cluster_keeps_the_running_units_blocks(tmp_path: Path) -> None:
    code, out, err, out_file = _stop_mid_run(tmp_path, "local:2", (signal.SIGTERM,), whole_group=False)
    _assert_kept_quietly(code, 143, out, err, out_file)
    assert "SIGTERM" in err
    assert _left(str(tmp_path), set()) == set()


def test_ctrl_c_on_a_scheduler_keeps_the_running_units_blocks(cluster: Cluster, tmp_path: Path) -> None:  # noqa: F811
    tag = str(tmp_path)
    os.environ[TAG] = tag  # the workers started below inherit the tag through cli_env
    try:
        cluster.start(("w1", "w2"))
    finally:
        del os.environ[TAG]
    spared = _tagged(tag)  # the scheduler and the workers themselves, which the test stops
    assert spared
    code, out, err, out_file = _stop_mid_run(tmp_path, cluster.address, (signal.SIGINT,), tag=tag)
    _assert_kept_quietly(code, 130, out, err, out_file)
    assert _left(tag, spared) == set()  # the units' processes and their commands are gone
    assert sorted(cluster.groups_alive()) == ["scheduler", "w1", "w2"]  # the user's cluster goes on
