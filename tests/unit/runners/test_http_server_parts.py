"""Server lifecycle parts that need no process: the argv, exit descriptions, log tails."""

from __future__ import annotations

import signal
from pathlib import Path

from pairbench.runners.http.server import Server, ServerSpec, _describe_exit


def _server(command: str) -> Server:
    s = Server(ServerSpec(command=command))
    s.port = 4321
    return s


def test_plain_command_is_split_without_a_shell() -> None:
    assert _server("ruby app.rb -p {port} -o {host}").argv() == ["ruby", "app.rb", "-p", "4321", "-o", "127.0.0.1"]


def test_shell_syntax_runs_under_sh_with_exec_when_simple() -> None:
    assert _server("python app.py --port {port} > out.log").argv() == [
        "/bin/sh", "-c", "exec python app.py --port 4321 > out.log"]
    # Compound commands cannot be exec'd as a whole.
    assert _server("cd web && rackup -p {port}").argv() == ["/bin/sh", "-c", "cd web && rackup -p 4321"]
    assert _server("RACK_ENV=x rackup -p {port}").argv()[2] == "RACK_ENV=x rackup -p 4321"


def test_exit_descriptions() -> None:
    assert _describe_exit(3) == "exit code 3"
    assert _describe_exit(-signal.SIGKILL) == "signal SIGKILL"
    assert _describe_exit(None) == "an unknown status"


def test_log_tail_quotes_the_last_lines(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    log.write_text("".join(f"line {i}\n" for i in range(100)))
    s = Server(ServerSpec(command="x {port}", log_path=str(log)))
    assert s.log_tail(3).splitlines() == ["line 97", "line 98", "line 99"]
    assert "last lines of its log" in s._tail_text() and "    line 99" in s._tail_text()
    log.write_text("")
    assert "its log is empty" in s._tail_text()


def test_readiness_is_polled_often_enough_to_start_the_round_soon_after_the_server_answers(monkeypatch) -> None:
    """A server that answers after 30 polls (~1 s of start-up) is seen within READY_POLL_MAX_S of
    answering: a wait of up to 0.25 s before each of a run's rounds was idle time per server start."""
    from pairbench.runners.http import server as server_module

    s = _server("true")
    polls = iter([False] * 30 + [True])
    slept: list[float] = []
    monkeypatch.setattr(s, "_answers", lambda: next(polls))
    monkeypatch.setattr(server_module.time, "sleep", slept.append)
    s._wait_ready()
    assert len(slept) == 30 and max(slept) <= server_module.READY_POLL_MAX_S <= 0.05
    assert slept[0] == min(slept)  # a server up at once is seen at once
