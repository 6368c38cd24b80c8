"""httpx outcomes as the policy's AttemptOutcome: Retry-After through the
component's parser, statuses outside 100-599 and resets named as the
contract's transport kinds."""

from __future__ import annotations

import httpx

from webhook_retry_policy import HttpResponse, RetryPolicy, TransportError
from webhook_retry_policy.dispatcher import error_kind, outcome_from_exception, outcome_from_response

NOW = 1_700_000_000_000


def _response(status: int, retry_after: str | None = None) -> httpx.Response:
    # header bytes as they arrive on the wire (UTF-8 for the non-ASCII ones)
    headers = {} if retry_after is None else {"retry-after": retry_after.encode()}
    return httpx.Response(status, headers=headers)


def test_retry_after_seconds_and_http_dates_become_milliseconds_through_the_component():
    rp = RetryPolicy()
    assert outcome_from_response(_response(503, "7"), rp, NOW) == HttpResponse(503, 7000)
    assert outcome_from_response(_response(503, "Sun, 06 Nov 1994 08:49:37 GMT"), rp, 0) == HttpResponse(503, 784111777000)


def test_a_garbage_retry_after_such_as_a_superscript_two_is_ignored_not_a_crash():
    rp = RetryPolicy()
    for header in ("²", "-1", "1.5", "", "99999999999999999999999999", "Sunday, 06-Nov-94 08:49:37 GMT"):
        outcome = outcome_from_response(_response(429, header), rp, NOW)
        assert isinstance(outcome, HttpResponse) and outcome.status == 429
    assert outcome_from_response(_response(429, "²"), rp, NOW).retry_after_ms is None  # type: ignore[union-attr]


def test_a_status_outside_100_to_599_is_the_transport_kind_unexpected_status():
    assert outcome_from_response(_response(999), RetryPolicy(), NOW) == TransportError("unexpected_status")


def test_httpx_exceptions_are_named_as_the_contract_spells_kinds():
    assert error_kind(httpx.ConnectTimeout("x")) == "connect_timeout"
    assert error_kind(httpx.ConnectError("x")) == "connect_error"
    assert error_kind(httpx.ReadError("reset")) == "remote_protocol_error"
    assert outcome_from_exception(httpx.ReadTimeout("x")) == TransportError("read_timeout")


def test_resets_protocol_errors_and_the_attempt_deadline_map_to_retryable_contract_kinds():
    assert error_kind(httpx.RemoteProtocolError("illegal status line")) == "remote_protocol_error"
    assert error_kind(httpx.WriteTimeout("x")) == "write_timeout"
    assert error_kind(httpx.PoolTimeout("x")) == "pool_timeout"
    assert error_kind(TimeoutError()) == "read_timeout"
    assert error_kind(httpx.RemoteProtocolError("InformationalResponse status_code should be in range [100, 200)")) \
        == "unexpected_status"
