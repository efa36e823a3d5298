"""The http runner, the wrk output parser and the http command's run building, without sockets."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from pairbench.errors import BenchmarkFailed, UserError
from pairbench.model import Benchmark, Variant
from pairbench.runners.http.engine import LoadResult, LoadSpec
from pairbench.runners.http.histogram import Histogram
from pairbench.runners.http.metrics import figures_from_result, http_metrics
from pairbench.runners.http.runner import HttpRunner
from pairbench.runners.http.server import ServerFailed, ServerSpec
from pairbench.runners.http.wrk import WrkFailed, parse_wrk_output, wrk_available, wrk_command, wrk_script


def _result(latencies_ms: list[float], elapsed: float = 2.0, errors: dict[str, int] | None = None,
            statuses: dict[int, int] | None = None) -> LoadResult:
    h = Histogram()
    h.record_many(int(v * 1e6) for v in latencies_ms)
    return LoadResult(histogram=h, elapsed_s=elapsed, completed=len(latencies_ms),
                      status_counts=statuses or {200: len(latencies_ms)}, errors=errors or {},
                      bytes_received=1000 * len(latencies_ms), client_cpu_s=0.01)


def _bench(**opts: Any) -> Benchmark:
    return Benchmark("/", "http", http_metrics(), {"url": "http://127.0.0.1:9/", "requests": 10, **opts})


class _FakeServer:
    def __init__(self, spec: ServerSpec, fail: str | None = None, dies: bool = False) -> None:
        self.spec, self.fail, self.dies = spec, fail, dies
        self.stopped = False
        self.base_url = "http://127.0.0.1:5555"

    def start(self) -> None:
        if self.fail:
            raise ServerFailed(self.fail)

    def usage(self) -> tuple[float, int]:
        return (0.5, 10_000_000) if self.stopped is False else (0, 0)

    def alive(self) -> bool:
        return not self.dies

    def died_message(self) -> str:
        return "server died during the round with signal SIGKILL"

    def stop(self) -> None:
        self.stopped = True


def test_measure_stores_one_sample_per_metric_from_the_load() -> None:
    seen: list[LoadSpec] = []

    def engine(spec: LoadSpec, progress: Any) -> LoadResult:
        seen.append(spec)
        return _result([10.0] * 50 + [20.0] * 50)

    runner = HttpRunner(engine=engine)
    rep = runner.measure(_bench(), Variant("a"), block=3, warmup=False, progress=lambda s: None)
    values = {s.metric: s.value for s in rep.samples}
    assert not rep.failed and all(s.block == 3 and s.variant == "a" for s in rep.samples)
    assert values["req_per_s"] == pytest.approx(50.0)
    assert values["latency_median"] == pytest.approx(0.010, rel=0.005)
    assert values["latency_p99"] == pytest.approx(0.020, rel=0.005)
    assert values["latency_p100"] == pytest.approx(0.020)
    assert values["transfer_rate"] == pytest.approx(50_000)
    assert seen[0].count == 10 and seen[0].requests[0].url == "http://127.0.0.1:9/"


def test_warmup_load_runs_first_and_is_not_stored() -> None:
    calls: list[LoadSpec] = []

    def engine(spec: LoadSpec, progress: Any) -> LoadResult:
        calls.append(spec)
        return _result([1.0] * 10)

    rep = HttpRunner(engine=engine).measure(_bench(warmup_time=0.5), Variant("a"), 0, False, lambda s: None)
    assert [c.duration for c in calls] == [0.5, None]
    assert {s.metric for s in rep.samples} >= {"req_per_s", "latency_p99"}
    assert len([s for s in rep.samples if s.metric == "req_per_s"]) == 1


def test_error_rate_above_threshold_gives_a_notice() -> None:
    engine = lambda spec, p: _result([1.0] * 90, errors={"reset": 5}, statuses={200: 85, 500: 5})
    rep = HttpRunner(engine=engine).measure(_bench(), Variant("a"), 0, False, lambda s: None)
    assert len(rep.notices) == 1 and "10 of 95" in rep.notices[0].message and "reset 5" in rep.notices[0].message
    ok = HttpRunner(engine=lambda s, p: _result([1.0] * 10)).measure(_bench(), Variant("a"), 0, False, lambda s: None)
    assert ok.notices == []


def test_no_completed_request_fails_the_round_after_a_first_round_that_had_some() -> None:
    results = iter([_result([1.0] * 5)])

    def engine(spec: LoadSpec, progress: Any) -> LoadResult:
        r = next(results, None)
        if r is not None:
            return r
        r = _result([])
        r.errors = {"connect": 50}
        r.aborted = "cannot connect to 127.0.0.1:9: connection refused"
        return r

    runner = HttpRunner(engine=engine)
    assert not runner.measure(_bench(), Variant("a"), 0, False, lambda s: None).failed
    rep = runner.measure(_bench(), Variant("a"), 1, False, lambda s: None)
    assert rep.failed and "connection refused" in rep.notices[0].message and rep.samples == []
    # A variant with no response in its first round has a wrong URL or server: one error, as a
    # server that never starts (every round would fail alike).
    with pytest.raises(BenchmarkFailed, match=r"round 0: cannot connect .*\(errors: connect 50\)"):
        runner.measure(_bench(), Variant("b"), 0, False, lambda s: None)


def test_server_is_started_per_round_with_the_variant_env_and_stopped() -> None:
    made: list[_FakeServer] = []

    def factory(spec: ServerSpec) -> _FakeServer:
        made.append(_FakeServer(spec))
        return made[-1]

    bench = Benchmark("/p", "http", http_metrics(), {"url": "/p", "requests": 5, "server": "app --port {port}"})
    runner = HttpRunner(engine=lambda s, p: _result([1.0] * 5), server_factory=factory)  # type: ignore[arg-type]
    v = Variant("b", env={"K": "1"}, args=("--fast",))
    rep = runner.measure(bench, v, 1, False, lambda s: None)
    assert made[0].spec.command == "app --port {port} --fast" and made[0].spec.env == {"K": "1"}
    assert made[0].spec.ready_path == "/p" and made[0].stopped
    values = {s.metric: s.value for s in rep.samples}
    assert "server_cpu" in values and values["server_rss"] == 10_000_000


def test_variant_in_a_server_template_is_the_variants_command_and_args_as_in_a_command() -> None:
    # a suite's `as = "arg"` sweep (`--yjit`) belongs to the interpreter, not after the app's arguments
    made: list[_FakeServer] = []

    def factory(spec: ServerSpec) -> _FakeServer:
        made.append(_FakeServer(spec))
        return made[-1]

    bench = Benchmark("/p", "http", http_metrics(), {"url": "/p", "requests": 5,
                                                     "server": "{variant} -S rackup -p {port} app.ru"})
    runner = HttpRunner(engine=lambda s, p: _result([1.0] * 5), server_factory=factory)  # type: ignore[arg-type]
    runner.measure(bench, Variant("ruby/jit=on", command="ruby", args=("--yjit",)), 1, False, lambda s: None)
    assert made[0].spec.command == "ruby --yjit -S rackup -p {port} app.ru"


def test_first_start_failure_is_an_error_later_ones_fail_the_round() -> None:
    outcomes = iter([None, "exited at start with exit code 1"])
    factory = lambda spec: _FakeServer(spec, fail=next(outcomes))
    bench = Benchmark("/", "http", http_metrics(), {"url": "/", "requests": 5, "server": "app {port}"})
    runner = HttpRunner(engine=lambda s, p: _result([1.0] * 5), server_factory=factory)  # type: ignore[arg-type]
    assert not runner.measure(bench, Variant("a"), 0, False, lambda s: None).failed
    rep = runner.measure(bench, Variant("a"), 1, False, lambda s: None)
    assert rep.failed and "round 1" in rep.notices[0].message and "exit code 1" in rep.notices[0].message
    never = HttpRunner(engine=lambda s, p: _result([1.0]),
                       server_factory=lambda spec: _FakeServer(spec, fail="exited at start"))  # type: ignore[arg-type]
    with pytest.raises(BenchmarkFailed, match="variant 'z', round 0: exited at start"):
        never.measure(bench, Variant("z"), 0, False, lambda s: None)


def test_server_that_died_during_the_round_fails_it() -> None:
    factory = lambda spec: _FakeServer(spec, dies=True)
    bench = Benchmark("/", "http", http_metrics(), {"url": "/", "requests": 5, "server": "app {port}"})
    rep = HttpRunner(engine=lambda s, p: _result([1.0] * 5), server_factory=factory).measure(  # type: ignore[arg-type]
        bench, Variant("a"), 2, False, lambda s: None)
    assert rep.failed and "died during the round" in rep.notices[0].message


@pytest.mark.parametrize("opts, variant, message", [
    ({"url": "/", "requests": 1, "server": "app --listen 80"}, Variant("a"), "has no {port}"),
    ({"url": "http://h:1/", "requests": 1, "server": "app {port}"}, Variant("a"), "is absolute"),
    ({"url": "/x", "requests": 1}, Variant("a"), "full URL of a running server"),
    ({"url": "/", "requests": 1, "server": "a {port}", "engine": "ab"}, Variant("a"), "unknown --engine"),
    ({"url": "/", "server": "a {port}"}, Variant("a"), "-n REQUESTS or --duration"),
    ({"url": "/", "requests": 1, "bogus": 1}, Variant("a"), "unknown http option"),
])
def test_prepare_rejects_bad_input_with_one_clear_message(opts: dict[str, Any], variant: Variant, message: str) -> None:
    with pytest.raises(UserError, match=message.replace("{", r"\{").replace("}", r"\}")):
        HttpRunner().prepare(Benchmark("/", "http", http_metrics(), opts), [variant])


WRK_LINE = ('PAIRBENCH-WRK {"requests": 1000, "duration_us": 2000000, "bytes": 250000, "connect": 0, '
            '"read": 2, "write": 0, "status": 10, "timeout": 1, "mean_us": 1500.5, "min_us": 100, '
            '"max_us": 9000, "percentiles_us": {"50": 1400, "66": 1500, "75": 1600, "80": 1700, "90": 2000, '
            '"95": 2500, "98": 3000, "99": 4000, "99.9": 8000, "100": 9000}}')


def test_wrk_done_hook_output_lands_in_a_load_result() -> None:
    r = parse_wrk_output("Running 2s test\n" + WRK_LINE + "\n")
    assert r.req_per_s == pytest.approx(500.0)
    assert r.percentiles_s([50, 99, 100]) == pytest.approx([0.0014, 0.004, 0.009])
    assert r.histogram.mean_s == pytest.approx(0.0015005)
    assert r.errors == {"reset": 2, "timeout": 1} and r.non_2xx == 10


def test_wrk_without_result_line_and_unsupported_settings() -> None:
    with pytest.raises(WrkFailed, match="no result line"):
        parse_wrk_output("unable to connect to 127.0.0.1:1 Connection refused\n")
    from pairbench.runners.http.engine import RequestSpec

    req = (RequestSpec("http://127.0.0.1:1/"),)
    with pytest.raises(WrkFailed, match="duration"):
        wrk_command(LoadSpec(requests=req, count=10), "s.lua")
    with pytest.raises(WrkFailed, match="wrk2"):
        wrk_command(LoadSpec(requests=req, duration=1, rate=10), "s.lua")
    argv = wrk_command(LoadSpec(requests=req, duration=3, connections=4), "s.lua", threads=2)
    assert argv == ["wrk", "-t2", "-c4", "-d3s", "--timeout=30s", "-s", "s.lua", "http://127.0.0.1:1/"]
    script = wrk_script(LoadSpec(requests=(RequestSpec("http://h:1/", method="POST", body=b'{"a"}'),), duration=1))
    assert 'wrk.method = "POST"' in script and "done = function" in script and "\\034" in script


def _args(*argv: str) -> argparse.Namespace:
    import pairbench.commands.http as http_cmd

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    http_cmd.register(sub)
    return parser.parse_args(["http", *argv])


def test_command_builds_one_benchmark_per_url_and_variants_per_server() -> None:
    from pairbench.commands.http import build_http_run

    run, _ = build_http_run(_args("--server", "ruby-head app.rb -p {port}", "--server", "ruby-kclass app.rb -p {port}",
                                  "--url", "/t/1495", "--url", "/", "-n", "200", "-c", "1"))
    assert [v.name for v in run.variants] == ["ruby-head", "ruby-kclass"] and run.variants[0].baseline
    assert [b.name for b in run.benchmarks] == ["/t/1495", "/"]
    assert run.benchmarks[0].options["requests"] == 200 and run.benchmarks[0].options["connections"] == 1
    assert run.benchmarks[0].metrics[0].name == "req_per_s"


def test_parameter_list_substitutes_or_sets_env() -> None:
    from pairbench.commands.http import build_http_run

    run, _ = build_http_run(_args("--server", "passenger start -p {port}", "-L", "ruby", "ruby-head,ruby-hash",
                                  "--env", "RAILS_ENV=production", "--url", "/issues/35", "--duration", "20"))
    assert [v.name for v in run.variants] == ["ruby-head", "ruby-hash"]
    assert run.variants[1].env == {"RAILS_ENV": "production", "ruby": "ruby-hash"}
    run, _ = build_http_run(_args("--server", "{ruby} app.rb {port}", "-L", "ruby", "a,b"))
    assert [v.command for v in run.variants] == ["a app.rb {port}", "b app.rb {port}"]


def test_mix_adds_a_weighted_benchmark_and_rejects_bad_weights() -> None:
    from pairbench.commands.http import build_http_run

    run, _ = build_http_run(_args("--server", "a {port}", "--url", "/a", "--url", "/b", "--mix", "3,1"))
    assert run.benchmarks[-1].name == "mix"
    assert run.benchmarks[-1].options["mix"] == [{"url": "/a", "weight": 3.0}, {"url": "/b", "weight": 1.0}]
    with pytest.raises(UserError, match="one positive weight per --url"):
        build_http_run(_args("--server", "a {port}", "--url", "/a", "--mix", "1,2"))


@pytest.mark.parametrize("argv, message", [
    ((), "give --url"),
    (("--server", "a {port}", "--name", "x", "--name", "y"), "one name per server"),
    (("--server", "a {port}", "--url", "/", "--url", "/"), "given twice"),
    (("--server", "a {port}", "-H", "nocolon"), "Name: value"),
    (("--server", "a {port}", "--env", "NOEQUALS"), "NAME=VALUE"),
    (("--url", "http://h:1/", "--rate", "10"), "--rate needs --duration"),
])
def test_command_rejects_bad_flags(argv: tuple[str, ...], message: str) -> None:
    from pairbench.commands.http import build_http_run

    with pytest.raises(UserError, match=message):
        build_http_run(_args(*argv))


def test_wrk_engine_settings_are_checked_before_anything_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    import pairbench.runners.http.runner as runner_mod

    monkeypatch.setattr(runner_mod, "wrk_available", lambda: True)
    bench = Benchmark("/", "http", http_metrics(), {"url": "/", "requests": 100, "server": "a {port}", "engine": "wrk"})
    with pytest.raises(UserError, match="--engine wrk: wrk runs for a duration"):
        HttpRunner().prepare(bench, [Variant("a")])
    ok = Benchmark("/", "http", http_metrics(), {"url": "/", "duration": 2, "server": "a {port}", "engine": "wrk"})
    assert HttpRunner().prepare(ok, [Variant("a")]) == []


@pytest.mark.skipif(not wrk_available(), reason="needs wrk")
def test_a_wrk_warm_up_by_request_count_is_refused_before_anything_runs_naming_its_flag() -> None:
    """The warm-up load is wrk's too: a count there failed the first round, naming -n."""
    bench = Benchmark("/", "http", http_metrics(), {"url": "/", "duration": 1, "warmup_requests": 100,
                                                    "server": "a {port}", "engine": "wrk"})
    with pytest.raises(UserError, match="^--engine wrk: --warmup-requests: .*give --warmup-time"):
        HttpRunner().prepare(bench, [Variant("a")])


