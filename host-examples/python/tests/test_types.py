"""Host-side type checks: wrong types become invalid_input with a field path;
values of the right type are never judged here."""

from __future__ import annotations

import math

import pytest

from webhook_retry_policy import (
    Backoff,
    Budget,
    DeliveryState,
    ErrorCode,
    HttpResponse,
    Jitter,
    Policy,
    PolicyError,
    TransportError,
)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(base_ms=None), "backoff.base_ms"),
        (dict(base_ms=True), "backoff.base_ms"),
        (dict(base_ms=-1), "backoff.base_ms"),
        (dict(base_ms=2000.0), "backoff.base_ms"),
        (dict(base_ms=math.nan), "backoff.base_ms"),
        (dict(base_ms=2**64), "backoff.base_ms"),
        (dict(factor="2"), "backoff.factor"),
        (dict(factor=False), "backoff.factor"),
        (dict(factor=None), "backoff.factor"),
        (dict(cap_ms="300000"), "backoff.cap_ms"),
    ],
)
def test_wrong_types_in_a_backoff_are_invalid_input_with_the_field(kwargs, field):
    args = dict(base_ms=2000, factor=2.0, cap_ms=300_000, jitter="full") | kwargs
    with pytest.raises(PolicyError) as e:
        Backoff(**args)
    assert (e.value.code, e.value.field) == (ErrorCode.INVALID_INPUT, field)


def test_an_unknown_jitter_is_invalid_backoff_because_the_wit_enum_cannot_carry_it():
    with pytest.raises(PolicyError) as e:
        Backoff(2000, 2.0, 300_000, "decorrelated")
    assert (e.value.code, e.value.field) == (ErrorCode.INVALID_BACKOFF, "backoff.jitter")


def test_a_jitter_name_becomes_the_enum_and_an_int_factor_a_float():
    b = Backoff(2000, 2, 300_000, "equal")
    assert b.jitter is Jitter.EQUAL and isinstance(b.factor, float)


def test_out_of_range_values_of_the_right_type_are_left_to_the_component():
    # base_ms 0, factor NaN, ratio 2: semantic, so accepted here and refused by the component.
    Backoff(0, math.nan, 1, "none")
    Budget(ratio=2.0, window_ms=0)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(attempt=2**32), "attempt"),
        (dict(attempt=1.0), "attempt"),
        (dict(event_id=None), "event_id"),
        (dict(event_id="\ud800"), "event_id"),
        (dict(credentials_refreshed=0), "credentials_refreshed"),
        (dict(first_attempted_at_ms=-5), "first_attempted_at_ms"),
    ],
)
def test_wrong_types_in_a_state_are_invalid_input_with_the_field(kwargs, field):
    args = dict(event_id="e", endpoint_id="p", attempt=1, max_attempts=3, first_attempted_at_ms=0) | kwargs
    with pytest.raises(PolicyError) as e:
        DeliveryState(**args)
    assert (e.value.code, e.value.field) == (ErrorCode.INVALID_INPUT, field)


def test_a_status_too_wide_for_u16_is_invalid_status_as_in_the_contract_codec():
    with pytest.raises(PolicyError) as e:
        HttpResponse(70_000)
    assert e.value.code is ErrorCode.INVALID_STATUS


def test_nested_values_must_have_their_types():
    with pytest.raises(PolicyError) as e:
        Policy(backoff={"base_ms": 1}, window_ms=1)  # type: ignore[arg-type]
    assert (e.value.code, e.value.field) == (ErrorCode.INVALID_INPUT, "backoff")
    with pytest.raises(PolicyError):
        TransportError(kind=3)  # type: ignore[arg-type]


def test_values_are_frozen():
    b = Backoff(2000, 2.0, 300_000)
    with pytest.raises(AttributeError):
        b.base_ms = 1  # type: ignore[misc]
