"""SIGINT, SIGTERM, SIGHUP and a second signal mid-run, for cmd, http and micro, on real processes.

Each run is stopped while it measures (at least two blocks done). What must hold: the documented
exit code (128 + the signal), one clear line on stderr and no traceback, the results printed, the
run file "interrupted" with its comparisons, and no process of the run left: none in pairbench's
own process group, and none carrying the run's environment marker (the commands and servers start
their own sessions, so the marker is what finds them).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from pairbench.runners.http.processes import group_processes
from tests.conftest import cli_env

pytestmark = pytest.mark.slow

MARK = "PAIRBENCH_TEST_RUN_MARK"

# A keep-alive HTTP/1.1 server (a thread per connection) that appends its pid to a file when it starts serving.
APP = r"""
import os, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "3"); self.end_headers(); self.wfile.write(b"ok\n")
    def log_message(self, *a): pass
server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H)
with open(sys.argv[2], "a") as f:
    f.write(f"{os.getpid()}\n")
server.serve_forever()
"""


def _marked_processes(mark: str) -> list[int]:
    """Live processes whose environment carries `mark` (every descendant of the run inherits it)."""
    needle = f"{MARK}={mark}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read()
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        if needle in env.split(b"\0") and stat[stat.rfind(b")") + 2:].split()[0] != b"Z":
            found.append(int(name))
    return found


def _start(args: list[str], tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    mark = uuid.uuid4().hex
    env = cli_env({MARK: mark, "PAIRBENCH_HISTORY": str(tmp_path / "history.sqlite")})
    proc = subprocess.Popen(
        [sys.executable, "-m", "pairbench", *args, "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
        start_new_session=True,
    )
    return proc, mark


def _wait_lines(path: Path, n: int, proc: subprocess.Popen[str], timeout: float = 120) -> None:
    """Wait until `path` lists `n` distinct process ids (starts of commands, servers or workers)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and len(set(path.read_text().split())) >= n:
            return
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    out, err = proc.communicate(timeout=30) if proc.poll() is None else (proc.stdout.read(), proc.stderr.read())
    raise AssertionError(f"the run never reached {n} starts: {out}\n{err}")


def _stop(proc: subprocess.Popen[str], signals: list[int], mark: str) -> tuple[str, str]:
    try:
        for i, sig in enumerate(signals):
            if i:
                time.sleep(0.15)
            proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    deadline = time.monotonic() + 10  # a SIGKILLed group member may take a moment to be reaped
    while time.monotonic() < deadline and (_marked_processes(mark) or group_processes(proc.pid)):
        time.sleep(0.05)
    assert group_processes(proc.pid) == []
    assert _marked_processes(mark) == []
    return out, err


def _assert_interrupted(proc: subprocess.Popen[str], out: str, err: str, sig: int, run_file: Path) -> dict:
    assert proc.returncode == 128 + sig, (out, err)
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[-1].startswith(f"interrupted by {signal.Signals(sig).name} after "), err
    assert "samples kept in" in lines[-1]
    doc = json.loads(run_file.read_text())
    assert doc["status"] == "interrupted"
    assert doc["comparisons"], "the interrupted run was not analysed"
    assert "run interrupted" in out  # the results were printed, marked as partial
    return doc


def _cmd_args(tmp_path: Path, starts: Path, run_file: Path) -> list[str]:
    # Runs 1-7 are quick; from the 8th (two blocks and the warm-ups done) every run sleeps long.
    cmd = (f"echo $$ >> {starts}; n=$(wc -l < {starts}); "
           "if [ $n -ge 8 ]; then sleep 120; else sleep 0.02; fi")
    return ["cmd", cmd, f"{cmd} # b", "-r", "20", "-w", "1", "--export-json", str(run_file), "--no-history"]


@pytest.mark.parametrize("signals", [[signal.SIGTERM], [signal.SIGINT, signal.SIGINT], [signal.SIGHUP]],
                         ids=["sigterm", "double-sigint", "sighup"])
