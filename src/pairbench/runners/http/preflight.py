"""The checks made before an http run measures anything, each one error line naming its flag:
a running server that does not answer, or does not speak TLS, or whose certificate does not
verify; a URL whose port is no port; more connections than open files allowed; --http2 settings.

Why before: each of these fails every round the same way, and said once it names the fix where a
round of connect errors, or a traceback from inside the load, would not.
"""

from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import urlsplit

from pairbench.errors import UserError
from pairbench.runners.http.server import port_in_use

__all__ = ["check_running", "check_open_files", "check_http2"]


def check_running(url: str, opts: Mapping[str, Any], source: str, instead: str) -> None:
    """One error line before anything runs when a running server does not answer or its
    certificate does not verify."""
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    port = _port(url, source) or (443 if parts.scheme == "https" else 80)
    if not port_in_use(host, port):
        raise UserError(
            f"cannot connect to {host}:{port} (from {source}): is the server running? Start it, or give "
            f"{instead}" + (" to have pairbench start it" if instead == "--server" else "")
        )
    if parts.scheme == "https":
        _check_tls(url, host, port, bool(opts["insecure"]), source)


def _port(url: str, source: str) -> int | None:
    """The URL's port (None when it gives none), or one error line when it gives no port at all
    (`:99999`, `:abc`, `:0`) rather than urllib's traceback."""
    try:
        port = urlsplit(url).port
    except ValueError:
        port = -1
    if port == 0 or port == -1:
        given = urlsplit(url).netloc.rpartition(":")[2]
        raise UserError(f"{source}: port {given!r} is not a port: give one from 1 to 65535")
    return port


_SPARE_FILES = 64
"""Files a run keeps open beside its connections: the run file, server logs, the event loop, imports."""


def check_open_files(connections: int) -> None:
    """One error line when the connections cannot all be open at once under the process's limit on
    open files: the built-in engine ran out in the middle of the load, in a traceback; wrk, which
    inherits the limit, opened what it could and counted the rest as connect errors."""
    import resource

    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft != resource.RLIM_INFINITY and connections + _SPARE_FILES > soft:
        raise UserError(f"-c {connections} needs {connections} connections open at once, and this process may "
                        f"open {soft} files in all (ulimit -n): raise the limit (ulimit -n "
                        f"{connections + _SPARE_FILES}) or lower -c")


def check_http2(opts: Mapping[str, Any]) -> None:
    """--http2 runs on the built-in engine, in a closed loop on one URL, with a library installed."""
    from pairbench.runners.http.http2 import H2_MISSING, h2_available

    if opts["engine"] != "builtin":
        raise UserError("--http2 runs on the built-in engine (wrk speaks HTTP/1.1): drop --engine wrk")
    if opts["rate"] is not None or opts["mix"] or not opts["keepalive"]:
        raise UserError("--http2 is a closed loop on one URL over kept-alive connections: drop --rate, --mix "
                        "or --no-keepalive")
    if not h2_available():
        raise UserError(H2_MISSING)


def _check_tls(url: str, host: str, port: int, insecure: bool, source: str) -> None:
    """One error line before anything runs when an https target's certificate does not verify, or
    when it does not speak TLS at all (every connect of every round would fail the same way)."""
    from pairbench.runners.http.tls import tls_problem

    problem = tls_problem(host, port, insecure)
    if problem is None:
        return
    if problem.certificate:
        raise UserError(f"{source}: the server's certificate does not verify ({problem.reason}); "
                        "give --insecure to accept it (a self-signed test certificate)")
    plain = "http://" + url.removeprefix("https://")
    raise UserError(f"{source}: no TLS handshake with {host}:{port} ({problem.reason}): if the server "
                    f"speaks plain http there, give {plain}")
