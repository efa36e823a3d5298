"""The builder of an HTTP run (`pairbench http`): a server (or a running target) per variant, a
benchmark per URL (and one for a weighted mix).

`http_run(HttpSettings(...))` takes the settings after ab's and wrk's spellings are resolved
(commands/http_flags.py), checks them, and names each benchmark after its method and URL.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from typing import Any, Sequence

from pairbench.errors import UserError
from pairbench.flows.builders.common import new_run
from pairbench.model import Run

__all__ = ["HttpSettings", "http_run", "FLAG_NAMES"]

FLAG_NAMES = {"url": "--url", "mix": "--mix", "method": "-m/--method", "headers": "-H/--header", "body": "--body",
              "connections": "-c/--concurrency", "requests": "-n/--requests", "duration": "--duration",
              "rate": "--rate", "keepalive": "--no-keepalive", "timeout": "--timeout", "warmup_time": "--warmup-time",
              "warmup_requests": "--warmup-requests", "port": "--port", "ready_path": "--ready-path",
              "ready_timeout": "--ready-timeout", "grace": "--grace", "engine": "--engine",
              "error_rate_warning": "--error-rate-warning", "log_dir": "--log-dir",
              "insecure": "--insecure", "threads": "--threads", "http2": "--http2", "streams": "--streams"}
"""The flag that sets each http option, for error messages."""


@dataclass(frozen=True, slots=True)
class HttpSettings:
    """What `http`'s flags say, by their names, once ab's and wrk's spellings are resolved
    (defaults: `http` without the flag)."""

    server: tuple[str, ...] = ()
    """Server start commands, one per variant; {port} is replaced by a free port."""
    name: tuple[str, ...] = ()
    """The name of each --server variant."""
    parameter_list: tuple[tuple[str, str], ...] = ()
    """-L NAME V1,V2: a variant per value."""
    env: tuple[str, ...] = ()
    """NAME=VALUE for every server."""
    unset_env: tuple[str, ...] = ()
    cwd: str | None = None
    port: int | None = None
    ready_path: str | None = None
    ready_tcp: bool = False
    ready_timeout: float = 30.0
    grace: float = 5.0
    log_dir: str | None = None
    target: tuple[str, ...] = ()
    """NAME=URL: a variant that is a server already running."""
    url: tuple[str, ...] = ()
    """Paths (or full URLs of a running server) to load, a benchmark each."""
    mix: str | None = None
    """W1,W2,...: also the URLs as one weighted mix."""
    warmup_time: float | None = None
    warmup_requests: int = 0
    requests: int | None = None
    concurrency: int = 1
    duration: float | None = None
    rate: float | None = None
    no_keepalive: bool = False
    timeout: float = 30.0
    engine: str = "builtin"
    http2: bool = False
    streams: int = 1
    insecure: bool = False
    threads: int | None = None
    error_rate_warning: float = 1.0
    """Percent of failed or non-2xx requests in a round that gives a warning."""
    method: str = "GET"
    header: tuple[str, ...] = ()
    """'Name: value' request headers."""
    body: str | None = None
    body_file: str | None = None


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


def _body_and_headers(s: HttpSettings) -> tuple[str, list[list[str]]]:
    """The request body (--body or --body-file) and the -H headers as [name, value] pairs."""
    from pathlib import Path
    if s.body is not None and s.body_file is not None:
        raise UserError("give --body or --body-file, not both")
    body = s.body or ""
    if s.body_file:
        try:
            body = Path(s.body_file).read_text()
        except OSError as exc:
            raise UserError(f"--body-file {s.body_file!r}: {exc.strerror}") from None
    headers: list[list[str]] = []
    for h in s.header:
        if ":" not in h:
            raise UserError(f"-H {h!r}: expected 'Name: value'")
        k, v = h.split(":", 1)
        headers.append([k.strip(), v.strip()])
    return body, headers


def _target_variants(s: HttpSettings) -> list[Any]:
    """A variant per --target NAME=URL: a running server, its URL base in the variant's meta."""
    from urllib.parse import urlsplit

    from pairbench.model import Variant

    if s.server or s.parameter_list or s.name:
        raise UserError("--target names running servers: give --target or --server (with --name, -L), not both")
    variants = []
    for item in s.target:
        name, sep, url = item.partition("=")
        parts = urlsplit(url.strip())
        if not sep or not name.strip() or parts.scheme not in ("http", "https") or not parts.hostname:
            raise UserError(f"--target {item!r}: expected NAME=URL, such as head=http://127.0.0.1:8080")
        if parts.query or parts.fragment:
            raise UserError(f"--target {item!r}: give the URL base only; the paths and queries go in --url")
        variants.append(Variant(name=name.strip(), meta={"http_target": url.strip().rstrip("/")}))
    if len({v.name for v in variants}) != len(variants):
        raise UserError("two --target have the same name: give each running server its own NAME")
    for url in s.url:
        if urlsplit(url).scheme:
            raise UserError(f"--url {url!r} is absolute, but --target gives the servers: give a path such as "
                            f"{urlsplit(url).path or '/'!r}")
    return variants


def _no_server_flags(s: HttpSettings) -> None:
    """Without --server, pairbench starts nothing: a flag that sets up a started server would
    change nothing, and is refused rather than ignored."""
    given = (("--port", s.port is not None), ("--ready-path", s.ready_path is not None), ("--ready-tcp", s.ready_tcp),
             ("--env", bool(s.env)), ("--unset-env", bool(s.unset_env)), ("--cwd", s.cwd is not None),
             ("--log-dir", s.log_dir is not None))
    for flag, set_ in given:
        if set_:
            raise UserError(f"{flag} sets up the servers pairbench starts (--server); the servers at the URLs "
                            "given are already running: drop it, or give --server")


