"""`pairbench http`: a server per variant and round, loaded by the built-in engine (or wrk).

    pairbench http --server 'ruby-head app.rb -p {port}' --server 'ruby-kclass app.rb -p {port}' \\
        --url /t/1495 --url / -n 200 -c 1
    pairbench http --server 'passenger start -p {port}' -L ruby ruby-head,ruby-hash --duration 20 -c 5 ...
    pairbench http --url http://127.0.0.1:8080/ --rate 500 --duration 30

Each --url is its own benchmark (its own comparison table row group). Top-level imports stay
light: the engine, numpy and the reports are imported inside the handler.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys

from pairbench.commands.http_flags import add_load_flags, add_request_flags, resolve_ab_wrk_flags
from pairbench.errors import UserError

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any, Sequence

__all__ = ["register", "build_http_run", "demo_http_run", "DEMO_APP"]

# A str, not a Path: pathlib is not imported at start-up.
DEMO_APP = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "data", "demo_app.py")

FLAG_NAMES = {"url": "--url", "mix": "--mix", "method": "-m/--method", "headers": "-H/--header", "body": "--body",
              "connections": "-c/--concurrency", "requests": "-n/--requests", "duration": "--duration",
              "rate": "--rate", "keepalive": "--no-keepalive", "timeout": "--timeout", "warmup_time": "--warmup-time",
              "warmup_requests": "--warmup-requests", "port": "--port", "ready_path": "--ready-path",
              "ready_timeout": "--ready-timeout", "grace": "--grace", "engine": "--engine",
              "error_rate_warning": "--error-rate-warning", "log_dir": "--log-dir",
              "insecure": "--insecure", "threads": "--threads", "http2": "--http2", "streams": "--streams"}
"""The flag that sets each http option, for error messages."""


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "http",
        help="compare web servers: a server per variant, loaded in interleaved rounds",
        description="Start a server per variant and round, load it with the built-in engine (or wrk), and "
        "compare throughput and latency per URL with confidence intervals.",
    )
    g = p.add_argument_group("servers (variants)")
    g.add_argument("--server", action="append", default=[], metavar="CMD",
                   help="server start command, one per variant; {port} is replaced by a free port")
    g.add_argument("--name", action="append", default=[], metavar="NAME", help="name of each --server variant")
    g.add_argument("-L", "--parameter-list", nargs=2, action="append", default=[], metavar=("NAME", "VALUES"),
                   help="a variant per comma-separated value: {NAME} in the command, else env var NAME")
    g.add_argument("--env", action="append", default=[], metavar="K=V", help="environment for every server, repeatable")
    g.add_argument("--unset-env", action="append", default=[], metavar="NAME",
                   help="remove NAME from the servers' environment, repeatable")
    g.add_argument("--cwd", default=None, help="working directory of the servers")
    g.add_argument("--port", type=int, default=None, help="fixed port (when the command cannot take {port})")
    g.add_argument("--ready-path", default=None, help="path polled until the server answers (default: first URL)")
    g.add_argument("--ready-tcp", action="store_true", help="ready as soon as the port accepts connections")
    g.add_argument("--ready-timeout", type=float, default=30.0, metavar="S",
                   help="seconds a server has to become ready (default 30)")
    g.add_argument("--grace", type=float, default=5.0, metavar="S", help="seconds from SIGTERM to SIGKILL when a server is stopped (default 5)")
    g.add_argument("--log-dir", default=None, help="where server logs go (default: a temporary directory)")
    g.add_argument("--target", action="append", default=[], metavar="NAME=URL",
                   help="a variant that is a server already running at URL (its base; --url paths are loaded "
                   "under it), repeatable; loaded in interleaved rounds like started servers, never restarted")
    g = p.add_argument_group("load")
    g.add_argument("target_urls", nargs="*", default=[], metavar="URL",
                   help="full URL of a running server, as ab and wrk take it (the same as --url URL)")
    g.add_argument("--url", action="append", default=[], metavar="URL",
                   help="path to load (or full URL of a running server); repeat for several")
    g.add_argument("--mix", default=None, metavar="W1,W2,...",
                   help="also load the URLs as one weighted mix (one weight per --url)")
    g.add_argument("--warmup-time", type=float, default=None, metavar="S",
                   help="seconds of unmeasured load before each round (default 1 with --server, else 0)")
    g.add_argument("--warmup-requests", type=int, default=0, metavar="N",
                   help="requests of unmeasured load before each round (default 0)")
    add_load_flags(g)
    g.add_argument("--error-rate-warning", type=float, default=1.0, metavar="PCT",
                   help="warn when more than PCT%% of a round's requests fail or are non-2xx (default 1)")
    add_request_flags(p.add_argument_group("requests (ab's and wrk's flags)"))
    from pairbench.commands.common import add_run_options

    # Warm-up happens inside each round (--warmup-time): a whole warm-up server start per
    # variant (-w) is off by default.
    add_run_options(p, runs=10, warmup=0)
    p.set_defaults(handler=_handle)


def _split_env(items: Sequence[str], flag: str) -> dict[str, str]:
    env = {}
    for item in items:
        if "=" not in item or item.startswith("="):
            raise UserError(f"{flag} {item!r}: expected NAME=VALUE")
        k, v = item.split("=", 1)
        env[k] = v
    return env


def _default_names(commands: Sequence[str]) -> list[str]:
    import shlex
    firsts = [os.path.basename(shlex.split(c)[0]) if c.strip() else "" for c in commands]
    if all(firsts) and len(set(firsts)) == len(firsts):
        return firsts
    return [f"server{i + 1}" for i in range(len(commands))]


def _body_and_headers(args: argparse.Namespace) -> tuple[str, list[list[str]]]:
    """The request body (--body or --body-file) and the -H headers as [name, value] pairs."""
    from pathlib import Path
    if args.body is not None and args.body_file is not None:
        raise UserError("give --body or --body-file, not both")
    body = args.body or ""
    if args.body_file:
        try:
            body = Path(args.body_file).read_text()
        except OSError as exc:
            raise UserError(f"--body-file {args.body_file!r}: {exc.strerror}") from None
    headers: list[list[str]] = []
    for h in args.header:
        if ":" not in h:
            raise UserError(f"-H {h!r}: expected 'Name: value'")
        k, v = h.split(":", 1)
        headers.append([k.strip(), v.strip()])
    return body, headers


def _target_variants(args: argparse.Namespace) -> list[Any]:
    """A variant per --target NAME=URL: a running server, its URL base in the variant's meta."""
    from urllib.parse import urlsplit

    from pairbench.model import Variant

    if args.server or args.parameter_list or args.name:
        raise UserError("--target names running servers: give --target or --server (with --name, -L), not both")
    variants = []
    for item in args.target:
        name, sep, url = item.partition("=")
        parts = urlsplit(url.strip())
        if not sep or not name.strip() or parts.scheme not in ("http", "https") or not parts.hostname:
            raise UserError(f"--target {item!r}: expected NAME=URL, such as head=http://127.0.0.1:8080")
        if parts.query or parts.fragment:
            raise UserError(f"--target {item!r}: give the URL base only; the paths and queries go in --url")
        variants.append(Variant(name=name.strip(), meta={"http_target": url.strip().rstrip("/")}))
    if len({v.name for v in variants}) != len(variants):
        raise UserError("two --target have the same name: give each running server its own NAME")
    for url in args.url:
        if urlsplit(url).scheme:
            raise UserError(f"--url {url!r} is absolute, but --target gives the servers: give a path such as "
                            f"{urlsplit(url).path or '/'!r}")
    return variants


