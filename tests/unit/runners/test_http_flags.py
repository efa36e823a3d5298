"""ab's and wrk's command lines, given to `pairbench http` after the tool's name, mean what they mean
there (ab(1), wrk's usage text and README). No sockets: the run is built, not measured."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

import pytest

from pairbench.errors import UserError


def _build(line: str) -> tuple[dict, object]:
    import pairbench.commands.http as http_cmd

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    http_cmd.register(sub)
    args = parser.parse_args(["http", *shlex.split(line)])
    run, _ = http_cmd.build_http_run(args)
    return dict(run.benchmarks[0].options), run


def test_wrk_readme_line_runs_unchanged_with_the_wrk_engine() -> None:
    # wrk's README: `wrk -t12 -c400 -d30s http://127.0.0.1:8080/index.html`
    opts, run = _build("-t12 -c400 -d30s http://127.0.0.1:8080/index.html --engine wrk")
    assert opts["threads"] == 12 and opts["connections"] == 400 and opts["duration"] == 30.0
    assert opts["url"] == "http://127.0.0.1:8080/index.html" and opts.get("requests") is None
    assert run.benchmarks[0].name == "http://127.0.0.1:8080/index.html"


def test_wrk_threads_reach_the_wrk_command_line() -> None:
    from pairbench.runners.http.spec import LoadSpec, RequestSpec
    from pairbench.runners.http.wrk import WrkFailed, wrk_command

    spec = LoadSpec(requests=(RequestSpec("http://127.0.0.1:8080/"),), connections=400, duration=30)
    assert wrk_command(spec, "s.lua", 12)[1:4] == ["-t12", "-c400", "-d30s"]
    with pytest.raises(WrkFailed, match="connection per thread"):
        wrk_command(LoadSpec(requests=spec.requests, connections=2, duration=1), "s.lua", 4)


def test_wrk_units_in_durations_and_counts() -> None:
    # wrk's usage: "Numeric arguments may include a SI unit (1k, 1M, 1G); time arguments may
    # include a time unit (2s, 2m, 2h)" — `wrk -c1k -d2m --timeout 2s --latency URL`.
    opts, _ = _build("-c1k -d2m --timeout 2s --latency http://127.0.0.1:8080/")
    assert opts["connections"] == 1000 and opts["duration"] == 120.0 and opts["timeout"] == 2.0


def test_ab_time_limit_is_a_duration_that_implies_50000_requests() -> None:
    # ab(1): "-t timelimit: Maximum number of seconds to spend for benchmarking. This implies a
    # -n 50000 internally." — `ab -t 10 -c 5 http://127.0.0.1:8080/`
    opts, _ = _build("-t 10 -c 5 http://127.0.0.1:8080/")
    assert opts["duration"] == 10.0 and opts["requests"] == 50_000 and opts["connections"] == 5
    assert opts.get("threads") is None
    # With -n as well, whichever ends first (-n is the smaller budget here).
    opts, _ = _build("-t 10 -n 200 http://127.0.0.1:8080/")
    assert opts["duration"] == 10.0 and opts["requests"] == 200
    opts, _ = _build("--time-limit 3 --engine wrk http://127.0.0.1:8080/")
    assert opts["duration"] == 3.0 and opts.get("threads") is None


def test_ab_keepalive_flag_is_accepted_and_keepalive_is_the_default() -> None:
    # `ab -k -n 1000 -c 10 URL`: keep-alive, as pairbench does without -k; ab without -k is --no-keepalive.
    with_k, _ = _build("-k -n 1000 -c 10 http://127.0.0.1:8080/")
    without, _ = _build("-n 1000 -c 10 http://127.0.0.1:8080/")
    assert with_k["keepalive"] is True and without["keepalive"] is True and with_k["requests"] == 1000
    opts, _ = _build("--no-keepalive -n 1000 http://127.0.0.1:8080/")
    assert opts["keepalive"] is False
    with pytest.raises(SystemExit):  # argparse: not allowed with each other
        _build("-k --no-keepalive -n 10 http://127.0.0.1:8080/")


def test_ab_post_file_with_content_type(tmp_path: Path) -> None:
    # ab(1): `-p POST-file`, `-T content-type` — `ab -p data.json -T application/json -n 100 URL`
    data = tmp_path / "data.json"
    data.write_text('{"a": 1}')
    opts, run = _build(f"-p {data} -T application/json -n 100 http://127.0.0.1:8080/api")
    assert opts["method"] == "POST" and opts["body"] == '{"a": 1}'
    assert ("Content-Type", "application/json") in [tuple(h) for h in opts["headers"]]
    assert run.benchmarks[0].name == "POST http://127.0.0.1:8080/api"
    # ab's default Content-Type for a body is text/plain; -u is PUT.
    opts, _ = _build(f"-u {data} -n 100 http://127.0.0.1:8080/api")
    assert opts["method"] == "PUT" and ("Content-Type", "text/plain") in [tuple(h) for h in opts["headers"]]


def test_ab_head_and_headers() -> None:
    # `ab -i -H 'Accept-Encoding: gzip' -n 100 URL`
    opts, _ = _build("-i -H 'Accept-Encoding: gzip' -n 100 http://127.0.0.1:8080/")
    assert opts["method"] == "HEAD" and [tuple(h) for h in opts["headers"]] == [("Accept-Encoding", "gzip")]
    opts, _ = _build("-m put --body x -n 1 http://127.0.0.1:8080/")
    assert opts["method"] == "PUT" and opts["body"] == "x"


@pytest.mark.parametrize("line, message", [
    ("-t 5 --duration 3 http://h:1/", "time limit .* or --duration"),
    ("--threads 2 -c 4 http://h:1/", "give --engine wrk"),
    ("--engine wrk -t 8 -c 4 -d 1 http://h:1/", "at least one connection per thread"),
    ("--engine wrk -t 2 --threads 2 -c 4 -d 1 http://h:1/", "-t or --threads"),
    ("-p a -u b http://h:1/", "one of -p, -u"),
    ("-i --body x http://h:1/", "one of -i, --body"),
    ("-i -m POST http://h:1/", "^give -i or -m POST: -i sends HEAD requests"),
])
def test_contradicting_ab_and_wrk_flags_are_one_clear_error(line: str, message: str) -> None:
    with pytest.raises(UserError, match=message):
        _build(line)


@pytest.mark.parametrize("line", ["-d soon http://h:1/", "-d 3x http://h:1/", "-c 0 http://h:1/",
                                  "-n 1.5 http://h:1/"])
def test_bad_numbers_are_refused_by_the_parser(line: str) -> None:
    with pytest.raises(SystemExit):
        _build(line)


def test_a_zero_duration_is_refused_by_the_kind_as_in_a_suite_file() -> None:
    with pytest.raises(UserError, match="^--duration must be greater than 0"):
        _build("-d 0s http://h:1/")


def test_every_http_flag_has_help_text_and_states_its_default() -> None:
    import pairbench.commands.http as http_cmd

    parser = argparse.ArgumentParser()
    http_cmd.register(parser.add_subparsers())
    http = parser._subparsers._group_actions[0].choices["http"]  # type: ignore[union-attr]
    missing = [a.option_strings or a.dest for a in http._actions
               if a.help in (None, "") and a.dest != "help"]
    assert not missing
    text = " ".join(http.format_help().split())
    for said in ("default 1)", "default 30 s)", "default 5)", "default GET", "(default 30)"):
        assert said in text, said


def test_targets_are_variants_with_their_url_base_and_paths_under_it() -> None:
    opts, run = _build("--target head=http://127.0.0.1:8001 --target patch=http://127.0.0.1:8002/app/ "
                       "--url /index.html -n 10")
    assert [(v.name, v.command, v.meta["http_target"]) for v in run.variants] == [
        ("head", "", "http://127.0.0.1:8001"), ("patch", "", "http://127.0.0.1:8002/app")]
    assert run.variants[0].baseline and opts["url"] == "/index.html"
    from pairbench.runners.http.runner import HttpRunner

    urls = [r.url for r in HttpRunner()._requests(opts | {"mix": None}, run.variants[1].meta["http_target"])]
    assert urls == ["http://127.0.0.1:8002/app/index.html"]


@pytest.mark.parametrize("line, message", [
    ("--target a=http://h:1 --target a=http://h:2 -n 1", "same name"),
    ("--target a -n 1", "expected NAME=URL"),
    ("--target a=ftp://h:1 -n 1", "expected NAME=URL"),
    ("--target a=http://h:1/?q=1 -n 1", "URL base only"),
    ("--target a=http://h:1 --server 'x {port}' -n 1", "not both"),
    ("--target a=http://h:1 --url http://h:1/x -n 1", "give a path"),
])
def test_bad_targets_are_one_clear_error(line: str, message: str) -> None:
    with pytest.raises(UserError, match=message):
        _build(line)


@pytest.mark.parametrize("line, message", [
    ("-m 'GE T' http://h:1/", r"^-m/--method 'GE T' is not an HTTP method"),
    ("-m 'GET\r\nX: y' http://h:1/", r"^-m/--method .* is not an HTTP method"),
    ("-H 'Bad Name: x' http://h:1/", r"^-H/--header 'Bad Name' is not a header name"),
    ("-H 'X-A: b\r\nX-B: c' http://h:1/", r"^-H/--header 'X-A': its value holds a line break"),
    ("'http://h:1/a b'", r"^--url 'http://h:1/a b' holds a space or a control character: write it %20"),
    ("--server 'app {port}' --url '/a b'", r"^--url '/a b' holds a space"),
    ("'http://h:1/caf€'", r"^--url 'http://h:1/caf€' holds a character outside ASCII: write it "
                          r"percent-encoded, as http://h:1/caf%E2%82%AC"),
    ("-H 'X-Price: 5€' http://h:1/", r"^-H/--header 'X-Price': its value holds a character outside Latin-1"),
])
def test_a_method_or_header_that_would_break_the_request_is_one_clear_error(line: str, message: str) -> None:
    """They went on the wire as given: the server answered 400 to every request (a warning per
    round), or read a second header the user never meant."""
    with pytest.raises(UserError, match=message):
        _build(line.replace("\\r\\n", "\r\n"))


@pytest.mark.parametrize("flag", ["--port 9000", "--ready-path /health", "--ready-tcp", "--env A=1", "--unset-env A",
                                  "--cwd /tmp", "--log-dir /tmp/logs"])
@pytest.mark.parametrize("servers", ["http://127.0.0.1:8080/", "--target a=http://h:1 --target b=http://h:2"])
def test_a_flag_for_started_servers_given_with_running_ones_is_one_clear_error(flag: str, servers: str) -> None:
    """pairbench starts no server here, so the flag would change nothing: it was ignored in silence."""
    with pytest.raises(UserError, match=rf"^{flag.split()[0]} sets up the servers pairbench starts \(--server\)"):
        _build(f"{flag} {servers}")


@pytest.mark.parametrize("value", ["150", "-1"])
def test_an_error_rate_warning_out_of_range_is_said_in_the_percent_given(value: str) -> None:
    """The flag takes a percentage; the message spoke of the fraction ('at most 1, not 1.5' for 150)."""
    with pytest.raises(UserError, match=rf"^--error-rate-warning is a percentage from 0 to 100, not {value}$"):
        _build(f"--error-rate-warning {value} http://h:1/")
