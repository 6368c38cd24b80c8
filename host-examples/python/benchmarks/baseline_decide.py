"""BASELINE FOR THE BENCHMARK ONLY — NOT USED BY THE PACKAGE.

A plain pure-Python port of the decision path (SPEC "Decide", the design
note's stop_reason made exact), written so the benchmark can show what the
component costs against doing the same work in Python. The package never
imports this file: every real decision comes from the component. The
benchmark checks it against the decide vectors before timing it.
"""

from __future__ import annotations

import math
import random

from webhook_retry_policy.errors import ErrorCode, PolicyError
from webhook_retry_policy.types import (
    DeadLetter,
    DeliveryState,
    HttpResponse,
    Policy,
    Retry,
    Stop,
    StopReason,
)

M64 = (1 << 64) - 1
RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504, 507, 509})
TERMINAL_STATUS = frozenset({400, 403, 404, 405, 406, 409, 410, 411, 413, 414, 415, 422, 451})
RETRYABLE_KINDS = frozenset({"connect_timeout", "read_timeout", "write_timeout", "pool_timeout", "connect_error",
                             "remote_protocol_error"})


def _fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & M64
    return h


def _splitmix64(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & M64
    z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def _ceiling(base_ms: int, factor: float, cap_ms: int, i: int) -> int:
    p = 1.0
    for _ in range(i):
        p2 = p * factor
        if p2 == p or base_ms * p2 >= cap_ms:
            p = p2
            break
        p = p2
    raw = base_ms * p
    return cap_ms if (not math.isfinite(raw) or raw >= cap_ms) else int(raw)


def _delay(policy: Policy, event_id: str, i: int) -> int:
    b = policy.backoff
    c = _ceiling(b.base_ms, b.factor, b.cap_ms, i)
    lo = {"none": c, "full": 0, "equal": c // 2}[b.jitter.value]
    return lo + _splitmix64(_fnv1a64(event_id.encode()) ^ i) % (c - lo + 1)


def _validate(policy: Policy, state: DeliveryState) -> None:
    b, bud = policy.backoff, policy.budget
    if not (1 <= b.base_ms <= b.cap_ms <= 86_400_000 and math.isfinite(b.factor) and b.factor >= 1.0):
        raise PolicyError(ErrorCode.INVALID_BACKOFF, "backoff", "out of range")
    if not 1 <= policy.hard_cap <= 100:
        raise PolicyError(ErrorCode.INVALID_HARD_CAP, "hard_cap", "must be in 1..=100")
    if policy.window_ms > 2_592_000_000:
        raise PolicyError(ErrorCode.INVALID_WINDOW, "window_ms", "above 30 days")
    if not (math.isfinite(bud.ratio) and 0 < bud.ratio <= 1 and bud.window_ms >= 1):
        raise PolicyError(ErrorCode.INVALID_BUDGET, "budget", "out of range")
    if state.attempt < 1 or state.max_attempts < 1:
        raise PolicyError(ErrorCode.INVALID_STATE, "attempt", "must be at least 1")


def decide_with(policy, state, outcome, now_ms, counts):  # type: ignore[no-untyped-def]
    _validate(policy, state)
    status = retry_after = None
    if isinstance(outcome, HttpResponse):
        status, retry_after = outcome.status, outcome.retry_after_ms
        if not 100 <= status <= 599:
            raise PolicyError(ErrorCode.INVALID_STATUS, "outcome.status", "outside 100..=599")
        cls = ("success" if 200 <= status <= 299 else "retryable" if status in RETRYABLE_STATUS
               else "terminal" if status in TERMINAL_STATUS else "retryable" if status >= 500 else "terminal")
    else:
        cls = "retryable" if outcome.kind in RETRYABLE_KINDS else "terminal"
    refresh = False
    if status in (401, 403):
        cls, refresh = ("terminal", False) if state.credentials_refreshed else ("retryable", True)
    elapsed = max(0, now_ms - state.first_attempted_at_ms)

    def stop(reason: StopReason, disable: bool = False) -> Stop:
        return Stop(reason, disable, DeadLetter(state.event_id, state.endpoint_id, state.attempt, elapsed, reason))

    if cls == "success":
        return Stop(StopReason.DELIVERED, False, None)
    if cls == "terminal":
        return stop(StopReason.TERMINAL_RESPONSE, status == 410)
    if state.attempt >= state.max_attempts:
        return stop(StopReason.MAX_ATTEMPTS_EXHAUSTED)
    if elapsed >= policy.window_ms:
        return stop(StopReason.RETRY_WINDOW_ELAPSED)
    delay = _delay(policy, state.event_id, state.attempt - 1)
    if retry_after is not None:
        delay = max(delay, retry_after)
    if elapsed + delay > policy.window_ms:
        return stop(StopReason.RETRY_WINDOW_ELAPSED)
    if counts is None:
        return stop(StopReason.BUDGET_UNAVAILABLE)
    bud = policy.budget
    w = (bud.window_ms - now_ms % bud.window_ms) / bud.window_ms if bud.sliding else 0.0
    est_total = counts.current.total + counts.previous.total * w
    est_retries = counts.current.retries + counts.previous.retries * w
    if not (est_total < bud.min_sample or (est_retries + 1.0) <= bud.ratio * (est_total + 1.0)):
        return stop(StopReason.RETRY_BUDGET_EXHAUSTED)
    return Retry(delay, refresh)


def design_note_decide(policy, state, outcome, now_ms, counts):  # type: ignore[no-untyped-def]
    """The floor a team would hand-write from the design note: random jitter,
    no validation, no dead-letter record (benchmark only)."""
    if isinstance(outcome, HttpResponse):
        status = outcome.status
        if 200 <= status < 300:
            return "delivered"
        if status in TERMINAL_STATUS or (status < 500 and status not in RETRYABLE_STATUS):
            return "terminal_response"
    elif outcome.kind not in RETRYABLE_KINDS:
        return "terminal_response"
    if state.attempt >= state.max_attempts:
        return "max_attempts_exhausted"
    elapsed = now_ms - state.first_attempted_at_ms
    b = policy.backoff
    delay = random.uniform(0, min(b.cap_ms, b.base_ms * b.factor ** (state.attempt - 1)))
    if elapsed + delay > policy.window_ms:
        return "retry_window_elapsed"
    if counts is None:
        return "budget_unavailable"
    total = counts.current.total + counts.previous.total
    if total >= policy.budget.min_sample and counts.current.retries + counts.previous.retries >= total * policy.budget.ratio:
        return "retry_budget_exhausted"
    return delay
