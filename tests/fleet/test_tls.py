"""HTTPS targets in every language (docs/replica.md "HTTPS").

A loopback HTTPS endpoint (tests/fleet/endpoints.py with a certificate made
at test time by tlslib, signed by a test CA):

* ``--ca-file CA``, certificate for 127.0.0.1: every event delivered, the
  endpoint received each event once;
* ``--ca-file CA``, certificate for ``wrong.example`` only: every event stops
  ``terminal_response`` after exactly one attempt, counted as the transport
  kind ``tls_certificate``; nothing reaches the endpoint's handler (the
  handshake fails);
* ``--ca-file CA``, an expired certificate for 127.0.0.1: the same;
* no ``--ca-file``: the platform's store does not trust the test CA:
  ``tls_certificate`` too;
* ``--ca-file`` naming a file with no certificate in it (a private key): exit
  2 before anything is sent, the path on stderr;
* an ``https://`` target whose server answers the handshake in plain HTTP:
  a handshake failure that is not the certificate's, ``connect_error``,
  retryable (each event attempted more than once, none terminal).
"""

from __future__ import annotations

import socket
import threading

import pytest

import fleetlib
from conftest import require_replica
from fleetlib import Endpoints, assert_nothing_lost, start_replica, write_policy
from tlslib import make_certs

EVENTS = 12
RUN_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("tls") / "certs")


def run(lang: str, tmp_path, cert: tuple, endpoint_id: str, ca_file=None) -> tuple[dict, dict, list[dict]]:
    policy = write_policy(tmp_path / "policy.json")
    extra = ("--ca-file", str(ca_file)) if ca_file else ()
    with Endpoints(log=True, tls=cert, hook=200) as eps:
        assert eps.urls["hook"].startswith("https://127.0.0.1:"), eps.urls
        s = start_replica(lang, target=eps.urls["hook"], endpoint_id=endpoint_id, events=EVENTS, policy=policy,
                          concurrency=4, extra=extra).result(timeout=RUN_TIMEOUT_S)
        stats, log = eps.stats("hook"), eps.log("hook")
    return s, stats, log


def transport_errors(lang: str, s: dict) -> dict:
    te = s.get("transport_errors")
    assert isinstance(te, dict), f"{lang}: the summary has no transport_errors object (docs/replica.md): {s}"
    return te


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_an_https_target_whose_certificate_the_ca_file_trusts_gets_every_event_once(lang, certs, tmp_path):
    require_replica(lang)
    s, stats, log = run(lang, tmp_path, (certs.server_cert, certs.server_key), f"tls-ok-{lang}", certs.ca)
    assert_nothing_lost(s)
    assert s["stop_reasons"]["delivered"] == EVENTS, (
        f"{lang}: {s['stop_reasons']['delivered']} of {EVENTS} events delivered to an https:// target trusted "
        f"through --ca-file; transport errors {s.get('transport_errors')}; stderr: {s['_stderr'][-800:]}")
    seen = [(x["event_id"], x["attempt"]) for x in log]
    assert len(seen) == len(set(seen)) == EVENTS == stats["requests"], (
        f"{lang}: the HTTPS endpoint should have received each of the {EVENTS} events once: {stats}, {seen}")
    assert {a for _, a in seen} == {1}, f"{lang}: only first attempts expected: {seen}"
    assert s["attempts"] == EVENTS, f"{lang}: {s['attempts']} attempts for {EVENTS} events delivered first time"


