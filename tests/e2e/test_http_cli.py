"""`pairbench http` against real servers on 127.0.0.1: the bundled app, a Ruby app, nginx, and
servers that fail in every way the issue lists. Effects asserted are large (20%+)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e._http_servers import BANNER_APP, CLOSER_APP, FLAKY_APP, RUBY_APP, SLOW_APP, STUBBORN_APP, Nginx, free_port, processes_with, wait_port

pytestmark = pytest.mark.slow

DEMO_APP = Path(__file__).resolve().parents[2] / "src" / "pairbench" / "data" / "demo_app.py"


def _comparisons(path: Path) -> dict[tuple[str, str], dict]:
    doc = json.loads(path.read_text())
    return {(c["benchmark"], c["metric"]): c for c in doc["comparisons"]}


def test_demo_app_with_more_work_per_request_is_slower(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    r = run_cli("http", "--server", f"{sys.executable} {DEMO_APP} --port {{port}}", "-L", "PAIRBENCH_DEMO_WORK",
                "5,60", "--url", "/", "--duration", "0.5", "-c", "1", "--runs", "6", "--warmup-time", "0.2",
                "--seed", "1", "--export-json", str(out))
    assert r.returncode == 0, r.stderr
    comps = _comparisons(out)
    rps = comps[("/", "req_per_s")]
    assert rps["verdict"] == "slower" and rps["ratio"] < 0.8
    assert rps["ci"][0] <= rps["ratio"] <= rps["ci"][1]
    assert comps[("/", "latency_median")]["verdict"] == "slower"
    assert "Requests per second" in r.stdout and "100% (longest request of all rounds)" in r.stdout
    doc = json.loads(out.read_text())
    assert doc["status"] == "complete"
    assert {s["block"] for s in doc["samples"]} == set(range(6))


def test_a_a_is_not_reported_different(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    cmd = f"{sys.executable} {DEMO_APP} --port {{port}} --work 5"
    r = run_cli("http", "--server", cmd, "--server", cmd + " ", "--name", "A1", "--name", "A2", "--url", "/",
                "--duration", "0.5", "-c", "1", "--runs", "8", "--warmup-time", "0.2", "--threshold", "20",
                "--seed", "2", "--export-json", str(out))
    assert r.returncode == 0, r.stderr
    # On a shared 2-core machine the rounds vary by 10-25%: assert only that no difference beyond
    # the ±20% band is claimed (a false claim needs the whole CI beyond it).
    # The 99th percentile of 0.5 s rounds at one connection is a few slow requests: its estimate
    # moved by a third in a CI run (0.65, CI [0.49, 0.86], no claim beyond the band), so its
    # bounds are wider than the median's.
    for metric, low, high in (("req_per_s", 0.67, 1.5), ("latency_median", 0.67, 1.5), ("latency_p99", 0.5, 2.0)):
        c = _comparisons(out)[("/", metric)]
        assert not c["meaningful"] and low < c["ratio"] < high, (metric, c["ratio"], c["ci"], c["verdict"])


@pytest.mark.skipif(shutil.which("ruby") is None, reason="needs Debian's ruby (installed by .ci/run)")
def test_ruby_app_with_extra_work_from_an_env_var_is_slower(run_cli, tmp_path: Path) -> None:
    app = tmp_path / "app.rb"
    app.write_text(RUBY_APP)
    out = tmp_path / "run.json"
    # EXTRA_WORK=30: 30 000 loop steps, about 3 ms a request against well under 1 ms without: a tenfold
    # drop in req/s that no load hides, asserted against a 20% one
    r = run_cli("http", "--server", f"ruby {app} {{port}}", "-L", "EXTRA_WORK", "0,30", "--url", "/hello",
                "-n", "150", "-c", "1", "--runs", "6", "--warmup-requests", "20", "--warmup-time", "0",
                "--seed", "3", "--export-json", str(out))
    assert r.returncode == 0, r.stderr
    c = _comparisons(out)[("/hello", "req_per_s")]
    assert c["verdict"] == "slower" and c["ratio"] < 0.8
    assert processes_with(str(app)) == []


@pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx (installed by .ci/run)")
@pytest.mark.parametrize("loop", ["blocking", "asyncio"])
def test_one_connection_on_either_loop_gets_every_response_across_server_closes(tmp_path: Path, loop: str) -> None:
    """nginx closes a kept-alive connection after 100 requests here: the load reconnects and goes on."""
    from pairbench.runners.http.engine import LoadSpec, RequestSpec, run_load

    nginx = Nginx(tmp_path, keepalive_requests=100)
    try:
        r = run_load(LoadSpec(requests=(RequestSpec(nginx.url),), connections=1, count=1000), loop=loop)
        assert r.completed == 1000 and r.failed == 0 and r.status_counts == {200: 1000}
        assert r.histogram.count == 1000 and r.bytes_received > 1000 * 100
    finally:
        nginx.stop()


def test_one_connection_to_a_server_that_never_answers_times_out_per_request() -> None:
    from pairbench.runners.http.engine import LoadSpec, RequestSpec, run_load

    # A listening socket that is never read: the kernel completes the handshake, nothing answers.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/"
        t0 = time.monotonic()
        r = run_load(LoadSpec(requests=(RequestSpec(url),), connections=1, count=3, timeout=0.3), loop="blocking")
        took = time.monotonic() - t0
    assert r.completed == 0 and r.errors == {"timeout": 3}
    assert 0.8 < took < 10


def test_an_open_loop_gives_requests_in_flight_a_bounded_grace_after_its_duration() -> None:
    from pairbench.runners.http.engine import LoadSpec, RequestSpec, run_load

    # Nothing ever answers: each connection's first request is in flight when the 1 s ends.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/"
        t0 = time.monotonic()
        r = run_load(LoadSpec(requests=(RequestSpec(url),), connections=2, rate=20, duration=1, timeout=10))
        took = time.monotonic() - t0
    assert r.completed == 0 and r.errors == {"timeout": 2}  # timed out after the grace, not the 10 s timeout
    assert r.unsent == 18  # the schedule's other 18 requests were never sent
    assert took < 5, took


@pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx (installed by .ci/run)")
def test_engine_against_nginx_closed_open_and_close_per_request(tmp_path: Path) -> None:
    from pairbench.runners.http.engine import LoadSpec, RequestSpec, run_load

    nginx = Nginx(tmp_path)
    try:
        req = (RequestSpec(nginx.url),)
        r = run_load(LoadSpec(requests=req, connections=4, count=5000))
        assert r.completed == 5000 and r.failed == 0 and r.status_counts == {200: 5000}
        assert r.histogram.count == 5000 and r.bytes_received > 5000 * 100
        r = run_load(LoadSpec(requests=req, connections=2, count=300, keepalive=False))
        assert r.completed == 300 and r.failed == 0
        r = run_load(LoadSpec(requests=req, connections=4, rate=1000, duration=1.0))
        assert 800 <= r.completed <= 1010 and r.failed == 0
        assert 0.8 * 1000 < r.req_per_s < 1.25 * 1000
        missing = run_load(LoadSpec(requests=(RequestSpec(nginx.url.replace("index.html", "missing")),), count=10))
        assert missing.status_counts == {404: 10} and missing.non_2xx == 10
    finally:
        nginx.stop()


@pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx (installed by .ci/run)")
def test_running_server_open_loop_from_the_cli(run_cli, tmp_path: Path) -> None:
    nginx = Nginx(tmp_path)
    try:
        r = run_cli("http", "--url", nginx.url, "--rate", "300", "--duration", "0.5", "--runs", "2",
                    "--export-json", str(tmp_path / "run.json"))
        assert r.returncode == 0, r.stderr
        assert "Requests per second" in r.stdout and "target" in r.stdout
        rps = [s["value"] for s in json.loads((tmp_path / "run.json").read_text())["samples"]
               if s["metric"] == "req_per_s"]
        assert len(rps) == 2 and all(200 < v < 400 for v in rps)
    finally:
        nginx.stop()


@pytest.mark.skipif(shutil.which("nginx") is None or shutil.which("wrk") is None, reason="needs nginx and wrk")
def test_wrk_engine_figures_land_in_the_same_samples(run_cli, tmp_path: Path) -> None:
    nginx = Nginx(tmp_path)
    try:
        out = tmp_path / "run.json"
        r = run_cli("http", "--url", nginx.url, "--engine", "wrk", "-c", "4", "--duration", "1", "--runs", "2",
                    "--export-json", str(out))
        assert r.returncode == 0, r.stderr
        values: dict[str, list[float]] = {}
        for s in json.loads(out.read_text())["samples"]:
            values.setdefault(s["metric"], []).append(s["value"])
        assert len(values["req_per_s"]) == 2 and min(values["req_per_s"]) > 100
        assert 0 < min(values["latency_median"]) <= max(values["latency_p99"]) < 1.0
        # The longest request is wrk's max (its percentile(100) is 0), and each figure is stored once.
        assert all(p100 >= p99 > 0 for p100, p99 in zip(values["latency_p100"], values["latency_p99"]))
        assert {len(v) for v in values.values()} == {2}
        assert values["failed"] == [0.0, 0.0] and min(values["bytes"]) > 100 * min(values["requests"])
        # wrk's own CPU time per request (it was stored as 0: wrk's CPU was never read).
        assert min(values["client_cpu_per_req"]) > 0
    finally:
        nginx.stop()


@pytest.mark.skipif(shutil.which("nginx") is None or shutil.which("wrk") is None, reason="needs nginx and wrk")
def test_wrk_engine_books_no_404_as_a_server_error(run_cli, tmp_path: Path) -> None:
    """wrk counts the responses of status 400 and more as one number: they are non-2xx, but
    which class they are is not known, so no class gets them (they were all booked as 5xx)."""
    nginx = Nginx(tmp_path)
    try:
        out = tmp_path / "run.json"
        r = run_cli("http", "--url", nginx.url.replace("/index.html", "/missing"), "--engine", "wrk", "-c", "2",
                    "--duration", "1", "--runs", "2", "--export-json", str(out))
        assert r.returncode == 0, r.stderr
        values: dict[str, list[float]] = {}
        for s in json.loads(out.read_text())["samples"]:
            values.setdefault(s["metric"], []).append(s["value"])
        assert min(values["requests"]) > 100 and values["non_2xx"] == values["requests"]
        assert not values.get("status_5xx") or max(values["status_5xx"]) == 0, values.get("status_5xx")
        assert "status_2xx" not in values  # not a zero: wrk does not say
        assert "Non-2xx responses" in r.stdout
    finally:
        nginx.stop()


@pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx (installed by .ci/run)")
def test_one_server_prints_its_figures_and_says_there_is_nothing_to_compare(run_cli, tmp_path: Path) -> None:
    nginx = Nginx(tmp_path)
    try:
        r = run_cli("http", "--url", nginx.url, "-n", "200", "--runs", "2")
        assert r.returncode == 0, r.stderr
        assert "Requests per second" in r.stdout and "Complete requests" in r.stdout
        assert "one variant (target), nothing to compare" in r.stdout
        assert "verdict" not in r.stdout and "(baseline)" not in r.stdout
    finally:
        nginx.stop()


def test_url_returning_errors_is_counted_and_warned_about(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    r = run_cli("http", "--server", f"{sys.executable} {DEMO_APP} --port {{port}}", "--url", "/fail", "-n", "30",
                "--runs", "2", "--ready-path", "/health", "--warmup-time", "0", "--export-json", str(out))
    assert r.returncode == 0, r.stderr
    text = r.stdout + r.stderr
    assert "30 of 30 requests failed or returned a non-2xx status (100.0%: non-2xx 30)" in " ".join(text.split())
    non_2xx = [s["value"] for s in json.loads(out.read_text())["samples"] if s["metric"] == "status_5xx"]
    assert non_2xx == [30.0, 30.0]


def test_unreachable_target_is_one_clear_message(run_cli) -> None:
    port = free_port()
    r = run_cli("http", "--url", f"http://127.0.0.1:{port}/", "-n", "10")
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        f"error: cannot connect to 127.0.0.1:{port} (from --url http://127.0.0.1:{port}/): is the server running? "
        "Start it, or give --server to have pairbench start it"]


def test_server_that_exits_at_start_shows_its_log(run_cli, tmp_path: Path) -> None:
    marker = f"exit-at-start-{tmp_path.name}"
    r = run_cli("http", "--server", f"{sys.executable} -c \"print('boom: {marker}'); raise SystemExit(4)\" {{port}}",
                "--url", "/", "-n", "5", "--runs", "2", "--log-dir", str(tmp_path / "logs"))
    assert r.returncode == 1
    # the variant is named after the server's program, whatever this interpreter is called
    name = Path(sys.executable).name
    assert r.stderr.startswith(f"error: variant {name!r}, round 0: server exited at start with exit code 4")
    assert f"boom: {marker}" in r.stderr and "Traceback" not in r.stderr
    assert processes_with(marker) == []


def test_server_logs_go_with_a_good_run_and_stay_after_a_failed_one(run_cli, tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    r = run_cli("http", "--server", f"{sys.executable} {DEMO_APP} --port {{port}}", "--url", "/", "-n", "20",
                "--runs", "2", "--warmup-time", "0", "--no-history", env={"TMPDIR": str(tmp)})
    assert r.returncode == 0, r.stderr
    assert [p.name for p in tmp.iterdir() if p.name.startswith("pairbench-http-")] == []
    r = run_cli("http", "--server", f"{sys.executable} -c \"print('boom'); raise SystemExit(4)\" {{port}}",
                "--url", "/", "-n", "5", "--runs", "2", env={"TMPDIR": str(tmp)})
    assert r.returncode == 1 and "(log: " in r.stderr
    log = Path(r.stderr.split("(log: ", 1)[1].split(")", 1)[0])
    assert log.is_file() and "boom" in log.read_text()  # the message's log is there to read


def test_server_that_never_becomes_ready_is_stopped(run_cli, tmp_path: Path) -> None:
    marker = f"never-ready-{tmp_path.name}"
    t0 = time.monotonic()
    r = run_cli("http", "--server", f"{sys.executable} -c \"import time; time.sleep(60)\" {marker} {{port}}",
                "--url", "/", "-n", "5", "--ready-timeout", "1")
    assert r.returncode == 1 and "did not become ready within 1 s" in r.stderr
    assert time.monotonic() - t0 < 30
    assert processes_with(marker) == []


def test_a_server_that_answers_but_not_in_http_is_said_to(run_cli, tmp_path: Path) -> None:
    """It listens on the port and answers: 'no answer on http://...' sent the user looking for the
    wrong fault."""
    app = tmp_path / "banner_app.py"
    app.write_text(BANNER_APP)
    r = run_cli("http", "--server", f"{sys.executable} {app} {{port}}", "--url", "/", "-n", "5", "--ready-timeout", "1")
    assert r.returncode == 1 and "did not become ready within 1 s" in r.stderr, r.stderr
    assert "no answer" not in r.stderr and "not HTTP" in r.stderr and "SSH-2.0-OpenSSH_9.2" in r.stderr, r.stderr
    assert processes_with(str(app)) == []


def test_server_that_ignores_sigterm_is_killed_after_the_grace_period(run_cli, tmp_path: Path) -> None:
    app = tmp_path / "stubborn_app.py"
    app.write_text(STUBBORN_APP)
    r = run_cli("http", "--server", f"{sys.executable} {app} {{port}}", "--url", "/", "-n", "20", "--runs", "2",
                "--grace", "0.5", "--warmup-time", "0", "--export-json", str(tmp_path / "run.json"))
    assert r.returncode == 0, r.stderr
    assert processes_with(str(app)) == []


def test_fixed_port_in_use_is_one_clear_message(run_cli, tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = run_cli("http", "--server", f"{sys.executable} {DEMO_APP}", "--port", str(port), "--url", "/", "-n", "5")
    assert r.returncode == 1
    assert f"port {port} on 127.0.0.1 is already in use" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_server_dying_mid_round_fails_that_round_only(run_cli, tmp_path: Path) -> None:
    app = tmp_path / "flaky_app.py"
    app.write_text(FLAKY_APP)
    out = tmp_path / "run.json"
    r = run_cli("http", "--server", f"{sys.executable} {app} {{port}} {tmp_path / 'count'}", "--url", "/page",
                "--ready-path", "/", "--duration", "1", "--runs", "3", "--warmup-time", "0", "--export-json", str(out))
    assert r.returncode == 0, r.stderr
    assert "round 1: server died during the round with exit code 3" in r.stderr  # a warning: on stderr
    assert "flaky start 2" in r.stderr  # the log tail
    blocks = {s["block"] for s in json.loads(out.read_text())["samples"] if s["metric"] == "req_per_s"}
    assert blocks == {0, 2}
    assert processes_with(str(app)) == []


def test_a_server_that_answers_no_request_of_its_first_round_is_one_error(run_cli, tmp_path: Path) -> None:
    app = tmp_path / "closer_app.py"
    app.write_text(CLOSER_APP)
    out = tmp_path / "run.json"
    r = run_cli("http", "--server", f"{sys.executable} {app} {{port}}", "--url", "/page", "--ready-path", "/ready",
                "-n", "20", "--runs", "3", "--warmup-time", "0", "--export-json", str(out))
    # Every round would fail the same way: not three warnings and exit 0 with nothing measured.
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith("error: ") and "round 0: no request completed" in r.stderr, r.stderr
    assert "reset 20" in r.stderr and "this round is left out" not in r.stderr, r.stderr
    assert json.loads(out.read_text())["status"] == "failed"
    assert processes_with(str(app)) == []


@pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx (installed by .ci/run)")
@pytest.mark.parametrize("engine", ["builtin", "wrk"])
def test_more_connections_than_open_files_allowed_is_one_clear_error(tmp_path: Path, engine: str) -> None:
    """-c 400 under `ulimit -n 256`: was a traceback (EMFILE) from inside the load; wrk, which
    inherits the limit, opened what it could and counted the rest as connect errors."""
    import resource

    from tests.conftest import cli_env

    if engine == "wrk" and shutil.which("wrk") is None:
        pytest.skip("needs wrk")
    nginx = Nginx(tmp_path)
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    try:
        r = subprocess.run([sys.executable, "-m", "pairbench", "http", nginx.url, "-c", "400", "--duration", "1",
                            "--engine", engine, "--runs", "2", "--no-history"], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                           env=cli_env({}), preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard)))
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert r.stderr.startswith("error: -c 400") and r.stderr.count("\n") == 1, r.stderr
        assert "ulimit -n" in r.stderr and "256" in r.stderr, r.stderr
    finally:
        nginx.stop()


def _running_in(directory: Path) -> list[int]:
    """PIDs of the live processes whose working directory is `directory` (what run_cli started there)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
                if os.readlink(f"/proc/{name}/cwd") == str(directory) and state != "Z":
                    found.append(int(name))
            except OSError:
                continue
    return found


@pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx (installed by .ci/run)")
def test_a_server_that_goes_to_the_background_is_stopped_and_said_so(run_cli, tmp_path: Path) -> None:
    """nginx as installed (no `daemon off;`): the command exits 0 at once and its master, in a
    session of its own, listens on the port. It was left running after the run, and the message
    said only that the server exited at start."""
    (tmp_path / "index.html").write_text("hi\n")
    user = "user root root;" if os.geteuid() == 0 else ""
    (tmp_path / "nginx.conf.in").write_text(
        f"{user} worker_processes 1; pid {tmp_path}/nginx.pid; error_log {tmp_path}/error.log;\n"
        "events { worker_connections 64; }\n"
        f"http {{ access_log off; client_body_temp_path {tmp_path}; proxy_temp_path {tmp_path}; "
        f"fastcgi_temp_path {tmp_path}; uwsgi_temp_path {tmp_path}; scgi_temp_path {tmp_path};\n"
        f"  server {{ listen 127.0.0.1:PORT; root {tmp_path}; }} }}\n")
    start = tmp_path / "start.sh"
    start.write_text(f'#!/bin/sh\nsed "s/PORT/$1/" {tmp_path}/nginx.conf.in > {tmp_path}/nginx.conf\n'
                     f"exec nginx -c {tmp_path}/nginx.conf -p {tmp_path}\n")
    start.chmod(0o755)
    try:
        r = run_cli("http", "--server", f"{start} {{port}}", "--url", "/index.html", "-n", "50", "--runs", "2")
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert "background" in r.stderr and "nginx: master process" in r.stderr, r.stderr
        # Neither the master nor its worker (whose command line names no path): nothing runs in tmp_path.
        assert _running_in(tmp_path) == []
    finally:
        for pid in _running_in(tmp_path):
            os.kill(pid, signal.SIGKILL)