def test_cmd_stopped_by_a_signal_keeps_and_analyses_what_was_measured(tmp_path: Path, signals: list[int]) -> None:
    starts, run_file = tmp_path / "starts", tmp_path / "run.json"
    proc, mark = _start(_cmd_args(tmp_path, starts, run_file), tmp_path)
    _wait_lines(starts, 8, proc)
    time.sleep(0.3)  # inside the long run
    out, err = _stop(proc, signals, mark)
    doc = _assert_interrupted(proc, out, err, signals[0], run_file)
    blocks = {s["block"] for s in doc["samples"] if s["metric"] == "time" and not s.get("warmup")}
    assert len(blocks) >= 2


def test_second_signal_while_a_server_ignores_sigterm_still_analyses(tmp_path: Path) -> None:
    """The first SIGTERM stops the load; the server ignores its own SIGTERM, so stopping it waits out
    the grace period; a second signal cuts that wait short, and the analysis still happens."""
    app, starts, run_file = tmp_path / "app.py", tmp_path / "starts", tmp_path / "run.json"
    # From its 5th start on (two blocks done), the server ignores SIGTERM.
    app.write_text("import os, signal, sys\n"
                   "if os.path.exists(sys.argv[2]) and len(open(sys.argv[2]).read().split()) >= 4:\n"
                   "    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" + APP)
    server = f"{sys.executable} {app} {{port}} {starts}"
    proc, mark = _start(["http", "--server", server, "--server", server + " #2", "--name", "a", "--name", "b",
                         "--url", "/", "--duration", "0.4", "--warmup-time", "0", "-r", "30", "--grace", "30",
                         "--export-json", str(run_file), "--no-history"], tmp_path)
    _wait_lines(starts, 5, proc)
    time.sleep(0.2)
    started = time.monotonic()
    out, err = _stop(proc, [signal.SIGTERM, signal.SIGTERM], mark)
    assert time.monotonic() - started < 25, "the second signal did not cut the 30 s grace period"
    _assert_interrupted(proc, out, err, signal.SIGTERM, run_file)


def test_http_on_the_event_loop_stopped_by_sigterm(tmp_path: Path) -> None:
    """Two connections run on the event loop, whose own handlers must hand the signal back."""
    app, starts, run_file = tmp_path / "app.py", tmp_path / "starts", tmp_path / "run.json"
    app.write_text(APP)
    server = f"{sys.executable} {app} {{port}} {starts}"
    proc, mark = _start(["http", "--server", server, "--server", server + " #2", "--name", "a", "--name", "b",
                         "--url", "/", "--duration", "0.4", "--warmup-time", "0", "-c", "2", "-r", "30",
                         "--export-json", str(run_file), "--no-history"], tmp_path)
    _wait_lines(starts, 5, proc)
    time.sleep(0.2)
    out, err = _stop(proc, [signal.SIGTERM], mark)
    _assert_interrupted(proc, out, err, signal.SIGTERM, run_file)


def _start_micro(tmp_path: Path, starts: Path, run_file: Path) -> tuple[subprocess.Popen[str], str]:
    """A long micro run whose worker processes append their pids to `starts` (once per sample)."""
    setup = f"import os; open({str(starts)!r}, 'a').write(f'{{os.getpid()}}\\n')"
    return _start(["micro", "-s", setup, "sum(range(50))", "--python", sys.executable, "--python",
                   f"{sys.executable} -E", "--samples", "2", "--warmup-samples", "1", "--target-time", "0.02",
                   "--no-alloc", "-r", "200", "--export-json", str(run_file), "--no-history"], tmp_path)


@pytest.mark.parametrize("signals", [[signal.SIGTERM], [signal.SIGINT, signal.SIGINT]], ids=["sigterm", "double-sigint"])
def test_micro_stopped_by_a_signal(tmp_path: Path, signals: list[int]) -> None:
    starts, run_file = tmp_path / "starts", tmp_path / "run.json"
    # Each worker process appends its pid (once per sample): one calibration process, then two per block.
    proc, mark = _start_micro(tmp_path, starts, run_file)
    _wait_lines(starts, 6, proc)
    out, err = _stop(proc, signals, mark)
    _assert_interrupted(proc, out, err, signals[0], run_file)