def test_suite_spellings_are_accepted() -> None:
    import pairbench.runners.http as http_pkg

    assert http_pkg.HttpRunner is HttpRunner
    seen: list[LoadSpec] = []

    def engine(spec: LoadSpec, progress: Any) -> LoadResult:
        seen.append(spec)
        return _result([1.0] * 5)

    made: list[_FakeServer] = []
    bench = Benchmark("issues", "http", (), {
        "server": "{variant} -S passenger start --port {port}",
        "url": "http://127.0.0.1:{port}/projects/x/issues?set_filter=1", "connections": 5,
        "warmup_duration": 2, "duration": 20})
    runner = HttpRunner(engine=engine, server_factory=lambda spec: made.append(_FakeServer(spec)) or made[-1])  # type: ignore[arg-type, func-returns-value]
    variant = Variant("a", command="ruby-head", params={"x": "1"})
    assert runner.prepare(bench, [variant]) == []
    rep = runner.measure(bench, variant, 0, False, lambda s: None)
    assert made[0].spec.command == "ruby-head -S passenger start --port {port}"
    assert [s.duration for s in seen] == [2, 20]
    assert seen[1].requests[0].url == "http://127.0.0.1:5555/projects/x/issues?set_filter=1"
    assert made[0].spec.ready_path == "/projects/x/issues"
    assert {s.metric for s in rep.samples} == {m.name for m in http_metrics()}


