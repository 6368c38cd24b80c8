"""httpx outcomes as the policy's AttemptOutcome: Retry-After through the
component's parser, statuses outside 100-599 and resets named as the
contract's transport kinds."""

from __future__ import annotations

import httpx

from webhook_retry_policy import HttpResponse, RetryPolicy, TransportError
from webhook_retry_policy.dispatcher import attempt, error_kind

NOW = 1_700_000_000_000


async def _outcome(status: int, retry_after: str | None = None, *, now_ms: int = NOW):
    """``attempt``'s outcome of an endpoint answering ``status`` (and a Retry-After header)."""
    # header bytes as they arrive on the wire (UTF-8 for the non-ASCII ones)
    headers = {} if retry_after is None else {"retry-after": retry_after.encode()}

    def endpoint(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, headers=headers, stream=httpx.ByteStream(b""))

    async with httpx.AsyncClient(transport=httpx.MockTransport(endpoint)) as client:
        return await attempt(client, "http://endpoint.test/hook", content=b"{}", headers={}, policy=RetryPolicy(),
                             now_ms=now_ms)


async def test_retry_after_seconds_and_http_dates_become_milliseconds_through_the_component():
    assert await _outcome(503, "7") == HttpResponse(503, 7000)
    assert await _outcome(503, "Sun, 06 Nov 1994 08:49:37 GMT", now_ms=0) == HttpResponse(503, 784111777000)


async def test_a_garbage_retry_after_such_as_a_superscript_two_is_ignored_not_a_crash():
    for header in ("²", "-1", "1.5", "", "99999999999999999999999999", "Sunday, 06-Nov-94 08:49:37 GMT"):
        outcome = await _outcome(429, header)
        assert isinstance(outcome, HttpResponse) and outcome.status == 429
    assert (await _outcome(429, "²")).retry_after_ms is None  # type: ignore[union-attr]


async def test_a_status_outside_100_to_599_is_the_transport_kind_unexpected_status():
    assert await _outcome(999) == TransportError("unexpected_status")


def test_httpx_exceptions_are_named_as_the_contract_spells_kinds():
    assert error_kind(httpx.ConnectTimeout("x")) == "connect_timeout"
    assert error_kind(httpx.ConnectError("x")) == "connect_error"
    assert error_kind(httpx.ReadError("reset")) == "remote_protocol_error"
    assert error_kind(httpx.ReadTimeout("x")) == "read_timeout"


def test_resets_protocol_errors_and_the_attempt_deadline_map_to_retryable_contract_kinds():
    assert error_kind(httpx.RemoteProtocolError("illegal status line")) == "remote_protocol_error"
    assert error_kind(httpx.WriteTimeout("x")) == "write_timeout"
    assert error_kind(httpx.PoolTimeout("x")) == "pool_timeout"
    assert error_kind(TimeoutError()) == "read_timeout"
    assert error_kind(httpx.RemoteProtocolError("InformationalResponse status_code should be in range [100, 200)")) \
        == "unexpected_status"
