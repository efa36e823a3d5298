"""A suite on a real Dask cluster: a `dask scheduler` and two `dask worker` processes on 127.0.0.1.

Every process is started in its own session and stopped by its process group, so a test that
fails leaves nothing behind. The workers get distinct machine names through PAIRBENCH_MACHINE.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from tests.conftest import cli_env

pytestmark = pytest.mark.slow

WORK = ("{variant} -c \"import os; n = int(os.environ.get('WORK', '10')); "
        "n = 20 - n if %s else n; sum(range(n * 300000))\"")
"""About 60 ms of work at WORK=10; the candidate does 30% more (up) or 30% less (down)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


class Cluster:
    """A scheduler and named workers, each its own process group."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.port = _free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def _start(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> None:
        with open(self.tmp / f"{name}.log", "wb") as log:  # the child keeps its own descriptor
            self.procs[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                env=cli_env(env), cwd=self.tmp, start_new_session=True)

    def start(self, workers: tuple[str, ...]) -> None:
        dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
        self._start("scheduler", [*dask, "--host", "127.0.0.1", "--port", str(self.port), "--no-dashboard"])
        for w in workers:
            (self.tmp / w).mkdir()
            self._start(w, [sys.executable, "-m", "distributed.cli.dask_worker", self.address, "--name", w,
                            "--nthreads", "1", "--nworkers", "1", "--resources", "bench=1", "--no-dashboard",
                            "--local-directory", str(self.tmp / w)],
                        {"PAIRBENCH_MACHINE": w, "XDG_CACHE_HOME": str(self.tmp / w)})
        from distributed import Client

        with Client(self.address, timeout=60) as client:
            client.wait_for_workers(len(workers), timeout=120)

    def kill(self, name: str) -> None:
        proc = self.procs[name]
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)

    def stop(self) -> None:
        for name, proc in reversed(list(self.procs.items())):
            if _group_alive(proc.pid):
                os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 20
        for proc in self.procs.values():
            while _group_alive(proc.pid) and time.monotonic() < deadline:
                proc.poll()
                time.sleep(0.1)
            if _group_alive(proc.pid):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)

    def groups_alive(self) -> list[str]:
        return [n for n, p in self.procs.items() if _group_alive(p.pid)]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path)
    try:
        yield c
    finally:
        c.stop()
    assert c.groups_alive() == []


def _suite(tmp: Path, extra: str = "") -> Path:
    lines = ['[variants.base]', 'command = "python3 -S"', '[variants.more]', 'command = "python3 -S"',
             'env = { WORK = "13" }']
    for name, invert in (("up1", "False"), ("up2", "False"), ("down1", "True"), ("down2", "True")):
        lines += [f"[benchmarks.{name}]", "command = '''" + WORK % invert + "'''"]
    path = tmp / "suite.toml"
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


def _suite_with_slow(tmp: Path, seconds: float) -> tuple[Path, Path]:
    """The suite plus a benchmark `slow` that leaves a file named for its machine when it starts."""
    marks = tmp / "marks"
    marks.mkdir()
    q = "'''"
    slow = (f"[benchmarks.slow]\ncommand = {q}touch {marks}/$PAIRBENCH_MACHINE; "
            f"{{variant}} -c \"import time; time.sleep({seconds})\"{q}\n")
    return marks, _suite(tmp, slow)


def _verdicts(path: Path) -> dict[str, tuple[str, float]]:
    """Each benchmark's wall-time verdict, and its ratio of CPU time (user): the work's own change.

    Wall time on a loaded 2-core machine running two workers grows with every wait for a core; one
    run read a +30% change at 0.993. The CPU time the command used holds its side of 1 under load."""
    from pairbench.store.runfile import load_run

    run = load_run(path)
    verdicts = {c.benchmark: c.verdict for c in run.comparisons if c.metric == "time"}
    return {c.benchmark: (verdicts[c.benchmark], c.ratio) for c in run.comparisons if c.metric == "user"}


def test_a_suite_on_two_workers_matches_the_local_run(cluster: Cluster, run_cli, tmp_path: Path) -> None:
    cluster.start(("w1", "w2"))
    suite = _suite(tmp_path)
    history = tmp_path / "team.sqlite"
    r = run_cli("run", str(suite), "--cluster", cluster.address, "-r", "10", "--history", str(history),
                "--export-json", "cluster.json", "--no-progress", timeout=400)
    assert r.returncode == 0, r.stdout + r.stderr
    local = run_cli("run", str(suite), "-r", "10", "--no-history", "--export-json", "local.json", "--no-progress",
                    timeout=400)
    assert local.returncode == 0, local.stdout + local.stderr

    from pairbench.store.runfile import load_run

    run = load_run(tmp_path / "cluster.json")
    machines = {s.machine for s in run.samples}
    assert machines == {"w1", "w2"}
    # every unit ran once, whole, on one machine: each benchmark's samples carry one machine
    per_bench = {b.name: {s.machine for s in run.samples if s.benchmark == b.name} for b in run.benchmarks}
    assert all(len(m) == 1 for m in per_bench.values()), per_bench
    counts = {b: sum(1 for s in run.samples if s.benchmark == b and s.metric == "time" and not s.warmup)
              for b in per_bench}
    assert counts == {b: 20 for b in per_bench}  # 10 blocks x 2 variants, not more: no unit ran twice
    assert sorted(run.metadata["machines"]) == ["w1", "w2"]
    assert "measured on 2 machines" in r.stdout + r.stderr

    with sqlite3.connect(history) as db:
        stored = db.execute("select count(*) from samples").fetchone()[0]
    assert stored == len(run.samples)

    # the same answers as the suite measured here: each ratio on the side of its known ±30% change,
    # and no verdict that contradicts it (a loaded machine may leave one inconclusive, never reversed)
    expected = {"up1": "slower", "up2": "slower", "down1": "faster", "down2": "faster"}
    opposite = {"slower": "faster", "faster": "slower"}
    for name, verdicts in (("cluster", _verdicts(tmp_path / "cluster.json")), ("local", _verdicts(tmp_path / "local.json"))):
        assert set(verdicts) == set(expected), (name, verdicts)
        for bench, (verdict, ratio) in verdicts.items():
            assert (ratio > 1) == (expected[bench] == "slower"), (name, bench, verdict, ratio)
            assert verdict != opposite[expected[bench]], (name, bench, verdict, ratio)


def test_a_worker_killed_mid_unit_has_its_unit_rerun_and_nothing_else_lost(cluster: Cluster, tmp_path: Path) -> None:
    cluster.start(("w1", "w2"))
    marks, suite = _suite_with_slow(tmp_path, 0.3)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pairbench", "run", str(suite), "--cluster", cluster.address, "-r", "6",
         "--no-history", "--export-json", str(tmp_path / "r.json"), "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(), cwd=tmp_path, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while not any(marks.iterdir()) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        victims = [p.name for p in marks.iterdir()]
        assert victims, "the slow benchmark never started"
        victim = victims[0]
        cluster.kill(victim)
        out, err = proc.communicate(timeout=400)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, out.decode() + err.decode()

    from pairbench.store.runfile import load_run

    run = load_run(tmp_path / "r.json")
    slow_machines = {s.machine for s in run.samples if s.benchmark == "slow"}
    survivor = ({"w1", "w2"} - {victim}).pop()
    assert slow_machines == {survivor}  # rerun on the other worker; the killed one's samples never arrived
    assert sum(1 for s in run.samples if s.benchmark == "slow" and s.metric == "time" and not s.warmup) == 12
    assert {b.name for b in run.benchmarks} == {s.benchmark for s in run.samples}  # nothing else lost
    assert cluster.groups_alive() == [n for n in cluster.procs if n != victim]


def test_an_unreachable_scheduler_is_one_line_before_anything_runs(run_cli, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    suite = tmp_path / "s.toml"
    suite.write_text(f'[variants.a]\ncommand = "true"\n[variants.b]\ncommand = "true"\n'
                     f'[benchmarks.x]\ncommand = "touch {marker}; {{variant}}"\n')
    r = run_cli("run", str(suite), "--cluster", f"tcp://127.0.0.1:{_free_port()}", "--no-history", timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:"), lines
    assert not marker.exists()


def test_a_refused_scheduler_port_is_said_at_once_not_after_the_connect_timeout(run_cli, tmp_path: Path) -> None:
    """Nothing listens: the refusal is final, so waiting out Dask's connect timeout tells nothing."""
    from pairbench.cluster.client import CONNECT_TIMEOUT_S

    suite = tmp_path / "s.toml"
    suite.write_text('[variants.a]\ncommand = "true"\n[variants.b]\ncommand = "true"\n[benchmarks.x]\ncommand = "{variant}"\n')
    started = time.monotonic()
    r = run_cli("run", str(suite), "--cluster", f"tcp://127.0.0.1:{_free_port()}", "--no-history", timeout=120)
    took = time.monotonic() - started
    assert r.returncode == 1 and "connection refused" in r.stderr, r.stderr
    assert took < 0.7 * CONNECT_TIMEOUT_S, took