def test_a_server_that_closes_after_every_response_is_said_once_per_variant() -> None:
    def engine(spec: LoadSpec, progress: Any) -> LoadResult:
        r = _result([1.0] * 20)
        r.server_closes = 20
        return r

    runner = HttpRunner(engine=engine)
    told = [runner.measure(_bench(), Variant(v), block, False, lambda s: None).notices
            for block in range(3) for v in ("a", "b")]
    kinds = [[n.kind for n in notices] for notices in told]
    assert kinds == [["http-no-keepalive"], ["http-no-keepalive"], [], [], [], []]
    assert "--no-keepalive" in told[0][0].hint and told[0][0].variant == "a"
    # Asked for a connection per request, or a server that closes now and then: nothing to say.
    for bench, closes in ((_bench(keepalive=False), 20), (_bench(), 10)):
        def quiet(spec: LoadSpec, progress: Any, closes: int = closes) -> LoadResult:
            r = _result([1.0] * 20)
            r.server_closes = closes
            return r
        assert HttpRunner(engine=quiet).measure(bench, Variant("a"), 0, False, lambda s: None).notices == []


def test_each_figure_is_stored_once_per_round() -> None:
    names = [m.name for m in http_metrics()]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    rep = HttpRunner(engine=lambda spec, p: _result([1.0] * 10)).measure(_bench(), Variant("a"), 0, False,
                                                                        lambda s: None)
    metrics = [s.metric for s in rep.samples]
    assert len(metrics) == len(set(metrics)) and "latency_p99" in metrics and "latency_median" in metrics
    assert "latency_p50" not in metrics  # the median, stored once as latency_median