def _variants(args: argparse.Namespace) -> list[Any]:
    """A variant per --server and -L value: {NAME} in the command, else env var NAME."""
    from pairbench.model import Variant

    if args.target:
        return _target_variants(args)
    env = _split_env(args.env, "--env")
    servers = list(args.server) or [""]
    names = list(args.name) or (_default_names(servers) if args.server else ["target"])
    params: list[tuple[str, list[str]]] = []
    for pname, values in args.parameter_list:
        vals = [v for v in values.split(",") if v != ""]
        if not vals:
            raise UserError(f"-L {pname}: give comma-separated values")
        params.append((pname, vals))
    if params and not args.server:
        raise UserError("-L needs --server: the values are substituted into the server command")
    variants = []
    for (command, sname), combo in itertools.product(
        zip(servers, names), itertools.product(*[[(n, v) for v in vals] for n, vals in params])
    ):
        venv = dict(env)
        cmd = command
        for pname, value in combo:
            if "{" + pname + "}" in cmd:
                cmd = cmd.replace("{" + pname + "}", value)
            else:
                venv[pname] = value
        label = ",".join(v if len(params) == 1 else f"{n}={v}" for n, v in combo)
        name = sname if not combo else (label if len(servers) == 1 else f"{sname}/{label}")
        variants.append(Variant(name=name, command=cmd, env=venv, unset_env=tuple(args.unset_env), cwd=args.cwd,
                                params=dict(combo)))
    if len({v.name for v in variants}) != len(variants):
        raise UserError("two variants have the same name: give distinct --name values")
    return variants