_CTRL_C_IN_THE_FORK = r"""
import os, signal, sys
from pairbench import interrupts
from pairbench.runners.http.server import Server, ServerSpec

armed = [True]

def ctrl_c():
    if armed and armed.pop():  # once: the Ctrl-C lands while Popen forks the server
        os.kill(os.getpid(), signal.SIGINT)

os.register_at_fork(after_in_parent=ctrl_c)
server = Server(ServerSpec(command=f"{sys.executable} {sys.argv[1]} --port {{port}}", grace=1.0))
with interrupts.installed():
    try:
        server.start()
        print("started")
    except KeyboardInterrupt:
        print("stopped")
"""


def test_a_ctrl_c_that_lands_while_a_server_is_forked_stops_the_run(tmp_path: Path) -> None:
    """Python runs its fork hooks (logging's lock) around the fork of a server, and a stop raised
    in one is printed as 'Exception ignored' and dropped: the run went on, Ctrl-C lost."""
    from tests.conftest import cli_env

    app = tmp_path / "fork_app.py"
    shutil.copy(DEMO_APP, app)
    r = subprocess.run([sys.executable, "-c", _CTRL_C_IN_THE_FORK, str(app)], capture_output=True, text=True,
                       timeout=60, env=cli_env({}))
    assert r.stdout.split() == ["stopped"], (r.stdout, r.stderr)
    assert processes_with(str(app)) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_leaves_no_server_behind(tmp_path: Path, sig: int) -> None:
    from tests.conftest import cli_env

    app = tmp_path / "ctrl_c_app.py"
    shutil.copy(DEMO_APP, app)
    logs = tmp_path / "logs"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pairbench", "http", "--server",
         f"{sys.executable} {app} --port {{port}} --host 127.0.0.1 # comment", "--url", "/",
         "--duration", "30", "--runs", "3", "--log-dir", str(logs), "--export-json", str(tmp_path / "run.json")],
        env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not [p for p in processes_with(str(app)) if p != proc.pid]:
            time.sleep(0.1)
        servers = [p for p in processes_with(str(app)) if p != proc.pid]
        assert servers, "the server never started"
        time.sleep(1.0)  # into the measured load
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + sig, err  # 130 for SIGINT, 143 for SIGTERM
    assert "Traceback" not in err
    assert [p for p in processes_with(str(app)) if p != proc.pid] == []