def test_wrk_longest_request_is_its_max_not_the_zero_its_percentile_100_gives() -> None:
    # wrk 4.1's latency:percentile(100) is 0 (seen on Debian's build); its latency.max is right.
    line = WRK_LINE.replace('"100": 9000', '"100": 0')
    assert line != WRK_LINE
    figures = figures_from_result(parse_wrk_output(line))
    assert figures["latency_p100"] == pytest.approx(0.009)
    assert figures["latency_p99"] == pytest.approx(0.004)


def test_https_settings_default_port_and_a_verifying_client_context() -> None:
    import ssl

    from pairbench.runners.http.engine import RequestSpec
    from pairbench.runners.http.tls import client_context

    spec = LoadSpec(requests=(RequestSpec("https://example.test/x"),), duration=1)
    assert spec.requests[0].host_port() == ("example.test", 443)
    assert b"Host: example.test\r\n" in spec.requests[0].encode(True)
    assert wrk_command(spec, "s.lua")[-1] == "https://example.test/x"
    # The default verifies the certificate and the host name; --insecure turns both off.
    assert not spec.insecure
    strict, lax = client_context(insecure=False), client_context(insecure=True)
    assert strict.verify_mode == ssl.CERT_REQUIRED and strict.check_hostname
    assert lax.verify_mode == ssl.CERT_NONE and not lax.check_hostname


