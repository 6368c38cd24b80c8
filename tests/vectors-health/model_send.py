"""The send side of the model of docs/health.md (sections 4 and 5): the
release pacer, the gate, and settle with holds. See model.py.
"""

from __future__ import annotations

import math
from typing import Any

from model import Refused, allows_retry, sat_add, weight


# ---- section 4: the pacer and the gate ------------------------------------------------------------

def check_pace(pacer: dict[str, Any], release: dict[str, Any]) -> None:
    """draft 4: the pacer's values are invalid_input, a release out of range a section's invalid_document."""
    if not (0.0 <= pacer["tokens"] < math.inf) or not (0.0 <= pacer["normal_per_s"] <= 1e9):
        raise Refused("invalid_input", "pacer")
    if not (0.0 < release["multiple"] <= 100.0) or not (0.0 < release["floor_per_s"] <= 10000.0):
        raise Refused("invalid_document", "health.release")


def pace(pacer: dict[str, Any], release: dict[str, Any], now: int) -> tuple[dict[str, Any], dict[str, Any]]:
    rate = max(release["floor_per_s"], release["multiple"] * pacer["normal_per_s"])
    capacity = max(rate, 1.0)
    elapsed = float(max(now - pacer["updated_ms"], 0))
    tokens = min(capacity, pacer["tokens"] + rate * elapsed / 1000.0)
    nxt = {"tokens": tokens, "updated_ms": now, "normal_per_s": pacer["normal_per_s"]}
    if tokens >= 1.0:
        nxt["tokens"] = tokens - 1.0
        return {"action": "send"}, nxt
    wait = max(math.ceil((1.0 - tokens) * 1000.0 / rate), 1)
    return {"action": "wait", "until_ms": sat_add(now, wait)}, nxt


def normal_per_s(budget: dict[str, Any], now: int, current: int, previous: int) -> float:
    # draft 4: the budget is judged as a policy's (no window_ms 0 read as 1).
    if budget["window_ms"] < 1 or not (0.0 < budget["ratio"] <= 1.0):
        raise Refused("invalid_budget", "budget")
    return min((current + previous * weight(budget, now)) * 1000.0 / budget["window_ms"], 1e9)


def gate(policy: dict[str, Any], health: dict[str, Any] | None, ev: dict[str, Any], view: dict[str, Any] | None,
         pacer: dict[str, Any], now: int) -> tuple[dict[str, Any], dict[str, Any]]:
    elapsed = max(now - ev["first_attempted_at_ms"], 0)
    if elapsed >= policy["window_ms"]:
        dl = {"event_id": ev["event_id"], "endpoint_id": ev["endpoint_id"], "attempts": ev["attempts"],
              "elapsed_ms": elapsed, "stop_reason": "retry_window_elapsed"}
        return {"action": "stop", "stop_reason": "retry_window_elapsed", "dead_letter": dl,
                "held_ms": ev["held_ms"]}, pacer
    if health is None:
        return {"action": "send", "probe": False}, pacer
    deadline = sat_add(ev["first_attempted_at_ms"], policy["window_ms"])

    def hold(until: int, reason: str) -> dict[str, Any]:
        return {"action": "hold", "until_ms": min(until, deadline), "reason": reason}

    # draft 3: any view, whatever its age (its pause and cooldown end only move later)
    if view is not None:
        if now < view["paused_until_ms"]:
            return hold(view["paused_until_ms"], "paused"), pacer
        if health["circuit"] is not None and view["opened_at_ms"] != 0:
            end = sat_add(view["opened_at_ms"], view["cooldown_ms"])
            if now < end:
                return hold(end, "circuit_open"), pacer
            return {"action": "probe"}, pacer
    if ev["held"]:
        verdict, nxt = pace(pacer, health["release"], now)
        if verdict["action"] == "send":
            return {"action": "send", "probe": False}, nxt
        return hold(verdict["until_ms"], "release_pacing"), nxt
    return {"action": "send", "probe": False}, pacer