def test_micro_stopped_by_ctrl_c_keeps_each_measured_process_s_batch_series(tmp_path: Path) -> None:
    """The steady state of every process is read from its batch series: a Ctrl-C'd run keeps the
    series of each process whose samples it kept (0.02 s samples are timed in batches)."""
    starts, run_file = tmp_path / "starts", tmp_path / "run.json"
    proc, mark = _start_micro(tmp_path, starts, run_file)
    _wait_lines(starts, 6, proc)
    out, err = _stop(proc, [signal.SIGINT], mark)
    doc = _assert_interrupted(proc, out, err, signal.SIGINT, run_file)
    measured = {(s["variant"], s["block"]) for s in doc["samples"] if not s["warmup"] and s["metric"] == "time_per_op"}
    series = {(x["variant"], x["block"]) for x in doc.get("series", [])}
    assert len(measured) >= 2 and series == measured
    # each process's series whole: its 1 warm-up and 2 samples, each in the batches the run chose
    # (4 for 0.02 s samples on a quiet machine, fewer when a busy one calibrated fewer loops)
    assert all(x["per_sample"] >= 2 and len(x["values"]) == x["per_sample"] * 3 for x in doc["series"])


def test_signals_that_land_while_pairbench_exits_keep_its_exit_code(tmp_path: Path) -> None:
    """A Ctrl-C pressed again as the results come out lands while the process exits. The
    interpreter's exit puts back the default action of every signal with a Python handler, so one
    landing then would kill pairbench by SIGINT (-2 to its parent) instead of exit 130. Signals
    sent without pause from the last line to the exit make that moment certain to be hit."""
    starts, run_file = tmp_path / "starts", tmp_path / "run.json"
    proc, mark = _start_micro(tmp_path, starts, run_file)
    try:
        _wait_lines(starts, 6, proc)
        proc.send_signal(signal.SIGINT)
        assert proc.stderr is not None and proc.stdout is not None
        err = ""
        while not err.splitlines() or not err.splitlines()[-1].startswith("interrupted by SIGINT after"):
            line = proc.stderr.readline()  # the last line pairbench prints
            assert line, err
            err += line
        sent = 0
        while proc.poll() is None:  # not reaped until poll sees it: the pid stays pairbench's
            proc.send_signal(signal.SIGINT)
            sent += 1
            time.sleep(0.0005)
        out, rest = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert sent > 0
    _assert_interrupted(proc, out, err + rest, signal.SIGINT, run_file)
    assert _marked_processes(mark) == []


PYTEST_SUITE = """
import os, subprocess
STARTS = {starts!r}
with open(STARTS, "a") as f:  # each pytest process (collections, calibration, one per variant and block)
    f.write(f"{{os.getpid()}}\\n")


def test_spawns(benchmark):
    with open(STARTS) as f:
        n = len(f.read().split())
    # from the 8th process on (2 collections, the calibration, 2 blocks done) the test's child runs long
    benchmark(subprocess.run, ["sleep", "120" if n >= 8 else "0"])
"""


@pytest.mark.parametrize("signals", [[signal.SIGINT], [signal.SIGTERM]], ids=["sigint", "sigterm"])
def test_pytest_stopped_by_a_signal_leaves_no_process_its_tests_started(tmp_path: Path, signals: list[int]) -> None:
    """A benchmark that starts a process of its own: stopping pairbench stops it too (it was left
    running, its parent the pytest worker killed under it)."""
    starts, run_file = tmp_path / "starts", tmp_path / "run.json"
    (tmp_path / "test_spawn.py").write_text(PYTEST_SUITE.format(starts=str(starts)), encoding="utf-8")
    proc, mark = _start(["pytest", "test_spawn.py", "--python", sys.executable, "--python", f"{sys.executable} -E",
                         "--loops", "1", "--samples", "2", "--warmup-samples", "0", "-r", "20",
                         "--export-json", str(run_file), "--no-history"], tmp_path)
    _wait_lines(starts, 8, proc)
    time.sleep(0.5)  # the 8th process reaches its test and starts the long child
    out, err = _stop(proc, signals, mark)
    _assert_interrupted(proc, out, err, signals[0], run_file)