def test_the_insecure_context_reads_no_trust_store_and_each_context_is_built_once() -> None:
    """Reading the system's trust store costs ~0.2 s of CPU, paid by every round's load (12 µs per
    request of a 2 s load at 8,000 req/s): an insecure context checks nothing and needs none, and a
    verifying one is built once per settings."""
    from pairbench.runners.http.tls import client_context

    assert client_context(insecure=True).cert_store_stats()["x509"] == 0
    assert client_context(insecure=False) is client_context(insecure=False)
    assert client_context(insecure=True, http2=True) is not client_context(insecure=True)


def test_an_open_loop_short_of_its_rate_is_said_once_per_variant_and_its_unsent_requests_stored() -> None:
    def engine(spec: LoadSpec, progress: Any, achieved: int = 20) -> LoadResult:
        r = _result([1.0] * achieved, elapsed=1.0)
        r.unsent = 200 - achieved
        return r

    bench = Benchmark("/", "http", http_metrics(open_loop=True),
                      {"url": "http://127.0.0.1:9/", "rate": 200, "duration": 1})
    runner = HttpRunner(engine=engine)
    reps = [runner.measure(bench, Variant("a"), block, False, lambda s: None) for block in range(3)]
    (notice,) = [n for rep in reps for n in rep.notices]
    assert notice.kind == "http-rate-short" and "asked 200 req/s, achieved 20.0 req/s" in notice.message
    assert "180 requests" in notice.message and "--rate" in notice.hint
    assert [s.value for s in reps[0].samples if s.metric == "unsent"] == [180.0]
    # At the rate asked (a round's figures end just after the duration): nothing to say.
    met = HttpRunner(engine=lambda spec, p: engine(spec, p, achieved=195))
    assert met.measure(bench, Variant("a"), 0, False, lambda s: None).notices == []
    # A closed loop records no `unsent`.
    assert "unsent" not in {m.name for m in http_metrics()}