def test_no_server_outlives_a_killed_pairbench(tmp_path: Path) -> None:
    """SIGKILL cannot be caught: PR_SET_PDEATHSIG on the server (exec'd by the shell) stops it."""
    from tests.conftest import cli_env

    app = tmp_path / "sigkill_app.py"
    shutil.copy(DEMO_APP, app)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pairbench", "http", "--server", f"{sys.executable} {app} --port {{port}} # c",
         "--url", "/", "--duration", "30", "--runs", "1", "--export-json", str(tmp_path / "run.json")],
        env=cli_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not [p for p in processes_with(str(app)) if p != proc.pid]:
            time.sleep(0.1)
        assert [p for p in processes_with(str(app)) if p != proc.pid], "the server never started"
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and processes_with(str(app)):
        time.sleep(0.1)
    assert processes_with(str(app)) == []


def _stdlib_http_server(directory: Path) -> tuple[subprocess.Popen[bytes], int]:
    """`python3 -m http.server` on a free port of 127.0.0.1: HTTP/1 only."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                             "--directory", str(directory)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_port(port)
    except BaseException:
        _stop_group(proc)
        raise
    return proc, port


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def _says_no_h2c(r: subprocess.CompletedProcess[str], port: int) -> None:
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    line = r.stderr.strip().splitlines()[-1]  # after a warning of a busy machine, if any
    assert r.stderr.count("error:") == 1 and line.startswith("error: --http2"), r.stderr
    assert f"127.0.0.1:{port}" in line and "does not speak HTTP/2" in line, line
    assert "nothing to compare" not in r.stdout


def test_http2_to_a_python_http_server_says_it_does_not_speak_http2(run_cli, tmp_path: Path) -> None:
    proc, port = _stdlib_http_server(tmp_path)
    try:
        r = run_cli("http", "--http2", "--url", f"http://127.0.0.1:{port}/", "-n", "50", "--runs", "1", timeout=60)
        _says_no_h2c(r, port)
    finally:
        _stop_group(proc)


@pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx (installed by .ci/run)")
def test_http2_to_an_nginx_without_http2_says_it_does_not_speak_http2(run_cli, tmp_path: Path) -> None:
    nginx = Nginx(tmp_path)
    try:
        r = run_cli("http", "--http2", "--url", nginx.url, "-n", "50", "--runs", "1", timeout=60)
        _says_no_h2c(r, nginx.port)
    finally:
        nginx.stop()


def test_an_open_loop_the_server_cannot_keep_up_with_ends_near_its_duration_and_says_so(
        run_cli, tmp_path: Path) -> None:
    # 200 requests/s asked of a server that serves about 25: the 400 requests of 2 s would take 16 s.
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", SLOW_APP, str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_port(port)
        out = tmp_path / "run.json"
        started = time.monotonic()
        r = run_cli("http", "--url", f"http://127.0.0.1:{port}/", "--rate", "200", "--duration", "2", "--runs", "1",
                    "--no-history", "--export-json", str(out), timeout=120)
        wall = time.monotonic() - started
    finally:
        _stop_group(proc)
    assert r.returncode == 0, r.stderr
    assert wall < 3 * 2, wall  # the duration, a bounded drain and the CLI's start; not 16 s
    text = " ".join((r.stdout + r.stderr).split())
    assert "asked 200 req/s" in text and "achieved" in text, text
    doc = json.loads(out.read_text())
    values = {s["metric"]: s["value"] for s in doc["samples"] if not s["warmup"]}
    assert values["req_per_s"] < 100  # the server's ~25/s, far from the 200 asked
    assert values["unsent"] > 100  # most of the schedule's 400 requests were never sent
    assert "asked" in r.stdout and "200" in r.stdout  # the figures show the asked rate beside the achieved
