"""The Runner for kind "http": per variant and round, start the server, load it, stop it.

One measure() call is one replicate: a fresh server (unless the target is an already running
one), an optional warm-up load whose figures are dropped, then the measured load. Its figures
become one Sample per metric, so that every number in a report derives from stored samples:
throughput, latency median/p99/mean and the ab percentile table, errors by kind, status classes,
bytes, and the server's CPU time and peak RSS during the measured load.
"""

from __future__ import annotations

import shlex
import socket
import time
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import urljoin, urlsplit

from pairbench.errors import BenchmarkFailed, UserError
from pairbench.model import Benchmark, Notice, Sample, Variant
from pairbench.runners.base import Profiled, ProgressFn, Replicate
from pairbench.runners.http.engine import run_load
from pairbench.runners.http.http2 import Http2Refused
from pairbench.runners.http.preflight import check_http2, check_open_files, check_running
from pairbench.runners.http.profiled import HttpProfiler
from pairbench.runners.http.metrics import figures_from_result, http_metrics, rate_shortfall
from pairbench.runners.http.spec import LoadResult, LoadSpec, RequestSpec, load_spec
from pairbench.runners.http.server import Server, ServerFailed, ServerSpec
from pairbench.runners.http.server_logs import ServerLogs
from pairbench.runners.http.wrk import WrkFailed, run_wrk, wrk_available, wrk_command

__all__ = ["HttpRunner", "DEFAULT_OPTIONS"]

DEFAULT_OPTIONS: dict[str, Any] = {
    "url": "/",
    "mix": None,
    "method": "GET",
    "headers": [],
    "body": "",
    "connections": 1,
    "requests": None,
    "duration": None,
    "rate": None,
    "keepalive": True,
    "timeout": 30.0,
    "warmup_time": 0.0,
    "warmup_requests": 0,
    "server": "",
    "port": None,
    "ready_path": None,
    "ready_timeout": 30.0,
    "grace": 5.0,
    "engine": "builtin",
    "error_rate_warning": 0.01,
    "log_dir": None,
    "insecure": False,
    "threads": None,
    "http2": False,
    "streams": 1,
}

EngineFn = Callable[[LoadSpec, Callable[[float], None] | None], LoadResult]


# Other spellings accepted in suite files.
_ALIASES = {"warmup_duration": "warmup_time", "concurrency": "connections", "n": "requests"}


def _relative(url: str) -> str:
    """`http://127.0.0.1:{port}/p?q` (a suite file's spelling for a server pairbench starts) -> `/p?q`."""
    if "{port}" not in url:
        return url
    parts = urlsplit(url.replace("{port}", "1").replace("{host}", "127.0.0.1"))
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _server_command(opts: Mapping[str, Any], variant: Variant) -> str:
    """The `server` template with `{variant}` (the variant's command and args, as in a command benchmark)
    and `{param}` filled in, else the variant's own command; with no `{variant}`, the args go after it."""
    template = str(opts["server"] or "")
    args = " ".join(shlex.quote(a) for a in variant.args)
    if "{variant}" in template:
        return _with_params(template.replace("{variant}", " ".join(filter(None, (variant.command, args)))), variant)
    command = _with_params(template, variant) if template else variant.command
    return f"{command} {args}" if command and args else command


def _with_params(command: str, variant: Variant) -> str:
    for name, value in variant.params.items():
        command = command.replace("{" + name + "}", str(value))
    return command


def _options(benchmark: Benchmark) -> dict[str, Any]:
    given = {_ALIASES.get(k, k): v for k, v in benchmark.options.items()}
    unknown = set(given) - set(DEFAULT_OPTIONS)
    if unknown:
        raise UserError(
            f"benchmark {benchmark.name!r}: unknown http option(s) {', '.join(sorted(unknown))}; "
            f"valid: {', '.join(sorted(DEFAULT_OPTIONS))}"
        )
    opts = {**DEFAULT_OPTIONS, **given}
    opts["url"] = _relative(str(opts["url"]))
    if opts["mix"]:
        opts["mix"] = [{**m, "url": _relative(str(m["url"]))} for m in opts["mix"]]
    return opts


def _target(variant: Variant) -> str:
    """The URL base of a variant that is a running server (`--target NAME=URL`), or ""."""
    return str(variant.meta.get("http_target") or "")


def _under(base: str, path: str) -> str:
    """`path` under a target's URL base, keeping the base's own path (`http://h/app` + `/x` -> `http://h/app/x`)."""
    return base.rstrip("/") + "/" + path.lstrip("/")