def assert_every_event_stopped_on_its_certificate(lang: str, s: dict, stats: dict, case: str) -> None:
    assert_nothing_lost(s)
    te = transport_errors(lang, s)
    problems = []
    if s["stop_reasons"].get("terminal_response") != EVENTS:
        problems.append(f"stop_reasons.terminal_response {s['stop_reasons'].get('terminal_response')} != {EVENTS}")
    if s["attempts"] != EVENTS:
        problems.append(f"attempts {s['attempts']} != {EVENTS} (tls_certificate is terminal: one attempt each)")
    if te.get("tls_certificate") != EVENTS:
        problems.append(f"transport_errors.tls_certificate {te.get('tls_certificate')} != {EVENTS}")
    other = {k: v for k, v in te.items() if k != "tls_certificate" and v}
    if other:
        problems.append(f"other transport kinds counted: {other}")
    if stats["requests"]:
        problems.append(f"the endpoint's handler received {stats['requests']} requests (the handshake must fail)")
    assert not problems, f"{lang} ({case}): " + "; ".join(problems) + f"\nsummary: {s}\nstderr: {s['_stderr'][-800:]}"


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_a_certificate_for_another_name_stops_every_event_after_one_attempt_as_tls_certificate(lang, certs, tmp_path):
    require_replica(lang)
    s, stats, _ = run(lang, tmp_path, (certs.wrong_cert, certs.wrong_key), f"tls-name-{lang}", certs.ca)
    assert_every_event_stopped_on_its_certificate(lang, s, stats, "certificate for DNS:wrong.example, --ca-file CA")


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_an_expired_certificate_stops_every_event_after_one_attempt_as_tls_certificate(lang, certs, tmp_path):
    require_replica(lang)
    s, stats, _ = run(lang, tmp_path, (certs.expired_cert, certs.expired_key), f"tls-expired-{lang}", certs.ca)
    assert_every_event_stopped_on_its_certificate(lang, s, stats, "expired certificate for 127.0.0.1, --ca-file CA")


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_without_the_ca_file_the_test_ca_is_untrusted_and_every_event_stops_as_tls_certificate(lang, certs, tmp_path):
    require_replica(lang)
    s, stats, _ = run(lang, tmp_path, (certs.server_cert, certs.server_key), f"tls-noca-{lang}")
    assert_every_event_stopped_on_its_certificate(lang, s, stats, "no --ca-file: platform trust store only")


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_a_ca_file_without_a_certificate_exits_2_naming_the_file(lang, certs, tmp_path):
    require_replica(lang)
    policy = write_policy(tmp_path / "policy.json")
    with Endpoints(log=True, tls=(certs.server_cert, certs.server_key), hook=200) as eps:
        rep = start_replica(lang, target=eps.urls["hook"], endpoint_id=f"tls-badca-{lang}", events=EVENTS,
                            policy=policy, extra=("--ca-file", str(certs.no_cert)))
        try:
            out, err = rep.proc.communicate(timeout=RUN_TIMEOUT_S)
        except Exception:
            rep.kill()
            raise AssertionError(f"{lang}: a --ca-file holding no certificate did not make the replica exit "
                                 f"within {RUN_TIMEOUT_S} s") from None
        requests = eps.stats("hook")["requests"]
    assert rep.proc.returncode == 2, (
        f"{lang}: --ca-file {certs.no_cert} (a PEM private key, no certificate) should exit 2, "
        f"exited {rep.proc.returncode}; stderr: {err[-800:]}")
    assert str(certs.no_cert) in err and "--ca-file" in err, (
        f"{lang}: exit 2 but stderr does not name the flag --ca-file and the file {certs.no_cert}: {err[-800:]}")
    assert requests == 0, f"{lang}: {requests} requests were sent before the bad --ca-file was refused"


class PlainHTTPOnly:
    """A loopback TCP server answering whatever arrives (a TLS ClientHello)
    with a plain-HTTP 400 and closing: the handshake fails, not on a certificate."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (socket.timeout, OSError):
                continue
            self.connections += 1
            with conn:
                try:
                    conn.settimeout(2)
                    conn.recv(4096)
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                except OSError:
                    pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join(2)
        self.sock.close()


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_a_handshake_failing_for_another_reason_is_a_retryable_connect_error(lang, certs, tmp_path):
    require_replica(lang)
    events = 6
    policy = write_policy(tmp_path / "policy.json", hard_cap=3, min_sample=100_000, window_ms=5000)
    srv = PlainHTTPOnly()
    try:
        s = start_replica(lang, target=f"https://127.0.0.1:{srv.port}/webhook", endpoint_id=f"tls-plain-{lang}",
                          events=events, policy=policy, concurrency=3,
                          extra=("--ca-file", str(certs.ca))).result(timeout=RUN_TIMEOUT_S)
    finally:
        srv.close()
    assert_nothing_lost(s)
    te = transport_errors(lang, s)
    why = f"{lang} (https:// target answering the ClientHello in plain HTTP): "
    assert te.get("tls_certificate") == 0, why + f"counted as tls_certificate, want connect_error: {te}"
    assert s["stop_reasons"]["terminal_response"] == 0, why + f"events stopped terminal: {s['stop_reasons']}"
    assert s["attempts"] > events, why + f"{s['attempts']} attempts for {events} events: connect_error is retryable"
    assert te.get("connect_error") == s["attempts"], (
        why + f"connect_error {te.get('connect_error')} != attempts {s['attempts']}: {te}")
    assert srv.connections >= s["attempts"], why + f"{srv.connections} connections for {s['attempts']} attempts"
