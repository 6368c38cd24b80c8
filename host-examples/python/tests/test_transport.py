"""Outcome naming: status, Retry-After in ms, httpx exceptions as kinds."""

from __future__ import annotations

import httpx

from webhook_retry_policy import HttpResponse, TransportError
from webhook_retry_policy.dispatcher import error_kind, outcome_from_exception, outcome_from_response, retry_after_ms

NOW_MS = 1_700_000_000_000


def test_retry_after_seconds_and_http_dates_become_milliseconds():
    assert retry_after_ms("120", NOW_MS) == 120_000
    assert retry_after_ms("Tue, 14 Nov 2023 22:13:40 GMT", NOW_MS) == 20_000
    assert retry_after_ms("Tue, 14 Nov 2020 22:13:40 GMT", NOW_MS) == 0
    assert retry_after_ms("soon", NOW_MS) is None and retry_after_ms(None, NOW_MS) is None


def test_httpx_exceptions_are_named_as_the_contract_spells_kinds():
    assert error_kind(httpx.ConnectTimeout("x")) == "connect_timeout"
    assert error_kind(httpx.RemoteProtocolError("x")) == "remote_protocol_error"
    assert outcome_from_exception(httpx.TooManyRedirects("x")) == TransportError("too_many_redirects")


def test_a_response_keeps_its_status_and_retry_after():
    r = httpx.Response(429, headers={"Retry-After": "3"})
    assert outcome_from_response(r, NOW_MS) == HttpResponse(429, 3000)