def after_probe(policy: dict[str, Any], health: dict[str, Any], ev: dict[str, Any], granted: bool,
                view: dict[str, Any], pacer: dict[str, Any], now: int) -> tuple[dict[str, Any], dict[str, Any]]:
    d, nxt = gate(policy, health, ev, view, pacer, now)
    if d["action"] == "probe":
        if granted:
            return {"action": "send", "probe": True}, nxt
        interval = health["circuit"]["probe_interval_ms"]
        deadline = sat_add(ev["first_attempted_at_ms"], policy["window_ms"])
        return {"action": "hold", "until_ms": min((now // interval + 1) * interval, deadline),
                "reason": "probe_refused"}, nxt
    return d, nxt


# ---- section 5: settle (backoff without jitter: the ceiling, as in the contract) --------------------

RETRYABLE = {408, 425, 429, 500, 502, 503, 504, 507, 509}
TERMINAL = {400, 403, 404, 405, 406, 409, 410, 411, 413, 414, 415, 422, 451}
RETRYABLE_KINDS = {"connect_timeout", "read_timeout", "write_timeout", "pool_timeout", "connect_error",
                   "remote_protocol_error"}


def classify(outcome: dict[str, Any]) -> str:
    if "error_kind" in outcome:
        return "retryable" if outcome["error_kind"] in RETRYABLE_KINDS else "terminal"
    s = outcome["status"]
    if 200 <= s <= 299:
        return "success"
    if s in RETRYABLE:
        return "retryable"
    if s in TERMINAL:
        return "terminal"
    return "retryable" if 500 <= s <= 599 else "terminal"


def health_outcome(outcome: dict[str, Any]) -> str:
    if "status" in outcome and not 100 <= outcome["status"] <= 599:
        raise Refused("invalid_status", "outcome.status")
    return {"success": "success", "retryable": "failure", "terminal": "none"}[classify(outcome)]


def pause_until(health: dict[str, Any], outcome: dict[str, Any], now: int) -> int:
    ra = outcome.get("retry_after_ms")
    if outcome.get("status") in (429, 503) and ra is not None and health["pause"]["max_ms"] > 0:
        return sat_add(now, min(ra, health["pause"]["max_ms"]))
    return 0


def ceiling(bo: dict[str, Any], index: int) -> int:
    assert bo["jitter"] == "none", "the model knows the no-jitter curve only"
    cap, base, p = float(bo["cap_ms"]), float(bo["base_ms"]), 1.0
    for _ in range(index):
        nxt = p * bo["factor"]
        if nxt == p:
            break
        p = nxt
        if base * p >= cap:
            return bo["cap_ms"]
    raw = base * p
    return bo["cap_ms"] if (math.isinf(raw) or raw >= cap) else int(raw)


def settle(policy: dict[str, Any], health: dict[str, Any] | None, st: dict[str, Any], outcome: dict[str, Any],
           now: int, reply: dict[str, Any]) -> dict[str, Any]:
    cls = classify(outcome)
    auth = outcome.get("status") in (401, 403)
    refresh = False
    if auth:
        cls, refresh = ("terminal", False) if st["credentials_refreshed"] else ("retryable", True)
    elapsed = max(now - st["first_attempted_at_ms"], 0)

    def stop(reason: str, disable: bool = False) -> dict[str, Any]:
        dl = {"event_id": st["event_id"], "endpoint_id": st["endpoint_id"], "attempts": st["attempt"],
              "elapsed_ms": elapsed, "stop_reason": reason}
        return {"decision": {"stop_reason": reason, "disable_endpoint": disable, "dead_letter": dl},
                "budget_disagreement": False}

    if cls == "success":
        return {"decision": {"stop_reason": "delivered", "disable_endpoint": False}, "budget_disagreement": False}
    if cls == "terminal":
        return stop("terminal_response", outcome.get("status") == 410)
    if st["attempt"] >= st["max_attempts"]:
        return stop("max_attempts_exhausted")
    if elapsed >= policy["window_ms"]:
        return stop("retry_window_elapsed")
    delay = ceiling(policy["backoff"], st["attempt"] - 1)
    if outcome.get("retry_after_ms") is not None:
        delay = max(delay, outcome["retry_after_ms"])
    if elapsed + delay > policy["window_ms"]:
        return stop("retry_window_elapsed")
    if reply.get("unavailable"):
        return stop("budget_unavailable")
    counts = reply["counts"]
    disagree = allows_retry(policy["budget"], now, counts["current"], counts["previous"]) != reply["reserved"]
    if reply["reserved"]:
        out = {"decision": {"stop_reason": None, "disable_endpoint": False,
                            "retry": {"delay_ms": delay, "refresh_credentials": refresh}}}
    elif health is not None and health["hold_budget_refusals"]:
        deadline = sat_add(st["first_attempted_at_ms"], policy["window_ms"])
        out = {"decision": {"hold": {"until_ms": min(sat_add(now, delay), deadline), "refresh_credentials": refresh}}}
    else:
        out = stop("retry_budget_exhausted")
    out["budget_disagreement"] = disagree
    return out