def _variants(s: HttpSettings) -> list[Any]:
    """A variant per --server and -L value: {NAME} in the command, else env var NAME."""
    from pairbench.model import Variant

    if s.target:
        return _target_variants(s)
    env = _split_env(s.env, "--env")
    servers = list(s.server) or [""]
    names = list(s.name) or (_default_names(servers) if s.server else ["target"])
    params: list[tuple[str, list[str]]] = []
    for pname, values in s.parameter_list:
        vals = [v for v in values.split(",") if v != ""]
        if not vals:
            raise UserError(f"-L {pname}: give comma-separated values")
        params.append((pname, vals))
    if params and not s.server:
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
        variants.append(Variant(name=name, command=cmd, env=venv, unset_env=tuple(s.unset_env), cwd=s.cwd,
                                params=dict(combo)))
    if len({v.name for v in variants}) != len(variants):
        raise UserError("two variants have the same name: give distinct --name values")
    return variants


def http_run(settings: HttpSettings) -> tuple[Run, Any]:
    """The Run (variants, one benchmark per URL) and the options its runner is made with
    (`kind_options={"http": ...}` of the measuring flow)."""
    import dataclasses

    from pairbench.model import Benchmark
    from pairbench.runners.kinds import get_kind
    from pairbench.runners.http import HttpOptions
    from pairbench.runners.options import Flags, as_mapping

    s = settings
    if not s.url:
        if s.server or s.target:
            s = dataclasses.replace(s, url=("/",))
        else:
            raise UserError("give --url (a path with --server or --target, or the full URL of a running server)")
    if s.requests is None and s.duration is None:
        if s.rate is not None:
            raise UserError("--rate needs --duration (or -n) to know how long to load")
        s = dataclasses.replace(s, duration=5.0)
    for flag, value in (("-n", s.requests), ("-c", s.concurrency)):
        if value is not None and value < 1:
            raise UserError(f"{flag} must be at least 1, not {value}")
    if any(not c.strip() for c in s.server):
        raise UserError("--server '': empty command; give the command that starts the server, with {port}")
    if any(not n.strip() for n in s.name):
        raise UserError("--name '': a variant's name cannot be empty")
    if s.name and len(s.name) != len(s.server):
        raise UserError(f"{len(s.name)} --name for {len(s.server)} --server: give one name per server")
    if not 0 <= s.error_rate_warning <= 100:  # a percentage here; the kind's option is its fraction
        raise UserError(f"--error-rate-warning is a percentage from 0 to 100, not {s.error_rate_warning:g}")
    if not s.server:
        _no_server_flags(s)
    body, headers = _body_and_headers(s)
    variants = _variants(s)
    variants[0] = dataclasses.replace(variants[0], baseline=True)

    warmup_time = s.warmup_time if s.warmup_time is not None else (1.0 if s.server else 0.0)
    common_opts: dict[str, Any] = {
        "method": s.method.upper(), "headers": headers, "body": body, "connections": s.concurrency,
        "requests": s.requests, "duration": s.duration, "rate": s.rate,
        "keepalive": not s.no_keepalive, "timeout": s.timeout, "warmup_time": warmup_time,
        "warmup_requests": s.warmup_requests, "port": s.port,
        "ready_path": "" if s.ready_tcp else s.ready_path, "ready_timeout": s.ready_timeout,
        "grace": s.grace, "engine": s.engine, "error_rate_warning": s.error_rate_warning / 100,
        "log_dir": s.log_dir, "insecure": s.insecure, "threads": s.threads,
        "http2": s.http2, "streams": s.streams,
    }
    prefix = "" if s.method.upper() == "GET" else s.method.upper() + " "
    kind = get_kind("http")
    where = Flags(FLAG_NAMES)

    def benchmark(name: str, options: dict[str, Any]) -> Benchmark:
        typed = kind.parse_options(options, where)
        return Benchmark(name=name, kind="http", metrics=kind.metrics(typed, ()), options=as_mapping(typed))

    benchmarks = []
    seen = set()
    for url in s.url:
        name = prefix + url
        if name in seen:
            raise UserError(f"--url {url!r} is given twice")
        seen.add(name)
        benchmarks.append(benchmark(name, {**common_opts, "url": url}))
    if s.mix:
        try:
            weights = [float(w) for w in s.mix.split(",")]
        except ValueError:
            raise UserError(f"--mix {s.mix!r}: expected numbers such as 3,1") from None
        if len(weights) != len(s.url) or any(w <= 0 for w in weights):
            raise UserError(f"--mix {s.mix!r}: give one positive weight per --url ({len(s.url)})")
        mix = [{"url": u, "weight": w} for u, w in zip(s.url, weights)]
        benchmarks.append(benchmark(prefix + "mix", {**common_opts, "url": s.url[0], "mix": mix}))
    run = new_run(variants, benchmarks)
    run.metadata["http_engine"] = _engine_label(s)
    return run, HttpOptions(log_dir=s.log_dir)


def _engine_label(s: HttpSettings) -> str:
    """The run file's `metadata.http_engine`: the engine and the loop it runs on (engine.loop_for)."""
    from pairbench.runners.http.engine import choose_loop, engine_loop_name, loop_label

    if s.engine == "wrk":
        return str(s.engine)
    https = any("https://" in str(u) for u in [*s.url, *(s.target or [])])
    chosen = choose_loop(s.concurrency, s.rate, not s.no_keepalive, https, 1)  # one URL per benchmark
    loop = loop_label(chosen, https, s.rate is None and not s.no_keepalive)
    if s.http2:
        from pairbench.runners.http.h2session import library_name

        loop = f"HTTP/2 with {library_name() or 'no library'}, {engine_loop_name()}"
    return f"builtin ({loop})"
