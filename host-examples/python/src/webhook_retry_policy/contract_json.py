"""The conformance contract's JSON shapes (SPEC "Vector files") <-> typed
values. Decoding is strict: an unknown or missing field raises
:class:`ShapeError` naming its path (a broken vector or message, not a
policy error); a wrong type raises ``PolicyError("invalid_input")`` from
the typed constructors. No policy logic: shapes only.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, TypeVar

from .errors import PolicyError
from .types import (
    AttemptOutcome,
    Backoff,
    BucketCounts,
    Budget,
    BudgetCounts,
    Decision,
    DeliveryState,
    HttpResponse,
    Policy,
    Retry,
    Schedule,
    Stop,
    TransportError,
)

T = TypeVar("T")


class ShapeError(ValueError):
    """An object with an unknown or missing field (a broken vector)."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"{path or '<root>'}: {message}")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def fields(v: Any, path: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """``v`` must be an object with every key of ``required`` and no key
    outside ``required + optional``."""
    if not isinstance(v, dict):
        raise ShapeError(path, f"expected an object, got {type(v).__name__}")
    unknown = sorted(set(v) - set(required) - set(optional))
    if unknown:
        raise ShapeError(_join(path, unknown[0]), "unknown field")
    missing = [k for k in required if k not in v]
    if missing:
        raise ShapeError(_join(path, missing[0]), "missing field")
    return v


def _typed(path: str, make: Callable[[], T]) -> T:
    """Build a typed value, prefixing its invalid_input field with ``path``."""
    try:
        return make()
    except PolicyError as e:
        if e.code.value != "invalid_input" or not path:
            raise
        leaf = e.field.split(".")[-1]
        raise PolicyError(e.code, _join(path, leaf), e.message) from None


def backoff(v: Any, path: str = "backoff") -> Backoff:
    f = fields(v, path, ("base_ms", "factor", "cap_ms", "jitter"))
    return _typed(path, lambda: Backoff(f["base_ms"], f["factor"], f["cap_ms"], f["jitter"]))


def budget(v: Any, path: str = "budget") -> Budget:
    f = fields(v, path, ("ratio", "window_ms", "min_sample", "sliding"))
    return _typed(path, lambda: Budget(f["ratio"], f["window_ms"], f["min_sample"], f["sliding"]))


def policy(v: Any, path: str = "policy") -> Policy:
    f = fields(v, path, ("backoff", "window_ms", "hard_cap", "budget"))
    b = backoff(f["backoff"], _join(path, "backoff"))
    bud = budget(f["budget"], _join(path, "budget"))
    return _typed(path, lambda: Policy(b, f["window_ms"], f["hard_cap"], bud))


def state(v: Any, path: str = "state") -> DeliveryState:
    keys = ("event_id", "endpoint_id", "attempt", "max_attempts", "first_attempted_at_ms", "credentials_refreshed")
    f = fields(v, path, keys)
    return _typed(path, lambda: DeliveryState(*(f[k] for k in keys)))


def outcome(v: Any, path: str = "outcome") -> AttemptOutcome:
    if isinstance(v, dict) and "error_kind" in v:
        f = fields(v, path, ("error_kind",))
        return _typed(path, lambda: TransportError(f["error_kind"]))
    f = fields(v, path, ("status",), ("retry_after_ms",))
    return HttpResponse(f["status"], f.get("retry_after_ms"))


def bucket_counts(v: Any, path: str) -> BucketCounts:
    f = fields(v, path, ("total", "retries"))
    return _typed(path, lambda: BucketCounts(f["total"], f["retries"]))


def budget_counts(v: Any, path: str = "budget_counts") -> Optional[BudgetCounts]:
    if v is None:
        return None
    f = fields(v, path, ("current", "previous"))
    return BudgetCounts(bucket_counts(f["current"], _join(path, "current")), bucket_counts(f["previous"], _join(path, "previous")))


# --- outputs in the contract's shape --------------------------------------

def schedule_to_json(s: Schedule) -> dict[str, Any]:
    return {
        "max_attempts": s.max_attempts,
        "expected_span_ms": s.expected_span_ms,
        "offsets_ms": list(s.offsets_ms),
        "worst_case_span_ms": s.worst_case_span_ms,
        "limited_by": s.limited_by.value,
    }


def decision_to_json(d: Decision) -> dict[str, Any]:
    """``{stop_reason, disable_endpoint, dead_letter?}`` or
    ``{stop_reason: null, disable_endpoint: false, retry}``."""
    if isinstance(d, Retry):
        return {
            "stop_reason": None,
            "disable_endpoint": False,
            "retry": {"delay_ms": d.delay_ms, "refresh_credentials": d.refresh_credentials},
        }
    assert isinstance(d, Stop)
    out: dict[str, Any] = {"stop_reason": d.reason.value, "disable_endpoint": d.disable_endpoint}
    if d.dead_letter is not None:
        dl = d.dead_letter
        out["dead_letter"] = {
            "event_id": dl.event_id,
            "endpoint_id": dl.endpoint_id,
            "attempts": dl.attempts,
            "elapsed_ms": dl.elapsed_ms,
            "stop_reason": dl.stop_reason.value,
        }
    return out


def error_to_json(e: PolicyError) -> dict[str, Any]:
    return {"error": e.code.value, "field": e.field, "message": e.message}
