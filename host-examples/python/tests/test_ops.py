"""Every WIT export through the typed API (one raw core call each): values
come back as the generated types, refused inputs as typed PolicyErrors."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import NOW_MS

from webhook_retry_policy import (
    Backoff,
    BucketCounts,
    BudgetCounts,
    ErrorCode,
    HttpResponse,
    LimitedBy,
    OutcomeClass,
    PolicyError,
    Reservation,
    Retry,
    RetryPolicy,
    Stop,
    StopReason,
    StoreOp,
    StoreRequest,
    Unavailable,
)
from webhook_retry_policy.types import HeldBuckets

POLICY_JSON = Path(__file__).resolve().parents[2] / "policy.json"


@pytest.fixture
def rp(clock):
    return RetryPolicy(clock)


def test_the_abi_version_is_5(rp):
    assert rp.abi_version() == 5


def test_plan_derives_13_attempts_over_855_s_from_a_15_minute_window(rp, policy):
    s = rp.plan(policy.backoff, 900_000, 16)
    assert (s.max_attempts, s.expected_span_ms, s.limited_by) == (13, 855_000, LimitedBy.WINDOW)
    assert s.offsets_ms[:4] == (0, 1000, 3000, 7000)


def test_classification_comes_from_the_component(rp):
    assert rp.classify_status(503) is OutcomeClass.RETRYABLE
    assert rp.classify_error("connect_timeout") is OutcomeClass.RETRYABLE
    assert rp.classify_error("destination_refused") is OutcomeClass.TERMINAL
    with pytest.raises(PolicyError) as e:
        rp.classify_status(999)
    assert e.value.code is ErrorCode.INVALID_STATUS


def test_evaluate_names_one_store_request_and_settle_decides_on_the_reply(rp, policy, state):
    step = rp.evaluate(policy, state, HttpResponse(503), NOW_MS)
    assert step.decision is None and step.store == StoreRequest(StoreOp.RECORD_RESERVE, "ep_42", 60_000, NOW_MS // 60_000)
    counts = BudgetCounts(BucketCounts(100, 1), BucketCounts(0, 0))
    assert isinstance(rp.settle(policy, state, HttpResponse(503), NOW_MS, Reservation(True, counts)).decision, Retry)
    refused = rp.settle(policy, state, HttpResponse(503), NOW_MS, Reservation(False, counts))
    assert refused.decision.reason is StopReason.RETRY_BUDGET_EXHAUSTED and refused.budget_disagreement  # type: ignore[union-attr]
    down = rp.settle(policy, state, HttpResponse(503), NOW_MS, Unavailable())
    assert down.decision.reason is StopReason.BUDGET_UNAVAILABLE  # type: ignore[union-attr]


def test_a_delivered_first_attempt_is_decided_and_only_recorded(rp, policy, state):
    step = rp.evaluate(policy, state, HttpResponse(204), NOW_MS)
    assert isinstance(step.decision, Stop) and step.decision.reason is StopReason.DELIVERED
    assert step.store is not None and step.store.op is StoreOp.RECORD


def test_retry_after_headers_are_parsed_by_the_component(rp):
    assert rp.parse_retry_after(" 5\t", 0) == 5000
    assert rp.parse_retry_after("²", 0) is None
    assert rp.parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784111777000 - 1000) == 1000


def test_admit_answers_the_schedule_of_a_class_and_refuses_an_unknown_one(rp):
    doc = rp.load_document(POLICY_JSON.read_text())
    a = rp.admit(doc, "ledger", 5)
    assert (a.class_, a.first_attempted_at_ms, a.deadline_ms) == ("ledger", 5, 5 + 86_400_000)
    assert len(a.policy_hash) == 16 and a.schedule.max_attempts >= 1
    with pytest.raises(PolicyError) as e:
        rp.admit(doc, "billing", 5)
    assert (e.value.code, e.value.field) == (ErrorCode.UNKNOWN_EVENT_CLASS, "class")
    with pytest.raises(PolicyError) as e:
        rp.admit(doc, "ledger", 2**64)
    assert e.value.code is ErrorCode.INVALID_INPUT


def test_store_key_and_store_apply_are_the_components(rp, policy):
    req = StoreRequest("record", "ep}{x", 60_000, 5)
    assert rp.store_key(req) == rp.store_key(StoreRequest("reserve", "ep}{x", 60_000, 9))
    assert rp.store_key(req) != rp.store_key(StoreRequest("record", "ep}{y", 60_000, 5))
    zero = BucketCounts(0, 0)
    applied = rp.store_apply(req, policy.budget, 5 * 60_000, HeldBuckets(0, zero, zero))
    assert applied.held.bucket == 5 and applied.held.current == BucketCounts(1, 0) and not applied.reply.reserved


@pytest.mark.parametrize("call", [
    lambda rp, p, s: rp.evaluate(None, s, HttpResponse(503), NOW_MS),
    lambda rp, p, s: rp.evaluate(p, s, "503", NOW_MS),
    lambda rp, p, s: rp.evaluate(p, s, HttpResponse(503), -1),
    lambda rp, p, s: rp.evaluate(p, s, HttpResponse(503), True),
    lambda rp, p, s: rp.settle(p, s, HttpResponse(503), NOW_MS, None),
    lambda rp, p, s: rp.classify_error(b"connect_timeout"),
    lambda rp, p, s: rp.admit(None, "ledger", 0),
    lambda rp, p, s: rp.parse_retry_after("\udc00", 0),
    lambda rp, p, s: rp.classify_status(2**16),
])
def test_bad_arguments_are_typed_errors_never_crashes(rp, policy, state, call):
    with pytest.raises(PolicyError) as e:
        call(rp, policy, state)
    assert e.value.code in (ErrorCode.INVALID_INPUT, ErrorCode.INVALID_STATUS)


def test_invalid_values_get_the_components_codes(rp, policy, state):
    bad = Backoff(0, 2.0, 10, "full")
    with pytest.raises(PolicyError) as e:
        rp.plan(bad, 1000, 16)
    assert e.value.code is ErrorCode.INVALID_BACKOFF
    with pytest.raises(PolicyError) as e:
        rp.evaluate(policy, type(state)("e", "p", 1, 101, 0), HttpResponse(503), NOW_MS)
    assert e.value.code is ErrorCode.INVALID_STATE
