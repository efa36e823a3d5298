"""One client HTTP/2 session's protocol state, from whichever library is installed: `ngh2`
(libnghttp2, in C: what h2load runs on) when it is, else `h2` (pure Python). Both are sans-I/O;
this module gives them one small interface and one event shape, so that http2.py reads
`(kind, stream id, value)` tuples whatever the library.

Why two: per response, h2 spends hundreds of microseconds in Python (HPACK and Huffman decoding,
its state machine), which caps one client core far below the server; ngh2 does the same work in
C. docs/http.md has the figures beside h2load's.
"""

from __future__ import annotations

from typing import Any

__all__ = ["STATUS", "ENDED", "RESET", "GOAWAY", "SessionError", "new_session", "library_name"]

STATUS, ENDED, RESET, GOAWAY = range(4)
"""Event kinds: a response's status (value: the code), a stream's end, a stream reset by the
peer, and GOAWAY (value: the last stream id the server processes)."""


class SessionError(Exception):
    """The peer broke the protocol; the connection is given up."""


def library_name() -> str:
    """The library sessions are made with: "ngh2", "h2", or "" when neither is installed."""
    for name in ("ngh2", "h2"):
        try:
            __import__(name)
        except ImportError:
            continue
        return name
    return ""


class _NgH2Session:
    """libnghttp2 through ngh2: window updates are automatic."""

    def __init__(self) -> None:
        import ngh2

        self._ngh2 = ngh2
        self._conn = ngh2.Connection(ngh2.Role.CLIENT)
        self._kinds = {ngh2.ResponseReceived: self._response, ngh2.DataReceived: self._data,
                       ngh2.StreamReset: self._reset, ngh2.GoAwayReceived: self._goaway}

    def start(self) -> None:
        self._conn.initiate_connection()

    def request(self, headers: list[tuple[bytes, bytes]], body: bytes) -> int:
        sid: int = self._conn.send_request(headers, end_stream=not body)
        if body:
            self._conn.send_data(sid, body, end_stream=True)
        return sid

    def feed(self, data: bytes) -> list[tuple[int, int, int]]:
        try:
            self._conn.receive_data(data)
        except self._ngh2.NGH2Error as exc:
            raise SessionError(str(exc)) from None
        out: list[tuple[int, int, int]] = []
        kinds = self._kinds
        for event in self._conn.events():
            handler = kinds.get(type(event))
            if handler is not None:
                handler(event, out)
        return out

    @staticmethod
    def _response(event: Any, out: list[tuple[int, int, int]]) -> None:
        for name, value in event.headers:
            if name == b":status":
                out.append((STATUS, event.stream_id, int(value)))
                break
        if event.end_stream:
            out.append((ENDED, event.stream_id, 0))

    @staticmethod
    def _data(event: Any, out: list[tuple[int, int, int]]) -> None:
        if event.end_stream:
            out.append((ENDED, event.stream_id, 0))

    @staticmethod
    def _reset(event: Any, out: list[tuple[int, int, int]]) -> None:
        out.append((RESET, event.stream_id, 0))

    @staticmethod
    def _goaway(event: Any, out: list[tuple[int, int, int]]) -> None:
        out.append((GOAWAY, 0, event.last_stream_id))

    def pending(self) -> bytes:
        data: bytes = self._conn.data_to_send()
        self._conn.events()  # events made while sending (none that a client acts on)
        return data


class _H2Session:
    """The pure-Python h2 library, with header validation off (its largest cost per response;
    a load generator reads only `:status`)."""

    def __init__(self) -> None:
        import h2.config
        import h2.connection
        import h2.events as ev
        import h2.exceptions

        config = h2.config.H2Configuration(client_side=True, header_encoding=None, validate_inbound_headers=False,
                                           normalize_inbound_headers=False, validate_outbound_headers=False,
                                           normalize_outbound_headers=False)
        self._conn = h2.connection.H2Connection(config)
        self._ev = ev
        self._errors = (h2.exceptions.ProtocolError,)

    def start(self) -> None:
        self._conn.initiate_connection()

    def request(self, headers: list[tuple[bytes, bytes]], body: bytes) -> int:
        sid: int = self._conn.get_next_available_stream_id()
        self._conn.send_headers(sid, headers, end_stream=not body)
        if body:
            self._conn.send_data(sid, body, end_stream=True)
        return sid

    def feed(self, data: bytes) -> list[tuple[int, int, int]]:
        ev = self._ev
        try:
            events = self._conn.receive_data(data)
        except self._errors as exc:
            raise SessionError(str(exc)) from None
        out: list[tuple[int, int, int]] = []
        event: Any
        for event in events:
            kind = type(event)
            if kind is ev.DataReceived:
                self._conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif kind is ev.ResponseReceived:
                out.append((STATUS, event.stream_id, int(dict(event.headers).get(b":status", b"0"))))
            elif kind is ev.StreamEnded:
                out.append((ENDED, event.stream_id, 0))
            elif kind is ev.StreamReset:
                out.append((RESET, event.stream_id, 0))
            elif kind is ev.ConnectionTerminated:
                out.append((GOAWAY, 0, event.last_stream_id if event.last_stream_id is not None else 1 << 31))
        return out

    def pending(self) -> bytes:
        data: bytes = self._conn.data_to_send()
        return data


def new_session(library: str = "") -> Any:
    """A client session with `library` ("ngh2" or "h2"), or the best one installed."""
    name = library or library_name()
    if name == "ngh2":
        return _NgH2Session()
    if name == "h2":
        return _H2Session()
    raise ImportError("no HTTP/2 library: pip install ngh2 (or h2)")
