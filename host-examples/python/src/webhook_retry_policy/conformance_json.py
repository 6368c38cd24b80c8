"""The conformance runner's JSON shapes (SPEC "Vector files") <-> typed
values, for the ops it runs through this host's glue (``conformance.py``;
the benchmarks and the boundary fuzz reuse them). Decoding is strict: an unknown or missing field raises
:class:`ShapeError` naming its path (a broken vector, not a policy error);
a wrong type raises ``PolicyError("invalid_input")`` from the typed
constructors. Shapes only, no policy logic.
"""

from __future__ import annotations

from typing import Any

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
    Reservation,
    Retry,
    Schedule,
    Settlement,
    Step,
    Stop,
    StoreReply,
    TransportError,
    Unavailable,
)

STATE_KEYS = ("event_id", "endpoint_id", "attempt", "max_attempts", "first_attempted_at_ms", "credentials_refreshed")


class ShapeError(ValueError):
    """An object with an unknown or missing field (a broken vector)."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"{path or '<root>'}: {message}")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def fields(v: Any, path: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """``v`` must be an object with every key of ``required`` and none outside ``required + optional``."""
    if not isinstance(v, dict):
        raise ShapeError(path, f"expected an object, got {type(v).__name__}")
    unknown = sorted(set(v) - set(required) - set(optional))
    if unknown:
        raise ShapeError(_join(path, unknown[0]), "unknown field")
    missing = [k for k in required if k not in v]
    if missing:
        raise ShapeError(_join(path, missing[0]), "missing field")
    return v


def backoff(v: Any, path: str = "backoff") -> Backoff:
    f = fields(v, path, ("base_ms", "factor", "cap_ms", "jitter"))
    return Backoff(f["base_ms"], f["factor"], f["cap_ms"], f["jitter"])


def budget(v: Any, path: str = "budget") -> Budget:
    f = fields(v, path, ("ratio", "window_ms", "min_sample", "sliding"))
    return Budget(f["ratio"], f["window_ms"], f["min_sample"], f["sliding"])


def policy(v: Any, path: str = "policy") -> Policy:
    f = fields(v, path, ("backoff", "window_ms", "hard_cap", "budget"))
    return Policy(backoff(f["backoff"], _join(path, "backoff")), f["window_ms"], f["hard_cap"],
                  budget(f["budget"], _join(path, "budget")))


def state(v: Any, path: str = "state") -> DeliveryState:
    f = fields(v, path, STATE_KEYS)
    return DeliveryState(*(f[k] for k in STATE_KEYS))


def outcome(v: Any, path: str = "outcome") -> AttemptOutcome:
    if isinstance(v, dict) and "error_kind" in v:
        return TransportError(fields(v, path, ("error_kind",))["error_kind"])
    f = fields(v, path, ("status",), ("retry_after_ms",))
    return HttpResponse(f["status"], f.get("retry_after_ms"))


def bucket_counts(v: Any, path: str) -> BucketCounts:
    f = fields(v, path, ("total", "retries"))
    return BucketCounts(f["total"], f["retries"])


def budget_counts(v: Any, path: str = "budget_counts") -> BudgetCounts | None:
    if v is None:
        return None
    f = fields(v, path, ("current", "previous"))
    current = bucket_counts(f["current"], _join(path, "current"))
    return BudgetCounts(current, bucket_counts(f["previous"], _join(path, "previous")))


def reply(v: Any, path: str = "reply") -> StoreReply:
    if isinstance(v, dict) and "unavailable" in v:
        if fields(v, path, ("unavailable",))["unavailable"] is not True:
            raise ShapeError(_join(path, "unavailable"), "expected true")
        return Unavailable()
    f = fields(v, path, ("reserved", "counts"))
    counts = budget_counts(f["counts"], _join(path, "counts"))
    if counts is None:
        raise ShapeError(_join(path, "counts"), "expected an object")
    return Reservation(f["reserved"], counts)


# --- outputs in the contract's shape --------------------------------------

def schedule_to_json(s: Schedule) -> dict[str, Any]:
    return {"max_attempts": s.max_attempts, "expected_span_ms": s.expected_span_ms, "offsets_ms": list(s.offsets_ms),
            "worst_case_span_ms": s.worst_case_span_ms, "limited_by": s.limited_by.value}


def stop_to_json(d: Stop) -> dict[str, Any]:
    out: dict[str, Any] = {"stop_reason": d.reason.value, "disable_endpoint": d.disable_endpoint}
    if d.dead_letter is not None:
        dl = d.dead_letter
        out["dead_letter"] = {"event_id": dl.event_id, "endpoint_id": dl.endpoint_id, "attempts": dl.attempts,
                              "elapsed_ms": dl.elapsed_ms, "stop_reason": dl.stop_reason.value}
    return out


def decision_to_json(d: Decision) -> dict[str, Any]:
    if isinstance(d, Retry):
        return {"stop_reason": None, "disable_endpoint": False,
                "retry": {"delay_ms": d.delay_ms, "refresh_credentials": d.refresh_credentials}}
    return stop_to_json(d)


def step_to_json(s: Step) -> dict[str, Any]:
    r = s.store
    store = None if r is None else {
        "op": r.op.value, "endpoint_id": r.endpoint_id, "window_ms": r.window_ms, "bucket": r.bucket}
    return {"decision": None if s.decision is None else decision_to_json(s.decision), "store": store}


def settlement_to_json(s: Settlement) -> dict[str, Any]:
    return {"decision": decision_to_json(s.decision), "budget_disagreement": s.budget_disagreement}