def _unit_processes(pgid: int) -> list[int]:
    """PIDs in the group `pgid` that measure a unit (python -m pairbench.cluster.worker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rpartition(")")[2].split()[2]) == pgid and b"pairbench.cluster.worker" in cmdline:
            found.append(int(entry.name))
    return found


def test_ctrl_c_stops_the_queued_and_running_units_and_keeps_the_finished(cluster: Cluster, tmp_path: Path) -> None:
    cluster.start(("w1", "w2"))
    marks, suite = _suite_with_slow(tmp_path, 2)
    out_file = tmp_path / "r.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pairbench", "run", str(suite), "--cluster", cluster.address, "-r", "6",
         "--no-history", "--export-json", str(out_file), "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(), cwd=tmp_path, start_new_session=True)
    from pairbench.store.runfile import load_run

    try:
        deadline = time.monotonic() + 180
        finished = 0
        while time.monotonic() < deadline and proc.poll() is None and not (finished and any(marks.iterdir())):
            time.sleep(0.2)
            if out_file.exists():
                try:
                    finished = len(load_run(out_file).samples)
                except Exception:  # noqa: BLE001 - caught mid-write
                    finished = 0
        assert finished and any(marks.iterdir()), "no unit finished while the slow one ran"
        victim = next(marks.iterdir()).name
        os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, out.decode() + err.decode()
    assert "units finished" in err.decode() and "kept in" in err.decode()
    run = load_run(out_file)
    assert run.status == "interrupted"
    counts = {b: sum(1 for s in run.samples if s.benchmark == b and s.metric == "time" and not s.warmup)
              for b in {s.benchmark for s in run.samples}}
    stopped = {b for b, told in run.metadata["unit_stops"].items() if told["stop"] == "interrupted"}
    assert "slow" in stopped, run.metadata["unit_stops"]
    assert any(b not in stopped for b in counts), counts
    for bench, n in counts.items():  # finished units whole; the running ones with the blocks they finished
        assert n < 12 if bench in stopped else n == 12, (bench, counts, stopped)
    worker_group = cluster.procs[victim].pid
    deadline = time.monotonic() + 30
    while _unit_processes(worker_group) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _unit_processes(worker_group) == []  # the running unit was told to stop


def test_each_machine_compares_per_machine_and_says_where_the_machines_disagree(cluster: Cluster, run_cli,
                                                                                tmp_path: Path) -> None:
    cluster.start(("w1", "w2"))
    # the candidate does twice the work on w1 and half of it on w2: one change, two answers
    work = ("{variant} -c \"import os; n = int(os.environ.get('WORK', '10')); "
            "n = 30 - n if os.environ['PAIRBENCH_MACHINE'] == 'w2' else n; sum(range(n * 400000))\"")
    suite = tmp_path / "suite.toml"
    suite.write_text('[variants.base]\ncommand = "python3 -S"\n[variants.more]\ncommand = "python3 -S"\n'
                     'env = { WORK = "20" }\n' + f"[benchmarks.mixed]\ncommand = '''{work}'''\n")
    r = run_cli("run", str(suite), "--cluster", cluster.address, "--each-machine", "-r", "10", "--no-history",
                "--export-json", "r.json", "--no-progress", timeout=400)
    assert r.returncode == 0, r.stdout + r.stderr
    from pairbench.store.runfile import load_run

    run = load_run(tmp_path / "r.json")
    assert [b.name for b in run.benchmarks] == ["mixed @ w1", "mixed @ w2"]
    assert {s.benchmark: s.machine for s in run.samples} == {"mixed @ w1": "w1", "mixed @ w2": "w2"}
    verdicts = {c.benchmark: c.verdict for c in run.comparisons if c.metric == "time"}
    assert verdicts == {"mixed @ w1": "slower", "mixed @ w2": "faster"}
    told = [n.message for n in run.notices if n.kind == "machines-disagree" and ", time:" in n.message]
    assert told == ["more vs the baseline, time: the machines disagree — slower on w1; faster on w2"]
    assert "the machines disagree" in r.stdout + r.stderr


def test_profile_on_two_workers_places_the_difference_as_a_local_run_does(cluster: Cluster, run_cli,
                                                                          tmp_path: Path) -> None:
    """`--profile` on real workers: each unit's profiling blocks run on its machine beside its timed
    blocks, their stacks come back with its run file, and the merged run's "where" table puts the
    slowed function first (a Python program under py-spy, a C one under perf or callgrind)."""
    if shutil.which("py-spy") is None or shutil.which("gcc") is None:
        pytest.skip("py-spy and gcc are needed")
    data = Path(__file__).resolve().parents[1] / "data" / "profile"
    exe = tmp_path / "shift"
    subprocess.run(["gcc", "-O1", "-fno-omit-frame-pointer", "-o", str(exe), str(data / "shift.c")], check=True)
    suite = tmp_path / "suite.toml"
    suite.write_text("[variants.base]\ncommand = 'base'\n[variants.slower]\ncommand = 'slower'\n"
                     f"[benchmarks.py]\ncommand = '{sys.executable} {data / 'shift.py'} {{variant}} 1500000'\n"
                     f"[benchmarks.c]\ncommand = '{exe} {{variant}} 20000000'\n")
    cluster.start(("w1", "w2"))
    r = run_cli("run", str(suite), "--cluster", cluster.address, "-r", "6", "-w", "0", "--profile",
                "--profile-blocks", "3", "--no-history", "--export-json", "r.json", "--no-progress", timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stderr, r.stderr

    from pairbench.analysis.profiles import profile_differences
    from pairbench.store.runfile import load_run

    run = load_run(tmp_path / "r.json")
    # the timed blocks as without --profile: 6 blocks x 2 variants per benchmark, nothing added
    counts = {b: sum(1 for s in run.samples if s.benchmark == b and s.metric == "time" and not s.warmup)
              for b in ("py", "c")}
    assert counts == {"py": 12, "c": 12}, counts
    assert {(p.benchmark, p.variant, p.block) for p in run.profiles} == {
        (b, v, k) for b in ("py", "c") for v in ("base", "slower") for k in range(3)}
    assert {p.sampler for p in run.profiles if p.benchmark == "py"} == {"py-spy"}
    assert run.profile_differences == profile_differences(run)  # stored like a local run's
    tops = {d.benchmark: d.added(1)[0].frame for d in run.profile_differences}
    assert tops == {"py": "work (shift.py)", "c": "work"}, r.stdout
    text = " ".join(r.stdout.split())
    for bench in ("py", "c"):
        assert f"where: slower vs base ({bench})" in text, r.stdout
