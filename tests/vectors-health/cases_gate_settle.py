"""format3-gate, format3-pacer and format3-settle cases (see generate.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import model as m  # noqa: E402
import model_send as ms  # noqa: E402

from fixtures import (BACKOFF, BUCKET, FIXED, POLICY, SECTION, SLIDING, SMALL, T0,  # noqa: F401
                      hand)


# ---- format3-gate -----------------------------------------------------------------------------------

def event(held_: bool = False, attempts: int = 1, held_ms: int = 0) -> dict[str, Any]:
    return {"event_id": "ev-1", "endpoint_id": "ep-1", "attempts": attempts, "first_attempted_at_ms": T0,
            "held": held_, "held_ms": held_ms}


def view(as_of: int, paused: int = 0, opened: int = 0, cooldown: int = 0, closed: int = 0) -> dict[str, Any]:
    return {"paused_until_ms": paused, "opened_at_ms": opened, "cooldown_ms": cooldown, "closed_at_ms": closed,
            "as_of_ms": as_of}


FULL = {"tokens": 1.0, "updated_ms": T0, "normal_per_s": 0.0}
EMPTY = {"tokens": 0.0, "updated_ms": T0 + 10000, "normal_per_s": 0.0}
DEADLINE = T0 + 900000


def gates() -> list[dict[str, Any]]:
    cases = []

    def case(name: str, now: int, v: Any, ev: dict[str, Any] | None = None, pacer: dict[str, Any] = FULL,
             health: Any = SECTION, granted: bool | None = None) -> dict[str, Any]:
        ev = ev or event()
        if granted is None:
            d, p = ms.gate(POLICY, health, ev, v, pacer, now)
            inp = {"policy": POLICY, "health": health, "event": ev, "view": v, "pacer": pacer, "now_ms": now}
            op = "gate"
        else:
            d, p = ms.after_probe(POLICY, health, ev, granted, v, pacer, now)
            inp = {"policy": POLICY, "health": health, "event": ev, "granted": granted, "view": v, "pacer": pacer,
                   "now_ms": now}
            op = "after_probe"
        expect = {"decision": d, "pacer": p}
        cases.append({"name": name, "op": op, "input": inp, "expect": expect})
        return expect

    now = T0 + 10000
    paused_open = view(now, paused=now + 3000, opened=now - 1000, cooldown=5000)
    e = case("gate 1: the window is over, whatever the view: stop with held_ms", DEADLINE, view(DEADLINE, paused=DEADLINE + 5),
             ev=event(held_=True, attempts=3, held_ms=42000))
    hand("g1", e, {"decision": {"action": "stop", "stop_reason": "retry_window_elapsed", "held_ms": 42000,
                                "dead_letter": {"attempts": 3, "elapsed_ms": 900000}}})
    e = case("gate 2: no health section sends", now, paused_open, health=None, ev=event(held_=True), pacer=EMPTY)
    hand("g2", e, {"decision": {"action": "send", "probe": False}})
    e = case("gate 2: no view sends", now, None)
    hand("g2b", e, {"decision": {"action": "send"}})
    e = case("a stale view still holds for the pause it shows ahead (1001 ms old, cache_ms 1000)", now,
             view(now - 1001, paused=now + 3000))
    hand("stale", e, {"decision": {"action": "hold", "until_ms": now + 3000, "reason": "paused"}})
    e = case("a view an hour old still holds for an open circuit cooling down", now,
             view(now - 3600000, opened=now - 1000, cooldown=5000))
    hand("stale open", e, {"decision": {"action": "hold", "until_ms": now + 4000, "reason": "circuit_open"}})
    e = case("a stale view whose cooldown is over asks for a probe", now, view(now - 5000, opened=now - 6000, cooldown=5000))
    hand("stale probe", e, {"decision": {"action": "probe"}})
    e = case("a stale view showing nothing ahead sends", now, view(now - 5000, paused=now - 1))
    hand("stale nothing", e, {"decision": {"action": "send"}})
    e = case("a view exactly cache_ms old is still used", now, view(now - 1000, paused=now + 3000))
    hand("cache edge", e, {"decision": {"action": "hold", "until_ms": now + 3000, "reason": "paused"}})
    e = case("gate 3 before gate 4: paused and open holds for the pause", now, paused_open)
    hand("g3", e, {"decision": {"action": "hold", "until_ms": now + 3000, "reason": "paused"}})
    e = case("gate 3: the pause ends at its instant", now, view(now, paused=now))
    hand("g3 edge", e, {"decision": {"action": "send"}})
    e = case("gate 3: a hold ends by the deadline", DEADLINE - 10, view(DEADLINE - 10, paused=DEADLINE + 60000))
    hand("g3 deadline", e, {"decision": {"until_ms": DEADLINE}})
    e = case("gate 4: open in its cooldown holds until the cooldown ends", now, view(now, opened=now - 1000, cooldown=5000))
    hand("g4", e, {"decision": {"action": "hold", "until_ms": now + 4000, "reason": "circuit_open"}})
    e = case("gate 4: the cooldown's end by the deadline", DEADLINE - 10,
             view(DEADLINE - 10, opened=DEADLINE - 100, cooldown=120000))
    hand("g4 deadline", e, {"decision": {"until_ms": DEADLINE}})
    e = case("gate 5: open, cooldown over: ask for a probe (before the pacer)", now,
             view(now, opened=now - 5000, cooldown=5000), ev=event(held_=True), pacer=EMPTY)
    hand("g5", e, {"decision": {"action": "probe"}, "pacer": EMPTY})
    e = case("a section without a circuit ignores an opened_at_ms", now, view(now, opened=now - 10, cooldown=5000),
             health=m.parse_section({"circuit": None}))
    hand("no circuit", e, {"decision": {"action": "send"}})
    e = case("gate 6: a held event with no token holds until the next token", now, view(now), ev=event(held_=True),
             pacer={"tokens": 0.25, "updated_ms": now, "normal_per_s": 0.0})
    hand("g6", e, {"decision": {"action": "hold", "until_ms": now + 750, "reason": "release_pacing"}})
    e = case("gate 6 runs on a stale view too: the pacer is local", now, view(now - 5000), ev=event(held_=True),
             pacer={"tokens": 0.5, "updated_ms": now, "normal_per_s": 0.0})
    hand("g6 stale", e, {"decision": {"action": "hold", "until_ms": now + 500}})
    e = case("gate 6: a held event with a token spends it", now, view(now), ev=event(held_=True), pacer=FULL)
    hand("g6 send", e, {"decision": {"action": "send"}, "pacer": {"tokens": 0.0, "updated_ms": now}})
    e = case("gate 7: a new event spends no token", now, view(now), pacer=EMPTY)
    hand("g7", e, {"decision": {"action": "send", "probe": False}, "pacer": EMPTY})
    ov = view(now, opened=now - 6000, cooldown=5000)
    e = case("a granted probe sends as a probe", now, ov, granted=True, ev=event(held_=True), pacer=EMPTY)
    hand("granted", e, {"decision": {"action": "send", "probe": True}})
    e = case("a refused probe holds until the next probe window", now + 300, view(now + 300, opened=now - 6000,
                                                                                    cooldown=5000), granted=False)
    hand("refused", e, {"decision": {"action": "hold", "until_ms": now + 1000, "reason": "probe_refused"}})
    e = case("a refused probe on a view that closed meanwhile sends", now, view(now, closed=now - 1), granted=False)
    hand("closed meanwhile", e, {"decision": {"action": "send", "probe": False}})
    e = case("a refused probe on a reopened circuit holds for its cooldown", now,
             view(now, opened=now - 1, cooldown=10000), granted=False)
    hand("reopened", e, {"decision": {"action": "hold", "until_ms": now + 9999, "reason": "circuit_open"}})
    return cases


# ---- format3-pacer ----------------------------------------------------------------------------------

def pacers() -> list[dict[str, Any]]:
    cases = []

    def case(name: str, release: dict[str, Any], pacer: dict[str, Any], calls: list[int]) -> dict[str, Any]:
        p, results = pacer, []
        for now in calls:
            r, p = ms.pace(p, release, now)
            results.append(r)
        expect = {"results": results, "pacer": p}
        cases.append({"name": name, "op": "pace", "input": {"release": release, "pacer": pacer, "calls": calls},
                      "expect": expect})
        return expect

    one = {"multiple": 1.0, "floor_per_s": 1.0}
    e = case("a new pacer is full at its first use: one token at rate 1", one,
             {"tokens": 0.0, "updated_ms": 0, "normal_per_s": 0.0}, [T0, T0, T0 + 400, T0 + 1000])
    # rate max(1, 1*0) = 1/s, capacity 1: send, wait 1000 ms, 0.4 -> wait ceil(600) ms, 1.0 -> send.
    hand("fresh", e, {"results": [{"action": "send"}, {"action": "wait", "until_ms": T0 + 1000},
                                  {"action": "wait", "until_ms": T0 + 1000}, {"action": "send"}]})
    twenty = {"multiple": 2.0, "floor_per_s": 1.0}
    e = case("rate is multiple x normal when above the floor: 2 x 10/s = 20/s", twenty,
             {"tokens": 0.0, "updated_ms": T0, "normal_per_s": 10.0}, [T0 + 100, T0 + 100, T0 + 100])
    # 20/s * 100 ms = 2 tokens: send, send, then wait ceil(1 * 1000 / 20) = 50 ms.
    hand("twenty", e, {"results": [{"action": "send"}, {"action": "send"}, {"action": "wait", "until_ms": T0 + 150}]})
    e = case("tokens stop at one second's worth", twenty, {"tokens": 0.0, "updated_ms": T0, "normal_per_s": 10.0},
             [T0 + 60000])
    hand("cap", e, {"pacer": {"tokens": 19.0}})
    half = {"multiple": 1.0, "floor_per_s": 0.5}
    e = case("a rate below 1/s still holds one token (capacity at least 1)", half,
             {"tokens": 0.0, "updated_ms": T0, "normal_per_s": 0.0}, [T0 + 10000, T0 + 10000])
    # 0.5/s: 10 s -> min(1, 5) = 1: send; then 0 -> wait 1 / 0.5 s = 2000 ms.
    hand("half", e, {"results": [{"action": "send"}, {"action": "wait", "until_ms": T0 + 12000}]})
    e = case("a fractional wait rounds up", {"multiple": 1.0, "floor_per_s": 3.0},
             {"tokens": 0.0, "updated_ms": T0, "normal_per_s": 0.0}, [T0])
    hand("ceil", e, {"results": [{"action": "wait", "until_ms": T0 + 334}]})  # ceil(1000/3) = 334
    e = case("a clock that went back accrues nothing", one, {"tokens": 0.5, "updated_ms": T0, "normal_per_s": 0.0},
             [T0 - 5000])
    hand("back", e, {"results": [{"action": "wait", "until_ms": T0 - 4500}], "pacer": {"updated_ms": T0 - 5000}})
    e = case("the floor wins over a quiet endpoint", {"multiple": 1.0, "floor_per_s": 4.0},
             {"tokens": 0.0, "updated_ms": T0, "normal_per_s": 0.1}, [T0 + 250, T0 + 250])
    hand("floor", e, {"results": [{"action": "send"}, {"action": "wait", "until_ms": T0 + 500}]})

    def rate(name: str, budget: dict[str, Any], now: int, cur: int, prev: int) -> dict[str, Any]:
        expect = {"normal_per_s": ms.normal_per_s(budget, now, cur, prev)}
        cases.append({"name": name, "op": "normal_per_s",
                      "input": {"budget": budget, "now_ms": now, "current": cur, "previous": prev}, "expect": expect})
        return expect

    hand("n1", rate("normal rate: 600 admissions in a fixed 60 s bucket is 10/s", FIXED, T0 + 1, 600, 900), {
        "normal_per_s": 10.0})
    hand("n2", rate("normal rate, sliding: 15 s in, the previous bucket weighs 0.75", SLIDING, T0 + 15000, 300, 1200),
         {"normal_per_s": 20.0})  # (300 + 900) * 1000 / 60000 = 20
    return cases


# ---- format3-settle ---------------------------------------------------------------------------------

def dstate(attempt: int = 2, refreshed: bool = False) -> dict[str, Any]:
    return {"event_id": "ev-1", "endpoint_id": "ep-1", "attempt": attempt, "max_attempts": 13,
            "first_attempted_at_ms": T0, "credentials_refreshed": refreshed}


REFUSED = {"reserved": False, "counts": {"current": {"total": 200, "retries": 40},
                                         "previous": {"total": 0, "retries": 0}}}
RESERVED = {"reserved": True, "counts": {"current": {"total": 200, "retries": 4},
                                         "previous": {"total": 0, "retries": 0}}}


def settles() -> list[dict[str, Any]]:
    cases = []

    def case(name: str, outcome: dict[str, Any], reply: dict[str, Any], now: int = T0 + 5000,
             health: Any = SECTION, st: dict[str, Any] | None = None) -> dict[str, Any]:
        st = st or dstate()
        expect = ms.settle(POLICY, health, st, outcome, now, reply)
        cases.append({"name": name, "op": "settle", "input": {"policy": POLICY, "health": health, "state": st,
                                                               "outcome": outcome, "now_ms": now, "reply": reply},
                      "expect": expect})
        return expect

    s503 = {"status": 503}
    # attempt 2: retry index 1, ceiling 1000 * 2 = 2000 ms; now T0+5000 -> until T0+7000.
    hand("hold", case("a refused retry is held, not dead-lettered", s503, REFUSED),
         {"decision": {"hold": {"until_ms": T0 + 7000, "refresh_credentials": False}}, "budget_disagreement": False})
    hand("no hold", case("hold_budget_refusals false: format 2's refusal", s503, REFUSED,
                         health=m.parse_section({"hold_budget_refusals": False})),
         {"decision": {"stop_reason": "retry_budget_exhausted"}})
    hand("no section", case("no section: format 2's refusal", s503, REFUSED, health=None),
         {"decision": {"stop_reason": "retry_budget_exhausted"}})
    hand("reserved", case("reserved: format 2's retry", s503, RESERVED),
         {"decision": {"retry": {"delay_ms": 2000}}})
    hand("unavailable", case("the store unavailable still fails closed", s503, {"unavailable": True}),
         {"decision": {"stop_reason": "budget_unavailable"}})
    hand("delivered", case("delivered is never held", {"status": 200}, REFUSED),
         {"decision": {"stop_reason": "delivered"}})
    hand("terminal", case("terminal is never held", {"status": 404}, REFUSED),
         {"decision": {"stop_reason": "terminal_response"}})
    hand("attempts", case("max attempts is never held", s503, REFUSED, st={**dstate(13)}),
         {"decision": {"stop_reason": "max_attempts_exhausted"}})
    hand("window", case("the window is never held", s503, REFUSED, now=T0 + 899000),
         {"decision": {"stop_reason": "retry_window_elapsed"}})
    # Retry-After 120 s beats the 2 s ceiling: held until now + 120000.
    hand("ra", case("a hold waits the Retry-After when it is longer", {"status": 429, "retry_after_ms": 120000},
                    REFUSED), {"decision": {"hold": {"until_ms": T0 + 125000}}})
    hand("auth", case("a refused 401 retry keeps refresh_credentials through the hold", {"status": 401}, REFUSED),
         {"decision": {"hold": {"refresh_credentials": True}}})
    hand("disagree", case("a store that refused what the rule allows is flagged, and held",
                          s503, {"reserved": False, "counts": RESERVED["counts"]}),
         {"budget_disagreement": True, "decision": {"hold": {"until_ms": T0 + 7000}}})

    def small(name: str, op: str, inp: dict[str, Any], expect: dict[str, Any]) -> None:
        cases.append({"name": name, "op": op, "input": inp, "expect": expect})

    for outcome, want in [({"status": 200}, "success"), ({"status": 503}, "failure"), ({"status": 429}, "failure"),
                          ({"status": 400}, "none"), ({"status": 401}, "none"), ({"status": 599}, "failure"),
                          ({"error_kind": "connect_timeout"}, "failure"), ({"error_kind": "invalid_url"}, "none")]:
        got = ms.health_outcome(outcome)
        assert got == want, (outcome, got)
        small(f"health outcome of {json.dumps(outcome)} is {want}", "health_outcome", {"outcome": outcome},
              {"outcome": got})
    for name, health, outcome, want in [
        ("a 429 with Retry-After pauses until now + Retry-After", SECTION, {"status": 429, "retry_after_ms": 120000},
         T0 + 120000),
        ("a 503 pause is capped at pause.max_ms", SECTION, {"status": 503, "retry_after_ms": 3600000}, T0 + 600000),
        ("a 500 with Retry-After does not pause", SECTION, {"status": 500, "retry_after_ms": 1000}, 0),
        ("a 429 without Retry-After does not pause", SECTION, {"status": 429}, 0),
        ("pause.max_ms 0 turns pauses off", m.parse_section({"pause": {"max_ms": 0}}),
         {"status": 429, "retry_after_ms": 1000}, 0),
    ]:
        got = ms.pause_until(health, outcome, T0)
        assert got == want, (name, got)
        small(name, "pause_until", {"health": health, "outcome": outcome, "now_ms": T0}, {"pause_until_ms": got})
    return cases
