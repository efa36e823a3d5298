"""The load and request flags of `pairbench http`, in the spellings of ab and wrk, and how the
ones whose meaning depends on the engine are resolved.

Why here: a user of ab or wrk pastes their command line (`ab -k -c 10 -t 30 URL`,
`wrk -t12 -c400 -d30s URL`) and expects the same meaning. The two tools disagree on `-t` (ab: a
time limit in seconds; wrk: threads), so `-t` is wrk's threads with `--engine wrk` and ab's time
limit otherwise; `--threads` and `--time-limit` say which without depending on the engine. ab
keeps connections alive only with `-k`; pairbench keeps them alive by default, so `-k` is
accepted and changes nothing, and `--no-keepalive` is ab without `-k`.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from pairbench.errors import UserError

__all__ = ["add_load_flags", "add_request_flags", "resolve_ab_wrk_flags", "AB_TIME_LIMIT_REQUESTS", "seconds",
           "count"]

AB_TIME_LIMIT_REQUESTS = 50_000
"""ab's `-t` "implies a -n 50000 internally" (ab(1)): the round ends at the limit or at 50,000 requests."""

_TIME_UNITS = {"": 1.0, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_SI = {"": 1, "k": 1_000, "K": 1_000, "m": 1_000_000, "M": 1_000_000, "g": 1_000_000_000, "G": 1_000_000_000}


def seconds(text: str) -> float:
    """A duration: seconds, or with wrk's units (`500ms`, `30s`, `2m`, `1h`). Its bounds are the
    kind's to check (runners/options.py), with the same message as in a suite file."""
    m = re.fullmatch(r"\s*(-?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(ms|s|m|h|)\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration (seconds, or 500ms, 30s, 2m, 1h)")
    return float(m.group(1)) * _TIME_UNITS[m.group(2)]


def count(text: str) -> int:
    """A whole number of at least 1, with wrk's SI suffixes (`1k`, `1M`)."""
    m = re.fullmatch(r"\s*([0-9]+)\s*([kKmMgG]?)\s*", text)
    if not m or int(m.group(1)) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1 (such as 10, 1k)")
    return int(m.group(1)) * _SI[m.group(2)]


def add_load_flags(g: Any) -> None:
    """How much load: connections, count or duration, rate, keep-alive, timeout, engine."""
    g.add_argument("-n", "--requests", type=count, default=None, metavar="N",
                   help="requests per round (as ab -n); default: none, the round lasts --duration "
                   "(5 s when neither is given); with a duration too, whichever ends first")
    g.add_argument("-c", "--concurrency", "--connections", dest="concurrency", type=count, default=1, metavar="N",
                   help="connections open at once (as ab -c and wrk -c; default 1)")
    g.add_argument("-d", "--duration", type=seconds, default=None, metavar="T",
                   help="seconds of load per round; wrk's units work (30s, 2m); default 5 s when -n is not given")
    g.add_argument("-t", dest="t_flag", type=count, default=None, metavar="N",
                   help="as ab: a time limit of N seconds per round, which implies -n 50000 as in ab; "
                   "with --engine wrk, as wrk: N threads")
    g.add_argument("--time-limit", type=seconds, default=None, metavar="T",
                   help="ab's -t whatever the engine: stop each round after T, or after 50,000 requests")
    g.add_argument("--threads", type=count, default=None, metavar="N",
                   help="wrk's -t whatever the engine (--engine wrk only): wrk threads "
                   "(default: as many as CPUs, at most -c)")
    g.add_argument("--rate", type=float, default=None, metavar="R",
                   help="open loop: R requests/s on a fixed schedule (latency from intended send time); "
                   "default: closed loop")
    keep = g.add_mutually_exclusive_group()
    keep.add_argument("-k", "--keepalive", action="store_true",
                      help="keep connections alive (ab -k). On by default in pairbench, unlike ab: "
                      "-k changes nothing and is accepted for ab's command lines")
    keep.add_argument("--no-keepalive", action="store_true",
                      help="a new connection per request, its connect time in its latency (ab without -k)")
    g.add_argument("--timeout", type=seconds, default=30.0, metavar="T",
                   help="per-request timeout (as ab -s, wrk --timeout; default 30 s)")
    g.add_argument("--latency", action="store_true",
                   help="accepted for wrk's command lines: the latency percentiles are always reported")
    g.add_argument("--engine", choices=("builtin", "wrk"), default="builtin",
                   help="load generator: the built-in engine (default) or wrk (--duration, keep-alive, one URL)")
    g.add_argument("--http2", action="store_true",
                   help="HTTP/2 (built-in engine): h2c with prior knowledge for http://, ALPN h2 for https://; "
                   "latency per stream (default: HTTP/1.1)")
    g.add_argument("--streams", type=count, default=1, metavar="N",
                   help="with --http2: requests in flight per connection (as h2load -m; default 1)")
    g.add_argument("--insecure", action="store_true",
                   help="https: accept a certificate that does not verify, such as a self-signed one (as curl -k; "
                   "default: the certificate and host name are checked, for both engines)")


def add_request_flags(g: Any) -> None:
    """What each request is: method, headers, body."""
    g.add_argument("-m", "--method", default=None, metavar="METHOD",
                   help="request method (as ab -m; default GET, or POST with -p, PUT with -u, HEAD with -i)")
    g.add_argument("-H", "--header", action="append", default=[], metavar="'Name: value'",
                   help="add a request header, repeatable (as ab -H and wrk -H), e.g. -H 'Accept-Encoding: gzip'")
    g.add_argument("--body", default=None, metavar="TEXT",
                   help="request body, sent with a Content-Length (default: none)")
    g.add_argument("--body-file", default=None, metavar="FILE", help="request body read from FILE")
    g.add_argument("-p", dest="post_file", default=None, metavar="FILE",
                   help="as ab -p: POST the contents of FILE (Content-Type from -T)")
    g.add_argument("-u", dest="put_file", default=None, metavar="FILE",
                   help="as ab -u: PUT the contents of FILE (Content-Type from -T)")
    g.add_argument("-T", dest="content_type", default=None, metavar="TYPE",
                   help="Content-Type of the body (as ab -T; default text/plain with -p or -u, as ab)")
    g.add_argument("-i", dest="head", action="store_true", help="as ab -i: HEAD requests instead of GET")


def resolve_ab_wrk_flags(args: argparse.Namespace) -> None:
    """Turn the ab and wrk spellings into the command's own settings, in place: `-t` by engine,
    ab's time limit as a duration with its implied request count, `-p`/`-u`/`-i` as method and
    body. Raises UserError for flags that contradict each other."""
    if args.t_flag is not None:
        if args.engine == "wrk":
            if args.threads is not None:
                raise UserError("give -t or --threads, not both (with --engine wrk, -t is wrk's threads)")
            args.threads = args.t_flag
        else:
            if args.time_limit is not None:
                raise UserError("give -t or --time-limit, not both (-t is ab's time limit)")
            args.time_limit = float(args.t_flag)
    if args.time_limit is not None:
        if args.duration is not None:
            raise UserError("give a time limit (-t, --time-limit) or --duration, not both")
        args.duration = args.time_limit
        if args.requests is None:
            args.requests = AB_TIME_LIMIT_REQUESTS
    if args.threads is not None:
        if args.engine != "wrk":
            raise UserError("--threads sets wrk's threads: give --engine wrk (the built-in engine runs on one core)")
        if args.threads > args.concurrency:
            raise UserError(f"--threads {args.threads} is more than the {args.concurrency} connection(s) of -c: "
                            "wrk needs at least one connection per thread")
    if args.streams != 1 and not args.http2:
        raise UserError("--streams is the number of HTTP/2 streams per connection: give --http2 too")
    _resolve_request(args)


def _resolve_request(args: argparse.Namespace) -> None:
    files = [(flag, path, method) for flag, path, method in
             (("-p", args.post_file, "POST"), ("-u", args.put_file, "PUT")) if path is not None]
    chosen = [flag for flag, on in (("-p", args.post_file), ("-u", args.put_file), ("-i", args.head),
                                    ("--body", args.body), ("--body-file", args.body_file)) if on]
    if len(chosen) > 1:
        raise UserError(f"give one of {', '.join(chosen)}: each sets the request's body or method")
    implied = "GET"
    if files:
        flag, path, implied = files[0]
        args.body_file = path
        names = {h.split(":", 1)[0].strip().lower() for h in args.header}
        if "content-type" not in names:
            args.header.append(f"Content-Type: {args.content_type or 'text/plain'}")
    elif args.content_type is not None:
        args.header.append(f"Content-Type: {args.content_type}")
    if args.head:
        implied = "HEAD"
        if args.method and args.method.upper() != "HEAD":  # -m won in silence
            raise UserError(f"give -i or -m {args.method}: -i sends HEAD requests")
    args.method = (args.method or implied).upper()
