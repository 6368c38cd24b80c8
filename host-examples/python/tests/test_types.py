"""The generated type mirrors: frozen, checked on construction with typed
errors (invalid_input, or the contract's code where a WIT type is narrower)."""

from __future__ import annotations

import dataclasses
import math
import os
import pickle
from pathlib import Path

import pytest

from webhook_retry_policy import (
    Backoff,
    Budget,
    DeliveryState,
    ErrorCode,
    HttpResponse,
    Jitter,
    PolicyError,
    StopReason,
    StoreOp,
    TransportError,
)


def test_enums_carry_the_spec_snake_case_spelling():
    assert Jitter.FULL == "full" and StopReason.RETRY_BUDGET_EXHAUSTED.value == "retry_budget_exhausted"
    assert StoreOp.RECORD_RESERVE.value == "record_reserve"
    assert {c.value for c in ErrorCode} >= {"invalid_retry_index", "document_too_large"}


def test_records_are_frozen_and_coerce_enum_names_and_integers_for_doubles():
    b = Backoff(2000, 2, 300_000, "equal")
    assert b.jitter is Jitter.EQUAL and isinstance(b.factor, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        b.base_ms = 1  # type: ignore[misc]


@pytest.mark.parametrize("make, field", [
    (lambda: DeliveryState("e", "p", -1, 3, 0), "delivery_state.attempt"),
    (lambda: DeliveryState("e", "p", True, 3, 0), "delivery_state.attempt"),
    (lambda: DeliveryState("e", "p", 1, 2**32, 0), "delivery_state.max_attempts"),
    (lambda: DeliveryState("e", None, 1, 3, 0), "delivery_state.endpoint_id"),
    (lambda: DeliveryState("\ud800", "p", 1, 3, 0), "delivery_state.event_id"),
    (lambda: Budget("0.1", 1, 1, True), "budget.ratio"),
    (lambda: Budget(0.1, 1, 1, 1), "budget.sliding"),
    (lambda: HttpResponse(503, 1.5), "http_response.retry_after_ms"),
    (lambda: TransportError(7), "attempt_outcome.kind"),
])
def test_a_value_of_the_wrong_type_or_width_is_invalid_input_naming_the_field(make, field):
    with pytest.raises(PolicyError) as e:
        make()
    assert (e.value.code, e.value.field) == (ErrorCode.INVALID_INPUT, field)


def test_an_unknown_jitter_and_a_status_above_u16_keep_the_contract_codes():
    with pytest.raises(PolicyError) as e:
        Backoff(1, 2.0, 3, "bogus")
    assert e.value.code is ErrorCode.INVALID_BACKOFF
    with pytest.raises(PolicyError) as e:
        HttpResponse(70_000)
    assert e.value.code is ErrorCode.INVALID_STATUS


def test_a_nan_factor_is_a_value_the_component_refuses_not_the_host():
    assert math.isnan(Backoff(1, float("nan"), 3, "full").factor)


def test_policy_errors_compare_print_and_pickle_by_their_fields():
    e = PolicyError("invalid_backoff", "backoff.factor", "must be finite")
    assert e == PolicyError(ErrorCode.INVALID_BACKOFF, "backoff.factor", "must be finite")
    assert str(e) == "invalid_backoff: backoff.factor: must be finite"
    assert pickle.loads(pickle.dumps(e)) == e


HUGE_INT = 10**5000  # past Python's 4300-digit str() limit: str(HUGE_INT) raises ValueError


@pytest.mark.parametrize("build", [
    lambda: Backoff(HUGE_INT, 2.0, 300_000, "full"),
    lambda: Backoff(-HUGE_INT, 2.0, 300_000, "full"),
    lambda: Backoff(2000, HUGE_INT, 300_000, "full"),
    lambda: Backoff(2000, 2.0, 300_000, HUGE_INT),
    lambda: Budget(0.1, 60_000, HUGE_INT, True),
    lambda: DeliveryState("evt", "ep", 1, 13, HUGE_INT),
    lambda: HttpResponse(HUGE_INT),
])
def test_an_integer_too_long_to_print_is_a_policy_error_not_a_value_error(build):
    with pytest.raises(PolicyError) as e:
        build()
    assert e.value.code in (ErrorCode.INVALID_INPUT, ErrorCode.INVALID_STATUS) and "16610 bits" in e.value.message


@pytest.mark.parametrize("value", ["\x00" * (1 << 20), "é" * (1 << 20), b"x" * (1 << 20), [0] * 100_000])
def test_a_refused_value_is_quoted_in_at_most_a_few_hundred_characters(value):
    for build in (lambda: Backoff(value, 2.0, 300_000, "full"), lambda: Backoff(2000, 2.0, 300_000, value)):
        with pytest.raises(PolicyError) as e:
            build()
        assert len(e.value.message) < 300, e.value.message[:200]


def test_records_pickle_copy_hash_and_compare_like_frozen_dataclasses() -> None:
    import copy

    b = Backoff(1000, 2.0, 60_000, Jitter.FULL)
    for twin in (pickle.loads(pickle.dumps(b)), copy.copy(b), copy.deepcopy(b), Backoff(1000, 2.0, 60_000, "full")):
        assert twin == b and hash(twin) == hash(b) and twin is not b
    assert b != Backoff(1000, 2.0, 60_001, Jitter.FULL)
    assert (b == (1000, 2.0, 60_000, Jitter.FULL)) is False, "a tuple of the same fields is another value"
    assert repr(b).startswith("Backoff(base_ms=1000, factor=2.0, cap_ms=60000")


def test_records_refuse_assignment_and_deletion_with_frozen_instance_error() -> None:
    s = DeliveryState("e", "p", 1, 13, 0, False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.attempt = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del s.attempt  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        s.extra = 1  # type: ignore[attr-defined]


def test_records_match_positionally_in_field_order() -> None:
    match HttpResponse(503, 1000):
        case HttpResponse(status, retry_after_ms):
            assert (status, retry_after_ms) == (503, 1000)
        case _:
            pytest.fail("HttpResponse did not match its own pattern")
    match TransportError("connect_timeout"):
        case HttpResponse():
            pytest.fail("a transport error matched HttpResponse")
        case TransportError(kind):
            assert kind == "connect_timeout"


def test_importing_the_package_does_not_import_dataclasses() -> None:
    import subprocess
    import sys

    code = "import sys, webhook_retry_policy; print('dataclasses' in sys.modules)"
    src = str(Path(__file__).parents[1] / "src")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": src})
    assert out.stdout.strip() == "False", out.stderr
