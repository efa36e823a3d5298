"""TLS for the built-in engine: the client context (standard `ssl` module), and the check made
before a load that the target's certificate verifies.

Why a check before the load: a certificate that does not verify fails every connect the same
way; said once, before anything is measured, it is one line that names the fix (`--insecure`)
instead of a round of connect errors. wrk never verifies certificates, so the same check keeps
the default (verify) identical for both engines.
"""

from __future__ import annotations

import functools
import os
import socket
import ssl
from dataclasses import dataclass

__all__ = ["client_context", "tls_problem", "TlsProblem", "TLS_ALPN"]

TLS_ALPN = {False: ["http/1.1"], True: ["h2"]}
"""ALPN protocols offered, by whether HTTP/2 is asked for."""


def client_context(insecure: bool, http2: bool = False) -> ssl.SSLContext:
    """A client context: the system's trust store (SSL_CERT_FILE and SSL_CERT_DIR are honoured),
    host names checked, ALPN http/1.1 (or h2); `insecure` accepts any certificate, as curl -k.

    The host name given as `server_hostname` is sent as SNI and checked against the certificate
    (an IP address is checked against the certificate's IP entries and sent as no SNI, RFC 6066 §3).
    Built once per settings and trust store: reading the store costs ~0.2 s of CPU, which every
    round's load would pay; an insecure context reads none.
    """
    where = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    return _context(insecure, http2, where)


@functools.lru_cache(maxsize=16)
def _context(insecure: bool, http2: bool, where: tuple[str | None, str | None]) -> ssl.SSLContext:
    if insecure:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    else:
        context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    context.set_alpn_protocols(TLS_ALPN[http2])
    return context


@dataclass(frozen=True, slots=True)
class TlsProblem:
    """Why a TLS handshake with a server failed: its certificate (`certificate`), or the handshake
    itself (a server that speaks plain http answers the ClientHello with an HTTP error)."""

    certificate: bool
    reason: str


def tls_problem(host: str, port: int, insecure: bool, timeout: float = 10.0) -> TlsProblem | None:
    """Why a TLS handshake with host:port fails, or None when it succeeds (or when nothing answers:
    the load's own connect errors say that); with `insecure`, the certificate is not checked."""
    context = client_context(insecure=insecure)
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            with context.wrap_socket(sock, server_hostname=host):
                return None
    except ssl.SSLCertVerificationError as exc:
        return TlsProblem(True, exc.verify_message or str(exc))
    except ssl.SSLError as exc:
        return TlsProblem(False, exc.reason or str(exc))
    except OSError:
        return None
