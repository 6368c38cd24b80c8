"""The typed sync API over the component: each WIT export, errors with the
SPEC code and field, host imports wired to the clock and counter."""

from __future__ import annotations

import pytest

from conftest import NOW_MS
from webhook_retry_policy import (
    Backoff,
    BucketCounts,
    Budget,
    BudgetCounts,
    ErrorCode,
    HttpResponse,
    InMemoryBudgetCounter,
    LimitedBy,
    OutcomeClass,
    PolicyError,
    Retry,
    RetryPolicy,
    Stop,
    StopReason,
    TransportError,
    UnavailableBudgetCounter,
    budget_bucket,
)


@pytest.fixture
def rp(clock):
    return RetryPolicy(clock)


def test_the_abi_version_is_1(rp):
    assert rp.abi_version() == 1


def test_a_15_minute_window_plans_13_attempts_over_855_seconds(rp):
    s = rp.plan(Backoff(2000, 2.0, 300_000, "full"), 900_000, 16)
    assert (s.max_attempts, s.expected_span_ms, s.limited_by) == (13, 855_000, LimitedBy.WINDOW)
    assert s.offsets_ms[:4] == (0, 1000, 3000, 7000)


def test_plan_errors_carry_the_spec_code_and_field(rp):
    with pytest.raises(PolicyError) as e:
        rp.plan(Backoff(0, 2.0, 300_000), 900_000, 16)
    assert (e.value.code, e.value.field) == (ErrorCode.INVALID_BACKOFF, "backoff.base_ms")
    with pytest.raises(PolicyError) as e:
        rp.plan(Backoff(2000, 2.0, 300_000), 900_000, 101)
    assert e.value.code is ErrorCode.INVALID_HARD_CAP


def test_a_nan_factor_is_refused_by_the_component_as_invalid_backoff(rp):
    with pytest.raises(PolicyError) as e:
        rp.delay(Backoff(2000, float("nan"), 300_000), "evt_1", 0)
    assert e.value.code is ErrorCode.INVALID_BACKOFF


def test_delay_is_deterministic_per_event(rp):
    b = Backoff(2000, 2.0, 300_000, "full")
    assert rp.delay(b, "evt_1", 0) == rp.delay(b, "evt_1", 0) == 8


def test_classification_comes_from_the_component(rp):
    assert rp.classify_status(503) is OutcomeClass.RETRYABLE
    assert rp.classify_status(422) is OutcomeClass.TERMINAL
    assert rp.classify_error("connect_timeout") is OutcomeClass.RETRYABLE
    assert rp.classify_error("Connect_Timeout") is OutcomeClass.TERMINAL
    with pytest.raises(PolicyError) as e:
        rp.classify_status(99)
    assert e.value.code is ErrorCode.INVALID_STATUS
    with pytest.raises(PolicyError) as e:
        rp.classify_status(True)
    assert e.value.code is ErrorCode.INVALID_INPUT


def test_budget_allows_counts_the_retry_being_decided(rp):
    b = Budget(0.1, 60_000, 50, False)
    assert rp.budget_allows(b, NOW_MS, BudgetCounts(BucketCounts(100, 9))) is True
    assert rp.budget_allows(b, NOW_MS, BudgetCounts(BucketCounts(100, 10))) is False


def test_decide_reads_the_clock_and_reserves_the_retry_in_the_counter(clock, policy, state):
    counter = InMemoryBudgetCounter()
    rp = RetryPolicy(clock, counter)
    clock.advance(100)
    d = rp.decide(policy, state, HttpResponse(503))
    assert d == Retry(8, False)
    bucket = budget_bucket(60_000, clock.now_ms())
    assert counter.read("ep_42", 60_000, bucket).current == BucketCounts(1, 1)


def test_decide_does_not_touch_the_counter_for_a_delivered_event(clock, policy, state):
    rp = RetryPolicy(clock, UnavailableBudgetCounter())
    assert rp.decide(policy, state, HttpResponse(204)) == Stop(StopReason.DELIVERED, False, None)


def test_an_unreadable_counter_stops_the_event_budget_unavailable(clock, policy, state):
    rp = RetryPolicy(clock, UnavailableBudgetCounter())
    d = rp.decide(policy, state, TransportError("read_timeout"))
    assert isinstance(d, Stop) and d.reason is StopReason.BUDGET_UNAVAILABLE
    assert d.dead_letter is not None and d.dead_letter.attempts == 1


def test_a_counter_returning_garbage_fails_closed_too(clock, policy, state):
    class Garbage(InMemoryBudgetCounter):
        def read(self, *a):  # type: ignore[override]
            return {"current": 1}

    d = RetryPolicy(clock, Garbage()).decide(policy, state, HttpResponse(503))
    assert isinstance(d, Stop) and d.reason is StopReason.BUDGET_UNAVAILABLE


def test_a_410_stops_terminal_and_disables_the_endpoint(rp, policy, state, healthy_counts):
    d = rp.decide_with(policy, state, HttpResponse(410), NOW_MS, healthy_counts)
    assert isinstance(d, Stop) and d.disable_endpoint and d.reason is StopReason.TERMINAL_RESPONSE


def test_decide_with_refuses_wrong_argument_types_host_side(rp, policy, state):
    for args, field in [
        ((None, state, HttpResponse(503), NOW_MS, None), "policy"),
        ((policy, state, 503, NOW_MS, None), "outcome"),
        ((policy, state, HttpResponse(503), -1, None), "now_ms"),
        ((policy, state, HttpResponse(503), NOW_MS, {"current": {}}), "budget_counts"),
    ]:
        with pytest.raises(PolicyError) as e:
            rp.decide_with(*args)
        assert (e.value.code, e.value.field) == (ErrorCode.INVALID_INPUT, field)


def test_semantic_state_errors_come_from_the_component(rp, policy, state):
    from dataclasses import replace

    with pytest.raises(PolicyError) as e:
        rp.decide_with(policy, replace(state, attempt=0), HttpResponse(503), NOW_MS, None)
    assert (e.value.code, e.value.field) == (ErrorCode.INVALID_STATE, "attempt")


def test_fast_true_routes_decide_with_through_the_fast_path_with_the_same_answers(clock, policy, state, healthy_counts):
    fast = RetryPolicy(clock, fast=True)
    assert fast._fast is not None
    for outcome in (HttpResponse(503), HttpResponse(401), TransportError("bogus_kind")):
        assert fast.decide_with(policy, state, outcome, NOW_MS, healthy_counts) == RetryPolicy(clock).decide_with(
            policy, state, outcome, NOW_MS, healthy_counts)
