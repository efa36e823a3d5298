"""The HTTP/2 client sessions of both libraries, against h2's server side in memory (sans-I/O: no
sockets), give the same events."""

from __future__ import annotations

import pytest

from pairbench.runners.http.h2session import ENDED, GOAWAY, RESET, STATUS, library_name, new_session


def _installed(name: str) -> bool:
    try:
        __import__(name)
    except ImportError:
        return False
    return True


LIBRARIES = [pytest.param(n, marks=pytest.mark.skipif(not _installed(n), reason=f"{n} not installed"))
             for n in ("ngh2", "h2")]
HEADERS = [(b":method", b"GET"), (b":path", b"/x"), (b":scheme", b"http"), (b":authority", b"127.0.0.1:1")]


def _server():
    import h2.config
    import h2.connection

    server = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding=None))
    server.initiate_connection()
    return server


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_response_gives_its_status_then_its_end(library: str) -> None:
    client, server = new_session(library), _server()
    client.start()
    sids = [client.request(HEADERS, b""), client.request(HEADERS, b"body")]
    assert sids == [1, 3]
    server.receive_data(client.pending())
    client.feed(server.data_to_send())  # SETTINGS
    server.send_headers(1, [(b":status", b"404"), (b"content-length", b"2")])
    server.send_data(1, b"no", end_stream=True)
    server.send_headers(3, [(b":status", b"200")], end_stream=True)  # no body: the end is on HEADERS
    events = [e for e in client.feed(server.data_to_send()) if e[0] in (STATUS, ENDED)]
    assert events == [(STATUS, 1, 404), (ENDED, 1, 0), (STATUS, 3, 200), (ENDED, 3, 0)]


@pytest.mark.parametrize("library", LIBRARIES)
def test_reset_and_goaway_are_reported(library: str) -> None:
    client, server = new_session(library), _server()
    client.start()
    client.request(HEADERS, b"")
    client.request(HEADERS, b"")
    server.receive_data(client.pending())
    client.feed(server.data_to_send())
    server.reset_stream(1)
    server.close_connection(last_stream_id=1)
    events = client.feed(server.data_to_send())
    assert (RESET, 1, 0) in events and (GOAWAY, 0, 1) in events


def test_the_fastest_installed_library_is_chosen() -> None:
    expected = "ngh2" if _installed("ngh2") else "h2" if _installed("h2") else ""
    assert library_name() == expected
    with pytest.raises(ImportError, match="no HTTP/2 library"):
        new_session("none-such")
