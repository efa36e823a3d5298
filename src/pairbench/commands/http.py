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

from pairbench.commands.http_flags import add_load_flags, add_request_flags, resolve_ab_wrk_flags

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["register", "build_http_run"]

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


def http_settings(args: argparse.Namespace) -> Any:
    """`http`'s flags as the builder's typed settings (ab's and wrk's spellings resolved first)."""
    from dataclasses import fields

    from pairbench.flows.builders.http import HttpSettings

    args.url = list(args.url) + list(args.target_urls)
    resolve_ab_wrk_flags(args)
    given = {f.name: getattr(args, f.name) for f in fields(HttpSettings)}
    return HttpSettings(**{k: tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v
                           for k, v in given.items()})


def build_http_run(args: argparse.Namespace) -> tuple[Any, Any]:
    """The Run (variants, one benchmark per URL) and the options its runner is made with."""
    from pairbench.flows.builders.http import http_run

    return http_run(http_settings(args))


def _handle(args: argparse.Namespace) -> int:
    from pairbench.commands.common import measuring_from
    from pairbench.flows.measure import measure

    run, runner_options = build_http_run(args)
    return measure(run, measuring_from(args), kind_options={"http": runner_options})