def _logged(runner_log_dir: Path | None, benches: list[Benchmark]) -> tuple[list[Path], HttpRunner]:
    """The server log of each benchmark's round, in order, and the runner (not closed yet)."""
    made: list[_FakeServer] = []

    def factory(spec: ServerSpec) -> _FakeServer:
        made.append(_FakeServer(spec))
        return made[-1]

    runner = HttpRunner(engine=lambda s, p: _result([1.0] * 5), server_factory=factory,  # type: ignore[arg-type]
                        log_dir=runner_log_dir)
    for bench in benches:
        runner.measure(bench, Variant("a"), 0, False, lambda s: None)
    return [Path(str(m.spec.log_path)) for m in made], runner


def _served(name: str, **opts: Any) -> Benchmark:
    return Benchmark(name, "http", http_metrics(), {"url": "/", "requests": 5, "server": "app {port}", **opts})


def test_a_benchmarks_log_dir_holds_that_benchmarks_logs_only(tmp_path: Path) -> None:
    own, other = tmp_path / "own", tmp_path / "other"
    benches = [_served("plain"), _served("own", log_dir=str(own)), _served("plain2"), _served("other", log_dir=str(other))]
    paths, runner = _logged(None, benches)
    assert [p.parent for p in paths[1::2]] == [own, other]
    temp = paths[0].parent
    assert paths[2].parent == temp and temp not in (own, other) and tmp_path not in temp.parents
    runner.close()
    assert own.is_dir() and other.is_dir()  # a directory given is never removed
    assert not temp.exists()  # the temporary one goes at close


def test_the_runners_log_dir_serves_the_benchmarks_without_their_own(tmp_path: Path) -> None:
    flag, own = tmp_path / "flag", tmp_path / "own"
    paths, runner = _logged(flag, [_served("own", log_dir=str(own)), _served("plain")])
    runner.close()
    assert [p.parent for p in paths] == [own, flag] and flag.is_dir() and own.is_dir()


@pytest.mark.parametrize("where", ["benchmark", "runner"])
def test_a_log_dir_that_cannot_be_made_is_one_error_before_anything_runs(tmp_path: Path, where: str) -> None:
    """--log-dir naming a file: was FileExistsError's traceback at the first server start."""
    taken = tmp_path / "a-file"
    taken.write_text("")
    bench = _served("/", **({"log_dir": str(taken)} if where == "benchmark" else {}))
    runner = HttpRunner(log_dir=taken if where == "runner" else None)
    with pytest.raises(UserError, match=f"^--log-dir {taken}: "):
        runner.prepare(bench, [Variant("a")])
