"""HTTPS (and HTTP/2) against real nginx on 127.0.0.1 with a certificate made in the test's temp dir."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.e2e._http_servers import Nginx

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("nginx") is None or shutil.which("openssl") is None,
                                 reason="needs nginx and openssl (installed by .ci/run)")]


def _values(path: Path) -> dict[str, list[float]]:
    values: dict[str, list[float]] = {}
    for s in json.loads(path.read_text())["samples"]:
        values.setdefault(s["metric"], []).append(s["value"])
    return values


@pytest.mark.parametrize("engine", ["builtin", "wrk"])
@pytest.mark.parametrize("connections", ["1", "4"])
def test_https_with_a_self_signed_certificate_loads_with_insecure_and_no_errors(
        run_cli, tmp_path: Path, engine: str, connections: str) -> None:
    if engine == "wrk" and shutil.which("wrk") is None:
        pytest.skip("needs wrk")
    nginx = Nginx(tmp_path, tls=True)
    try:
        out = tmp_path / "run.json"
        r = run_cli("http", "--url", nginx.url, "--insecure", "--engine", engine, "-c", connections,
                    "--duration", "1", "--runs", "2", "--export-json", str(out))
        assert r.returncode == 0, r.stderr
        values = _values(out)
        assert min(values["requests"]) > 100 and values["failed"] == [0.0, 0.0]
        assert values["non_2xx"] == [0.0, 0.0]
        # wrk says how many responses were 400 or more, not each one's status class.
        assert values["status_2xx"] == values["requests"] if engine == "builtin" else "status_2xx" not in values
        # 100-byte body plus headers per response: the bytes were read through TLS.
        assert min(values["bytes"]) > 100 * min(values["requests"])
        # One or several kept-alive connections: the epoll loop's C step (test_http_c_step.py).
        assert json.loads(out.read_text())["metadata"]["http_engine"] in ("wrk", "builtin (epoll, C step)")
    finally:
        nginx.stop()


@pytest.mark.parametrize("engine", ["builtin", "wrk"])
def test_an_unverifiable_certificate_is_one_error_line_naming_insecure(run_cli, tmp_path: Path, engine: str) -> None:
    nginx = Nginx(tmp_path, tls=True)
    try:
        r = run_cli("http", "--url", nginx.url, "--engine", engine, "--duration", "1", "--runs", "1")
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
        assert "--insecure" in r.stderr and "certificate" in r.stderr
    finally:
        nginx.stop()


def test_a_certificate_the_client_trusts_verifies_without_insecure(run_cli, tmp_path: Path) -> None:
    # The test's own certificate, made trusted through SSL_CERT_FILE (the default verify paths).
    nginx = Nginx(tmp_path, tls=True)
    try:
        r = run_cli("http", "--url", nginx.url, "-n", "200", "--runs", "1",
                    env={"SSL_CERT_FILE": str(tmp_path / "cert.pem")})
        assert r.returncode == 0, r.stderr
        assert "Complete requests" in r.stdout
    finally:
        nginx.stop()


def test_the_tls_handshake_counts_in_the_latency_of_a_new_connection(run_cli, tmp_path: Path) -> None:
    """Without keep-alive every request pays a TCP connect, and over https a handshake too (as ab):
    an RSA-2048 handshake costs the server far more than serving a 100-byte file."""
    plain_dir, tls_dir = tmp_path / "plain", tmp_path / "tls"
    plain_dir.mkdir()
    tls_dir.mkdir()
    plain, tls = Nginx(plain_dir), Nginx(tls_dir, tls=True)
    try:
        medians = {}
        for name, server in (("plain", plain), ("tls", tls)):
            out = tmp_path / f"{name}.json"
            r = run_cli("http", "--url", server.url, "--insecure", "--no-keepalive", "-n", "300", "--runs", "1",
                        "--export-json", str(out))
            assert r.returncode == 0, r.stderr
            values = _values(out)
            assert values["failed"] == [0.0]
            medians[name] = values["latency_median"][0]
        assert medians["tls"] > 1.5 * medians["plain"], medians
    finally:
        plain.stop()
        tls.stop()


def _protocols(root: Path) -> set[str]:
    return set((root / "access.log").read_text().split())


@pytest.mark.parametrize("tls, streams", [(False, "1"), (False, "8"), (True, "1"), (True, "8")])
def test_http2_against_nginx_h2c_and_h2_over_tls(run_cli, tmp_path: Path, tls: bool, streams: str) -> None:
    nginx = Nginx(tmp_path, tls=tls, http2=True)
    try:
        out = tmp_path / "run.json"
        r = run_cli("http", "--url", nginx.url, "--http2", "--streams", streams, "--insecure", "-c", "2",
                    "--duration", "1", "--runs", "2", "--export-json", str(out))
        assert r.returncode == 0, r.stderr
        values = _values(out)
        assert min(values["requests"]) > 100 and values["failed"] == [0.0, 0.0]
        assert values["status_2xx"] == values["requests"]
        assert 0 < min(values["latency_median"]) <= max(values["latency_p99"]) < 1.0
        # nginx logged every request as HTTP/2 (warm-up and measured).
        assert _protocols(tmp_path) == {"HTTP/2.0"}
        assert "HTTP/2" in json.loads(out.read_text())["metadata"]["http_engine"]
    finally:
        nginx.stop()


def test_http2_over_tls_to_a_server_without_h2_is_one_error(run_cli, tmp_path: Path) -> None:
    nginx = Nginx(tmp_path, tls=True)  # HTTP/1.1 only: ALPN does not select h2
    try:
        r = run_cli("http", "--url", nginx.url, "--http2", "--insecure", "-n", "50", "--runs", "1")
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert r.stderr.startswith("error: --http2") and r.stderr.count("\n") == 1, r.stderr
        assert "ALPN" in r.stderr
    finally:
        nginx.stop()


@pytest.mark.parametrize("insecure", [False, True])
@pytest.mark.parametrize("engine", ["builtin", "wrk"])
def test_https_to_a_server_that_speaks_plain_http_is_one_error_line(
        run_cli, tmp_path: Path, engine: str, insecure: bool) -> None:
    if engine == "wrk" and shutil.which("wrk") is None:
        pytest.skip("needs wrk")
    nginx = Nginx(tmp_path)  # plain http
    try:
        url = nginx.url.replace("http://", "https://")
        r = run_cli("http", "--url", url, *(["--insecure"] if insecure else []), "--engine", engine,
                    "--duration", "0.3", "--runs", "2")
        assert r.returncode == 1 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
        assert url in r.stderr and "TLS" in r.stderr and "http://" in r.stderr, r.stderr
    finally:
        nginx.stop()


def test_a_target_whose_certificate_does_not_verify_is_named_as_given(run_cli, tmp_path: Path) -> None:
    """The error named `--url https://...` for a server given as `--target NAME=URL`."""
    nginx = Nginx(tmp_path, tls=True)
    try:
        base = f"https://127.0.0.1:{nginx.port}"
        r = run_cli("http", "--target", f"a={base}", "--target", f"b={base}", "--url", "/index.html",
                    "--duration", "0.3", "--runs", "2")
        assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
        assert r.stderr.startswith(f"error: --target a={base}: the server's certificate does not verify"), r.stderr
    finally:
        nginx.stop()