def _round(block: int) -> str:
    return f"round {block}" if block >= 0 else f"warm-up round {-block}"


class HttpRunner:
    """Measures http benchmarks; `engine` and `server_factory` are injectable for tests."""

    def __init__(
        self,
        engine: EngineFn | None = None,
        server_factory: Callable[[ServerSpec], Server] = Server,
        log_dir: str | Path | None = None,
    ) -> None:
        self._engine = engine
        self._server_factory = server_factory
        self._logs = ServerLogs(log_dir)
        self._servers: list[Server] = []
        self._started_ok: set[str] = set()
        self._loaded_ok: set[tuple[str, str]] = set()
        """(benchmark, variant) pairs whose load has completed a request at least once."""
        self._told_closes: set[str] = set()
        self._told_rate: set[tuple[str, str]] = set()
        """Variants already told that their server does not keep connections alive (said once)."""
        self._told_targets = False
        """Whether the warning that --target servers are not restarted was given (once per run)."""
        self._machine = socket.gethostname()
        self._profiler = HttpProfiler()

    # --- Runner protocol -------------------------------------------------------------------------
    def prepare(self, benchmark: Benchmark, variants: list[Variant]) -> list[Notice]:
        opts = _options(benchmark)
        notices: list[Notice] = []
        if opts["engine"] not in ("builtin", "wrk"):
            raise UserError(f"unknown --engine {opts['engine']!r}; valid: builtin, wrk")
        if opts["engine"] == "wrk":
            if not wrk_available():
                raise UserError("--engine wrk: wrk is not installed (Debian: apt-get install wrk); use --engine builtin")
            try:
                wrk_command(LoadSpec(
                    requests=tuple(RequestSpec(urljoin("http://127.0.0.1/", u)) for u in self._paths(opts)),
                    connections=int(opts["connections"]), count=opts["requests"], duration=opts["duration"],
                    rate=opts["rate"], keepalive=bool(opts["keepalive"])), "-", opts["threads"])
            except WrkFailed as exc:
                raise UserError(f"--engine wrk: {exc}") from None
            if opts["warmup_requests"]:
                raise UserError("--engine wrk: --warmup-requests: wrk runs for a duration, not a request count: "
                                "give --warmup-time instead")
        if opts["requests"] is None and opts["duration"] is None and opts["rate"] is None:
            raise UserError("give -n REQUESTS or --duration SECONDS for the load")
        check_open_files(int(opts["connections"]))  # wrk inherits the same limit
        if opts["http2"]:
            check_http2(opts)
        for variant in variants:
            command = _server_command(opts, variant)
            if command:
                self._logs.check(opts["log_dir"])
                if "{port}" not in command and opts["port"] is None and "PORT" not in variant.env:
                    raise UserError(
                        f"server command {command!r} has no {{port}}: put {{port}} where the server takes "
                        "its port (pairbench picks a free one), or give --port"
                    )
                for url in self._paths(opts):
                    if urlsplit(url).scheme:
                        raise UserError(
                            f"--url {url!r} is absolute, but pairbench starts the server: give a path such as "
                            f"{urlsplit(url).path or '/'!r}"
                        )
            elif _target(variant):
                for url in self._paths(opts):
                    check_running(_under(_target(variant), url), opts,
                                   f"--target {variant.name}={_target(variant)}", "--target")
            else:
                for url in self._paths(opts):
                    parts = urlsplit(url)
                    if parts.scheme not in ("http", "https") or not parts.hostname:
                        raise UserError(
                            f"--url {url!r}: without --server, give the full URL of a running server, "
                            "such as http://127.0.0.1:8080/"
                        )
                    check_running(url, opts, f"--url {url}", "--server")
        if any(_target(v) for v in variants) and not self._told_targets:
            self._told_targets = True
            notices.append(Notice(
                "http-targets-not-restarted",
                "the --target servers were already running and are not restarted between rounds: per-process "
                "effects (memory layout, hash seeds, JIT and cache warm-up) are not replicated, so the "
                "intervals cover the rounds' load-to-load noise only",
                "to replicate them, give --server commands and let pairbench start each server per round",
                benchmark.name,
            ))
        return notices

    def measure(
        self, benchmark: Benchmark, variant: Variant, block: int, warmup: bool, progress: ProgressFn
    ) -> Replicate:
        opts = _options(benchmark)
        command = _server_command(opts, variant)
        server: Server | None = None
        try:
            if command:
                started = self._start(benchmark, variant, block, command, opts)
                if isinstance(started, Replicate):
                    return started
                server = started
                base = server.base_url
            else:
                base = _target(variant)
            requests = self._requests(opts, base)
            keepalive = bool(opts["keepalive"])
            engine = self._engine_fn(opts)
            # Warm-up load: same shape, figures dropped.
            if opts["warmup_time"] or opts["warmup_requests"]:
                progress(f"{variant.name}: warming up")
                engine(
                    LoadSpec(
                        requests=requests, connections=int(opts["connections"]),
                        count=int(opts["warmup_requests"]) or None,
                        duration=float(opts["warmup_time"]) or None, keepalive=keepalive,
                        timeout=float(opts["timeout"]), insecure=bool(opts["insecure"]),
                        http2=bool(opts["http2"]), streams=int(opts["streams"]),
                    ),
                    None,
                )
            spec = load_spec(opts, requests)
            cpu0 = server.usage()[0] if server else 0.0
            result = engine(spec, lambda rps: progress(f"{variant.name}: {rps:,.0f} req/s"))
            cpu1, rss = server.usage() if server else (0.0, 0)
            if server is not None and not server.alive():
                self._logs.keep = True
                return self._failed(benchmark, variant, block, server.died_message())
            if result.completed == 0:
                why = result.aborted or "no request completed"
                errors = ", ".join(f"{k} {v}" for k, v in sorted(result.errors.items())) or "none"
                if (benchmark.name, variant.name) not in self._loaded_ok:
                    # Never a response in its first load: a wrong URL, scheme or server, which would
                    # fail every round alike (and leave nothing measured), not a flaky round.
                    raise BenchmarkFailed(f"{benchmark.name}, variant {variant.name!r}, {_round(block)}: "
                                          f"{why} (errors: {errors})")
                return self._failed(benchmark, variant, block, f"{why} (errors: {errors})")
            self._loaded_ok.add((benchmark.name, variant.name))
            figures = figures_from_result(result)
            if server is not None:
                figures["server_cpu"] = max(0.0, cpu1 - cpu0)
                figures["server_cpu_per_req"] = figures["server_cpu"] / result.completed
                figures["server_rss"] = float(rss)
            notices = self._error_notices(benchmark, variant, block, result, float(opts["error_rate_warning"]))
            short = rate_shortfall(result, spec.rate)
            if short is not None and (benchmark.name, variant.name) not in self._told_rate:  # once per variant
                self._told_rate.add((benchmark.name, variant.name))
                notices.append(Notice(
                    "http-rate-short", f"{benchmark.name}, variant {variant.name!r}, {_round(block)}: {short}",
                    "the server, or this client, cannot keep up with --rate, so the latencies are an overloaded "
                    "server's: lower --rate, or find its capacity with a closed loop (no --rate)",
                    benchmark.name, variant.name))
            if keepalive:
                notices += self._closes_notice(benchmark, variant, result)
            return Replicate(samples=self._samples(benchmark, variant, block, warmup, figures), notices=notices)
        except WrkFailed as exc:
            if (benchmark.name, variant.name) in self._loaded_ok:
                # As a load of the built-in engine that completes nothing: this round fails, the
                # rounds measured before are kept (a target gone, a server that stopped listening).
                return self._failed(benchmark, variant, block, str(exc))
            raise BenchmarkFailed(f"{benchmark.name}, variant {variant.name!r}, {_round(block)}: {exc}") from None
        except Http2Refused as exc:
            raise UserError(str(exc)) from None
        finally:
            if server is not None:
                server.stop()
                if server in self._servers:
                    self._servers.remove(server)

    def profile(self, benchmark: Benchmark, variant: Variant, block: int, progress: ProgressFn) -> Profiled:
        """One load of a fresh server of the variant, its processes sampled (`--profile`; runners/http/profiled.py)."""
        opts = _options(benchmark)
        engine = self._engine_fn(opts)
        load = lambda base: engine(load_spec(opts, self._requests(opts, base)), None)  # noqa: E731
        try:
            return self._profiler.profile(self, benchmark, variant, block, _server_command(opts, variant), opts, load)
        except (WrkFailed, Http2Refused) as exc:
            raise UserError(str(exc)) from None

    def close(self) -> None:
        self._profiler.close()
        for server in list(self._servers):
            server.stop()
        self._servers.clear()
        self._logs.close()

    # --- helpers ---------------------------------------------------------------------------------
    @staticmethod
    def _paths(opts: Mapping[str, Any]) -> list[str]:
        if opts["mix"]:
            return [str(m["url"]) for m in opts["mix"]]
        return [str(opts["url"])]

    def _requests(self, opts: Mapping[str, Any], base: str) -> tuple[RequestSpec, ...]:
        entries = opts["mix"] or [{"url": opts["url"], "weight": 1.0}]
        headers = tuple((str(k), str(v)) for k, v in opts["headers"])
        body = str(opts["body"]).encode()
        return tuple(
            RequestSpec(
                url=_under(base, str(e["url"])) if base else str(e["url"]),
                method=str(opts["method"]).upper(), headers=headers, body=body, weight=float(e.get("weight", 1.0)),
            )
            for e in entries
        )

    def _engine_fn(self, opts: Mapping[str, Any]) -> EngineFn:
        if self._engine is not None:
            return self._engine
        if opts["engine"] == "wrk":
            threads = int(opts["threads"]) if opts["threads"] else None
            return lambda spec, progress: run_wrk(spec, threads=threads)
        return run_load

    def _start(
        self, benchmark: Benchmark, variant: Variant, block: int, command: str, opts: Mapping[str, Any]
    ) -> Server | Replicate:
        ready = opts["ready_path"]
        if ready is None:
            ready = urlsplit(self._paths(opts)[0]).path or "/"
        spec = ServerSpec(
            command=command, env=dict(variant.env), unset_env=tuple(variant.unset_env), cwd=variant.cwd,
            port=int(opts["port"]) if opts["port"] else None, ready_path=ready or None,
            ready_timeout=float(opts["ready_timeout"]), grace=float(opts["grace"]),
            log_path=self._logs.path(benchmark, variant, block, opts["log_dir"]),
        )
        server = self._server_factory(spec)
        self._servers.append(server)
        try:
            server.start()
        except ServerFailed as exc:
            self._logs.keep = True
            self._servers.remove(server)
            message = f"variant {variant.name!r}, {_round(block)}: {exc}"
            if variant.name not in self._started_ok:
                # Never started once: a wrong command or setting, not a flaky round.
                raise BenchmarkFailed(message) from None
            return self._failed(benchmark, variant, block, message, already=True)
        self._started_ok.add(variant.name)
        return server

    def _failed(self, benchmark: Benchmark, variant: Variant, block: int, message: str,
                already: bool = False) -> Replicate:
        if not already:
            message = f"variant {variant.name!r}, {_round(block)}: {message}"
        return Replicate(
            failed=True,
            notices=[Notice("http-round-failed", message, "this round is left out; the other rounds are kept",
                            benchmark.name, variant.name)],
        )

    def _samples(self, benchmark: Benchmark, variant: Variant, block: int, warmup: bool,
                 figures: Mapping[str, float]) -> list[Sample]:
        now = time.time()
        # A suite file's http benchmark may come without metrics: it yields the standard ones.
        metrics = benchmark.metrics or http_metrics(open_loop=bool(benchmark.options.get("rate")))
        return [
            Sample(benchmark.name, variant.name, m.name, float(figures[m.name]), block, warmup=warmup, time=now,
                   machine=self._machine)
            for m in metrics
            if m.name in figures
        ]

    def _closes_notice(self, benchmark: Benchmark, variant: Variant, result: LoadResult) -> list[Notice]:
        """Once per variant: its server closes kept-alive connections after most responses, so every
        request pays a new connection; the user may want that said (and measured) on purpose."""
        if variant.name in self._told_closes or result.server_closes * 2 <= result.completed:
            return []
        self._told_closes.add(variant.name)
        return [Notice(
            "http-no-keepalive",
            f"the server closed the connection after {result.server_closes} of {result.completed} responses "
            "(HTTP/1.0, `Connection: close`, or closing without saying so): each request reconnected, and its connect time counts in its "
            "latency, as with ab without -k",
            "to measure a connection per request on purpose, give --no-keepalive or `keepalive = false` "
            "in a suite; or turn on keep-alive in the server",
            benchmark.name, variant.name,
        )]

    @staticmethod
    def _error_notices(benchmark: Benchmark, variant: Variant, block: int, result: LoadResult,
                       limit: float) -> list[Notice]:
        total = result.completed + result.failed
        bad = result.failed + result.non_2xx
        if total == 0 or bad / total <= limit:
            return []
        kinds = dict(result.errors)
        if result.non_2xx:
            kinds["non-2xx"] = result.non_2xx
        detail = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
        return [Notice(
            "http-errors",
            f"{benchmark.name}, variant {variant.name!r}, {_round(block)}: {bad} of {total} requests failed or "
            f"returned a non-2xx status ({bad / total:.1%}: {detail})",
            "latencies of error responses are measured too; check the URL and the server log",
            benchmark.name, variant.name,
        )]