def build_http_run(args: argparse.Namespace) -> tuple[Any, Any]:
    """The Run (variants, one benchmark per URL) and the options its runner is made with."""
    import dataclasses
    from pairbench.model import Benchmark
    from pairbench.runners.http import HttpOptions
    from pairbench.runners.kinds import get_kind
    from pairbench.runners.options import Flags, as_mapping

    args.url = list(args.url) + list(args.target_urls)
    resolve_ab_wrk_flags(args)
    if not args.url:
        if args.server or args.target:
            args.url = ["/"]
        else:
            raise UserError("give --url (a path with --server or --target, or the full URL of a running server)")
    if args.requests is None and args.duration is None:
        if args.rate is not None:
            raise UserError("--rate needs --duration (or -n) to know how long to load")
        args.duration = 5.0
    for flag, value in (("-n", args.requests), ("-c", args.concurrency)):
        if value is not None and value < 1:
            raise UserError(f"{flag} must be at least 1, not {value}")
    if any(not c.strip() for c in args.server):
        raise UserError("--server '': empty command; give the command that starts the server, with {port}")
    if any(not n.strip() for n in args.name):
        raise UserError("--name '': a variant's name cannot be empty")
    if args.name and len(args.name) != len(args.server):
        raise UserError(f"{len(args.name)} --name for {len(args.server)} --server: give one name per server")
    body, headers = _body_and_headers(args)
    variants = _variants(args)
    variants[0] = dataclasses.replace(variants[0], baseline=True)

    warmup_time = args.warmup_time if args.warmup_time is not None else (1.0 if args.server else 0.0)
    common_opts: dict[str, Any] = {
        "method": args.method.upper(), "headers": headers, "body": body, "connections": args.concurrency,
        "requests": args.requests, "duration": args.duration, "rate": args.rate,
        "keepalive": not args.no_keepalive, "timeout": args.timeout, "warmup_time": warmup_time,
        "warmup_requests": args.warmup_requests, "port": args.port,
        "ready_path": "" if args.ready_tcp else args.ready_path, "ready_timeout": args.ready_timeout,
        "grace": args.grace, "engine": args.engine, "error_rate_warning": args.error_rate_warning / 100,
        "log_dir": args.log_dir, "insecure": args.insecure, "threads": args.threads,
        "http2": args.http2, "streams": args.streams,
    }
    prefix = "" if args.method.upper() == "GET" else args.method.upper() + " "
    kind = get_kind("http")
    where = Flags(FLAG_NAMES)

    def benchmark(name: str, options: dict[str, Any]) -> Benchmark:
        typed = kind.parse_options(options, where)
        return Benchmark(name=name, kind="http", metrics=kind.metrics(typed, ()), options=as_mapping(typed))

    benchmarks = []
    seen = set()
    for url in args.url:
        name = prefix + url
        if name in seen:
            raise UserError(f"--url {url!r} is given twice")
        seen.add(name)
        benchmarks.append(benchmark(name, {**common_opts, "url": url}))
    if args.mix:
        try:
            weights = [float(w) for w in args.mix.split(",")]
        except ValueError:
            raise UserError(f"--mix {args.mix!r}: expected numbers such as 3,1") from None
        if len(weights) != len(args.url) or any(w <= 0 for w in weights):
            raise UserError(f"--mix {args.mix!r}: give one positive weight per --url ({len(args.url)})")
        mix = [{"url": u, "weight": w} for u, w in zip(args.url, weights)]
        benchmarks.append(benchmark(prefix + "mix", {**common_opts, "url": args.url[0], "mix": mix}))
    from pairbench.commands.common import new_run

    run = new_run(variants, benchmarks)
    run.metadata["http_engine"] = _engine_label(args)
    return run, HttpOptions(log_dir=args.log_dir)


def _engine_label(args: argparse.Namespace) -> str:
    """The run file's `metadata.http_engine`: the engine and the loop it runs on (engine.loop_for)."""
    from pairbench.runners.http.engine import choose_loop, engine_loop_name, loop_label

    if args.engine == "wrk":
        return str(args.engine)
    https = any("https://" in str(u) for u in [*args.url, *(args.target or [])])
    chosen = choose_loop(args.concurrency, args.rate, not args.no_keepalive, https, 1)  # one URL per benchmark
    loop = loop_label(chosen, https, args.rate is None and not args.no_keepalive)
    if args.http2:
        from pairbench.runners.http.h2session import library_name

        loop = f"HTTP/2 with {library_name() or 'no library'}, {engine_loop_name()}"
    return f"builtin ({loop})"


def _handle(args: argparse.Namespace) -> int:
    from pairbench.commands.common import options_from_args, run_measured

    run, runner_options = build_http_run(args)
    return run_measured(run, options_from_args(args), args, kind_options={"http": runner_options})


def demo_http_run(python: str = sys.executable, works: tuple[int, int] = (10, 30), duration: float = 1.0,
                  connections: int = 2) -> Any:
    """A Run comparing the bundled demo app at two amounts of work per request.

    For `pairbench demo`: `run_pipeline(run, options)` with options.warmup = 0 (each round already warms up for 0.3 s); 6 rounds take about 35 s on a
    quiet 2-core machine. The candidate does three times the work per page, so it must come out slower.
    """
    import shlex
    from pairbench.commands.common import new_run
    from pairbench.model import Benchmark, Variant
    from pairbench.runners.http import http_metrics

    cmd = f"{shlex.quote(python)} {shlex.quote(str(DEMO_APP))} --port {{port}}"
    variants = [
        Variant(name=f"work={works[0]}", command=cmd, env={"PAIRBENCH_DEMO_WORK": str(works[0])}, baseline=True),
        Variant(name=f"work={works[1]}", command=cmd, env={"PAIRBENCH_DEMO_WORK": str(works[1])}),
    ]
    bench = Benchmark(name="/", kind="http", metrics=http_metrics(),
                      options={"url": "/", "connections": connections, "duration": duration, "warmup_time": 0.3,
                               "ready_path": "/health"})
    run = new_run(variants, [bench])
    run.metadata["demo"] = "http"
    return run
