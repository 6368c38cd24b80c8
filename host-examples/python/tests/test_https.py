"""HTTPS targets (docs/replica.md "HTTPS"): verified against the platform's
trust store plus --ca-file, through the destination guard's checked
address with the URL's host name; a certificate that fails verification is
the terminal kind tls_certificate, any other handshake failure stays
connect_error. Certificates are made at test time (tls_certs.py)."""

from __future__ import annotations

import socket
import ssl
import threading

import pytest
from test_replica import run_replica, storm_policy, summary_of
from tls_certs import make_certs

from webhook_retry_policy import HttpResponse, RetryPolicy, TransportError
from webhook_retry_policy.dispatcher import LocalEndpoint, make_client
from webhook_retry_policy.dispatcher.tls import CaFileError, client_ssl_context, read_ca_file
from webhook_retry_policy.dispatcher.transport import attempt


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("certs"))


async def _post(url: str, ca_pem: str | None) -> object:
    async with make_client(allow_private_targets=True, ca_pem=ca_pem, attempt_deadline_ms=5000) as client:
        return await attempt(client, url, content=b"{}", headers={}, policy=RetryPolicy(), now_ms=0, deadline_ms=5000)


async def test_an_https_target_signed_by_the_ca_file_is_delivered(certs):
    with LocalEndpoint(204, tls=certs.server_context()) as ep:
        assert ep.url.startswith("https://127.0.0.1:")
        assert await _post(ep.url, certs.ca.read_text()) == HttpResponse(204, None)
        assert ep.requests == 1


async def test_without_the_ca_file_the_platform_store_alone_refuses_it_as_tls_certificate(certs):
    with LocalEndpoint(204, tls=certs.server_context()) as ep:
        assert await _post(ep.url, None) == TransportError("tls_certificate")
        assert ep.requests == 0


async def test_a_certificate_for_another_name_is_tls_certificate_even_with_the_ca(certs):
    with LocalEndpoint(204, tls=certs.server_context(wrong_name=True)) as ep:
        assert await _post(ep.url, certs.ca.read_text()) == TransportError("tls_certificate")
        assert ep.requests == 0


async def test_a_ca_file_that_did_not_sign_the_certificate_is_tls_certificate(certs):
    with LocalEndpoint(204, tls=certs.server_context()) as ep:
        assert await _post(ep.url, certs.other_ca.read_text()) == TransportError("tls_certificate")


async def test_a_handshake_that_fails_for_another_reason_is_connect_error_not_tls_certificate(certs):
    # a server that accepts, then closes before any TLS byte: no certificate was judged
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def close_each() -> None:
        for _ in range(2):
            try:
                conn, _addr = server.accept()
            except OSError:
                return
            conn.close()

    threading.Thread(target=close_each, daemon=True).start()
    try:
        assert await _post(f"https://127.0.0.1:{port}/hook", certs.ca.read_text()) == TransportError("connect_error")
    finally:
        server.close()


def test_the_client_context_verifies_and_keeps_the_platform_store_beside_the_ca_file(certs):
    plain = client_ssl_context(None)
    extended = client_ssl_context(certs.ca.read_text())
    assert extended.verify_mode == ssl.CERT_REQUIRED and extended.check_hostname
    assert extended.cert_store_stats()["x509_ca"] == plain.cert_store_stats()["x509_ca"] + 1


def test_an_unreadable_or_certificate_less_ca_file_is_refused_naming_the_file(certs, tmp_path):
    with pytest.raises(CaFileError, match="missing.pem"):
        read_ca_file(str(tmp_path / "missing.pem"))
    key_only = tmp_path / "key-only.pem"
    key_only.write_text(certs.loopback_key.read_text())
    with pytest.raises(CaFileError, match="key-only.pem.*no PEM certificate"):
        read_ca_file(str(key_only))
    broken = tmp_path / "broken.pem"
    broken.write_text("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n")
    with pytest.raises(CaFileError, match="broken.pem"):
        read_ca_file(str(broken))
    assert "BEGIN CERTIFICATE" in read_ca_file(str(certs.ca))


def test_the_replica_exits_2_naming_a_ca_file_without_a_certificate(certs, tmp_path):
    key_only = tmp_path / "key.pem"
    key_only.write_text(certs.loopback_key.read_text())
    proc = run_replica("--target", "https://127.0.0.1:1/hook", "--endpoint-id", "ep", "--events", "1",
                       "--ca-file", str(key_only))
    assert proc.returncode == 2 and str(key_only) in proc.stderr and proc.stdout == ""


def test_the_replica_delivers_with_the_ca_file_and_stops_terminal_without_it(certs, tmp_path):
    policy = str(storm_policy(tmp_path))
    with LocalEndpoint(204, tls=certs.server_context()) as ep:
        ok = summary_of(run_replica("--target", ep.url, "--endpoint-id", "ep-tls", "--events", "3",
                                    "--policy", policy, "--ca-file", str(certs.ca)))
        assert ok["stop_reasons"]["delivered"] == 3 and ep.requests == 3
        bad = summary_of(run_replica("--target", ep.url, "--endpoint-id", "ep-tls", "--events", "3", "--policy", policy))
        assert bad["stop_reasons"]["terminal_response"] == 3 and bad["attempts"] == 3 and ep.requests == 3


async def _post_guarded(url: str, ca_pem: str | None, *, allow_private: bool) -> object:
    async with make_client(allow_private_targets=allow_private, ca_pem=ca_pem, attempt_deadline_ms=5000) as client:
        return await attempt(client, url, content=b"{}", headers={}, policy=RetryPolicy(), now_ms=0, deadline_ms=5000)


async def test_https_goes_through_the_destination_guard_like_http(certs):
    with LocalEndpoint(204, tls=certs.server_context()) as ep:
        assert await _post_guarded(ep.url, certs.ca.read_text(), allow_private=False) == TransportError("destination_refused")
        assert ep.requests == 0


async def test_the_certificate_is_checked_against_the_urls_host_name_not_the_connected_address(certs):
    # the guard connects to the checked 127.0.0.1; the name checked (and sent as SNI) is the URL's "localhost"
    with LocalEndpoint(204, tls=certs.server_context(localhost=True)) as ep:
        by_name = ep.url.replace("127.0.0.1", "localhost")
        assert await _post_guarded(by_name, certs.ca.read_text(), allow_private=True) == HttpResponse(204, None)
        assert await _post_guarded(ep.url, certs.ca.read_text(), allow_private=True) == TransportError("tls_certificate")
    with LocalEndpoint(204, tls=certs.server_context()) as ep:  # IP SAN 127.0.0.1 only: the name localhost does not match
        by_name = ep.url.replace("127.0.0.1", "localhost")
        assert await _post_guarded(by_name, certs.ca.read_text(), allow_private=True) == TransportError("tls_certificate")
