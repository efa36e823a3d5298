"""How an HTTP/1 response head is read on the client's per-request path: whether the server closes
after it, whether it is framed exactly like the previous one (then it is not parsed), and which
parser reads the others (httptools when installed, else the hand parser of http1.py).
"""

from __future__ import annotations

from typing import Any

__all__ = ["response_closes", "framed_alike", "httptools_module", "use_response_parser", "response_parser"]


def response_closes(buf: bytes, end: int) -> bool:
    """Whether the server ends the connection after this response (RFC 9112 §9.3): a `Connection`
    header with `close` (value in any case), or HTTP/1.0 without `keep-alive`. `end` is where the
    head ends; the status line has been read (so `buf` has at least 12 bytes).

    This runs for every response whose framing differs from the last one, so the usual cases
    take one search: the header name is found by "onnection" (Connection, connection; a name in
    capitals only, never seen from a server, is not read).
    """
    at = buf.find(b"onnection", 0, end)
    if buf[7] != 48:  # not HTTP/1.0 ("0" is byte 7 of the status line)
        if at < 0:
            return False
        if buf.startswith(b"onnection: keep-alive\r\n", at) and buf.find(b"onnection", at + 9, end) < 0:
            return False  # nginx's spelling
    elif at < 0:
        return True
    head = buf[:end].lower()
    tokens: set[bytes] = set()
    at = head.find(b"\r\nconnection:")
    while at >= 0:
        eol = head.find(b"\r\n", at + 13)
        tokens.update(t.strip() for t in head[at + 13 : eol if eol >= 0 else end].split(b","))
        at = head.find(b"\r\nconnection:", at + 13)
    if b"close" in tokens:
        return True
    return buf[7] == 48 and b"keep-alive" not in tokens


def framed_alike(data: bytes, at: int, tail: bytes) -> bool:
    """Whether a response of the learnt length is framed like the learnt one: the same bytes from
    its Content-Length header (at `at`) on, a 200, and neither an end of head nor a "close"
    before that header. Slices, `==` and `partition` (one argument): `startswith`/`find` with
    bounds parse their arguments through a format string each time (a quarter more instructions)."""
    head = data[:at]
    return (data[at:] == tail and head[9:12] == b"200"
            and not head.partition(b"\r\n\r\n")[1] and not head.partition(b"lose")[1])


_parser: dict[str, Any] = {}
"""The httptools module once looked for ("module": None without it), or the hand parser by choice."""


def httptools_module() -> Any:
    if "module" not in _parser:
        try:
            import httptools
        except ImportError:
            _parser["module"] = None
        else:
            _parser["module"] = httptools
    return _parser["module"]


def use_response_parser(name: str) -> None:
    """"httptools" (when installed) or "hand": the full parse of a response (bench/http_parser.py)."""
    if name not in ("httptools", "hand"):
        raise ValueError(f"unknown response parser {name!r}")
    _parser.pop("module", None)
    if name == "hand":
        _parser["module"] = None


def response_parser() -> str:
    """The parser of responses not framed like the previous one: "httptools" or "hand"."""
    return "hand" if httptools_module() is None else "httptools"
