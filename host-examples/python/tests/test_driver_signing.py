"""Signing through the driver (Standard Webhooks, ``Driver(secrets=...)``):
every request is signed with the endpoint's secrets, reloaded before the
retry the engine marks ``refresh_credentials`` (a 401); an endpoint
without a usable secret is never sent to and its event ends
``terminal_response`` (``credentials_unavailable``)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from webhook_retry_policy import DeliveryEngine
from webhook_retry_policy.dispatcher import Admissions, DispatcherMetrics, Driver, EndpointSecrets, LocalEndpoint, make_client
from webhook_retry_policy.signing import SignatureError, verify

KEY = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
DOCUMENT = {"version": "signed", "classes": {"c": {"window_ms": 60_000, "hard_cap": 4, "backoff": {
    "base_ms": 1, "factor": 2.0, "cap_ms": 5, "jitter": "none"}}}}


async def _run(url: str, secrets: EndpointSecrets, events: int = 1) -> Driver:
    with DeliveryEngine({"document": DOCUMENT, "memory_store": True}) as engine:
        async with make_client(allow_private_targets=True) as client:
            driver = Driver(engine, client=client, metrics=DispatcherMetrics(), secrets=secrets)
            await driver.run(Admissions("evt", events, "ep_signed", url, "c", None), 1000)
    return driver


async def test_the_driver_signs_deliveries_and_reloads_the_rotated_secret_before_a_401_retry(tmp_path: Path) -> None:
    new = "whsec_" + base64.b64encode(b"rotated-secret-bytes-123").decode()
    secrets_file = tmp_path / "secrets.json"
    secrets_file.write_text(json.dumps({"ep_signed": [KEY]}))
    seen: list[str] = []

    def receiver(headers: dict[str, str], body: bytes) -> int:  # knows only the new secret
        seen.append(headers.get("webhook-signature", ""))
        try:
            verify(new, headers, body)
        except SignatureError:
            secrets_file.write_text(json.dumps({"ep_signed": [new, KEY]}))  # the operator rotates
            return 401
        return 204

    secrets = EndpointSecrets.from_file(str(secrets_file))
    with LocalEndpoint(204, answer=receiver) as ep:
        driver = await _run(ep.url, secrets)
    assert driver.tally.stop_reasons["delivered"] == 1 and driver.tally.retries == 1, driver.tally
    assert secrets.reloads == 2 and len(seen) == 2
    assert len(seen[0].split(" ")) == 1 and len(seen[1].split(" ")) == 2


async def test_an_event_without_a_usable_signing_secret_is_never_sent_and_ends_as_credentials_unavailable() -> None:
    async def load(endpoint_id: str) -> list[str]:
        raise OSError("the secrets file is unreadable")

    with LocalEndpoint(200) as ok:
        driver = await _run(ok.url, EndpointSecrets(load))
        assert ok.requests == 0  # never sent unsigned
    t = driver.tally
    assert t.stop_reasons["terminal_response"] == 1 and t.transport_errors["credentials_unavailable"] == 1, t
    assert t.first_attempts == 0  # nothing was sent
    assert driver.dead_letters[0]["dead_letter"]["stop_reason"] == "terminal_response"
