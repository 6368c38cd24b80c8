"""Conversions between the typed values (``types.py``) and wasmtime-py's
component values (``Record``/``Variant``, kebab-case attribute names).

Pure field mapping, no policy logic. wasmtime-py represents a variant or
result whose cases lower to different Python classes *untagged* (the bare
value), and one whose cases collide as a ``Variant(tag, payload)``; the
helpers below accept both.
"""

from __future__ import annotations

from typing import Any

from wasmtime.component import Record, Variant

from .errors import ErrorCode, PolicyError, PolicyTrap
from .types import (
    Admission,
    AttemptOutcome,
    Backoff,
    Budget,
    BudgetCounts,
    DeadLetter,
    Decision,
    DeliveryState,
    EventClass,
    HttpResponse,
    Jitter,
    LimitedBy,
    OutcomeClass,
    Policy,
    PolicyDocument,
    Retry,
    Schedule,
    Stop,
    StopReason,
)


def record(**fields: Any) -> Record:
    r = Record()
    for name, value in fields.items():
        setattr(r, name.replace("_", "-"), value)
    return r


def get(r: Any, name: str) -> Any:
    return getattr(r, name.replace("_", "-"))


def _snake(kebab: str) -> str:
    return kebab.replace("-", "_")


# --- lowering (Python -> component) ---------------------------------------

def backoff(b: Backoff) -> Record:
    return record(base_ms=b.base_ms, factor=b.factor, cap_ms=b.cap_ms, jitter=b.jitter.value)


def budget(b: Budget) -> Record:
    return record(ratio=b.ratio, window_ms=b.window_ms, min_sample=b.min_sample, sliding=b.sliding)


def policy(p: Policy) -> Record:
    return record(backoff=backoff(p.backoff), window_ms=p.window_ms, hard_cap=p.hard_cap, budget=budget(p.budget))


def state(s: DeliveryState) -> Record:
    return record(
        event_id=s.event_id,
        endpoint_id=s.endpoint_id,
        attempt=s.attempt,
        max_attempts=s.max_attempts,
        first_attempted_at_ms=s.first_attempted_at_ms,
        credentials_refreshed=s.credentials_refreshed,
    )


def outcome(o: AttemptOutcome) -> Any:
    # attempt-outcome's cases lower to Record and str: wasmtime-py passes it untagged.
    if isinstance(o, HttpResponse):
        return record(status=o.status, retry_after_ms=o.retry_after_ms)
    return o.kind


def counts(k: BudgetCounts) -> Record:
    return record(
        current=record(total=k.current.total, retries=k.current.retries),
        previous=record(total=k.previous.total, retries=k.previous.retries),
    )


def document(d: PolicyDocument) -> Record:
    return record(version=d.version, classes=[record(name=ec.name, policy=policy(ec.policy)) for ec in d.classes])


# --- lifting (component -> Python) ----------------------------------------

def error(r: Any) -> PolicyError:
    return PolicyError(ErrorCode.from_wit(get(r, "code")), get(r, "field"), get(r, "message"))


def unwrap(v: Any) -> Any:
    """The ok value of a WIT ``result<T, policy-error>``; raises the error."""
    if isinstance(v, Variant) and v.tag in ("ok", "err"):
        if v.tag == "err":
            raise error(v.payload)
        return v.payload
    if isinstance(v, Record) and hasattr(v, "code") and hasattr(v, "message"):
        raise error(v)
    return v


def outcome_class(v: str) -> OutcomeClass:
    return OutcomeClass(v)


def schedule(r: Any) -> Schedule:
    return Schedule(
        max_attempts=get(r, "max_attempts"),
        expected_span_ms=get(r, "expected_span_ms"),
        offsets_ms=tuple(get(r, "offsets_ms")),
        worst_case_span_ms=get(r, "worst_case_span_ms"),
        limited_by=LimitedBy(_snake(get(r, "limited_by"))),
    )


def _backoff_from(r: Any) -> Backoff:
    return Backoff(get(r, "base_ms"), get(r, "factor"), get(r, "cap_ms"), Jitter(get(r, "jitter")))


def _budget_from(r: Any) -> Budget:
    return Budget(get(r, "ratio"), get(r, "window_ms"), get(r, "min_sample"), get(r, "sliding"))


def policy_from(r: Any) -> Policy:
    return Policy(_backoff_from(get(r, "backoff")), get(r, "window_ms"), get(r, "hard_cap"), _budget_from(get(r, "budget")))


def document_from(r: Any) -> PolicyDocument:
    classes = tuple(EventClass(get(ec, "name"), policy_from(get(ec, "policy"))) for ec in get(r, "classes"))
    return PolicyDocument(get(r, "version"), classes)


def admission(r: Any) -> Admission:
    return Admission(
        event_class=get(r, "class"),
        policy_version=get(r, "policy_version"),
        policy_hash=get(r, "policy_hash"),
        first_attempted_at_ms=get(r, "first_attempted_at_ms"),
        deadline_ms=get(r, "deadline_ms"),
        schedule=schedule(get(r, "schedule")),
    )


def decision(v: Any) -> Decision:
    if not isinstance(v, Variant):
        raise PolicyTrap(f"component returned {v!r} where a decision was expected")
    p = v.payload
    if v.tag == "retry":
        return Retry(get(p, "delay_ms"), get(p, "refresh_credentials"))
    dl = get(p, "dead_letter")
    dead_letter = None
    if dl is not None:
        dead_letter = DeadLetter(
            event_id=get(dl, "event_id"),
            endpoint_id=get(dl, "endpoint_id"),
            attempts=get(dl, "attempts"),
            elapsed_ms=get(dl, "elapsed_ms"),
            stop_reason=StopReason(_snake(get(dl, "stop_reason"))),
        )
    return Stop(StopReason(_snake(get(p, "reason"))), get(p, "disable_endpoint"), dead_letter)

