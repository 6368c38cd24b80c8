#!/usr/bin/env python3
"""Writes tests/vectors-health/format3-*.json: the format 3 (endpoint health)
vectors of docs/health.md section 7.

Regenerate (from the repository root; Python 3.9+, no packages):

    python3 tests/vectors-health/generate.py

Every expectation is computed by model.py, an independent model of
docs/health.md written from the text (no code shared with policy-core), and
the key cases are first checked against values computed by hand (`hand`
below: the arithmetic is in the comments). The vectors need only a JSON
parser. Runner: policy-core/tests/health_vectors.rs (rejects unknown
fields, prints the failing case's name).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import model as m  # noqa: E402

HERE = Path(__file__).resolve().parent
REGEN = "python3 tests/vectors-health/generate.py"
T0 = 1_796_180_820_000  # a bucket edge: 29936347 * 60000
assert T0 % 60000 == 0

BACKOFF = {"base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "none"}
FIXED = {"ratio": 0.1, "window_ms": 60000, "min_sample": 50, "sliding": False}
SLIDING = {**FIXED, "sliding": True}
POLICY = {"backoff": BACKOFF, "window_ms": 900000, "hard_cap": 16, "budget": FIXED}
SECTION = m.parse_section({})  # every default
SMALL = m.parse_section({"circuit": {"cooldown_ms": 5000, "cooldown_max_ms": 12000}})
BUCKET = T0 // 60000


def hand(name: str, got: Any, want: dict[str, Any]) -> None:
    """A hand-computed expectation: every key of `want` must match the model."""
    def pick(g: Any, w: Any) -> Any:
        if isinstance(w, dict):
            return {k: pick(g[k], v) for k, v in w.items()}
        if isinstance(w, list) and isinstance(g, list) and len(w) == len(g):
            return [pick(x, y) for x, y in zip(g, w)]
        return g
    if pick(got, want) != want:
        sys.exit(f"hand check failed: {name}\n  model: {pick(got, want)}\n  hand:  {want}")


def write(suite: str, cases: list[dict[str, Any]]) -> None:
    names = [c["name"] for c in cases]
    assert len(set(names)) == len(names), "case names are unique"
    doc = {"format": "webhook-retry-policy/health-vectors 1", "suite": suite, "spec": "docs/health.md",
           "regenerate": REGEN, "cases": cases}
    (HERE / f"{suite}.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"{suite}.json: {len(cases)} cases")


# ---- format3-documents -----------------------------------------------------------------------------

def documents() -> list[dict[str, Any]]:
    cls = {"window_ms": 900000, "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000}}
    cases = []

    def case(name: str, doc: dict[str, Any], expect: dict[str, Any] | None = None) -> dict[str, Any]:
        if expect is None:
            try:
                expect = m.parse_document(doc)
            except m.Refused as e:
                expect = {"error": e.code, "field": e.field}
        c = {"name": name, "op": "parse_document", "input": {"document": doc}, "expect": expect}
        cases.append(c)
        return c["expect"]

    plain = case("no health anywhere: format 2's hash, unchanged", {"classes": {"n": cls}})
    # The format-2 hash of this class, as tests/vectors-journal has it for the same policy.
    hand("format 2 hash", plain, {"classes": [{"name": "n", "health": None, "policy_hash": "d48723cc7370973c"}]})
    d = case("an empty section takes every default", {"classes": {"n": {**cls, "health": {}}}})
    hand("defaults", d["classes"][0]["health"], {
        "hold_budget_refusals": True, "pause": {"max_ms": 600000}, "release": {"multiple": 1.0, "floor_per_s": 1.0},
        "cache_ms": 1000, "circuit": {"failure_ratio": 0.5, "min_sample": 20, "cooldown_ms": 5000,
                                      "cooldown_max_ms": 120000, "probes": 1, "probe_interval_ms": 1000}})
    # 1, hold 1, pause 600000 (0x927c0), circuit 1, 0.5 = 0x3fe0..., 20, 5000, 120000, 1, 1000, 1.0, 1.0, 1000
    hand("words", d["classes"][0], {"hash_words": [
        "0000000000000001", "0000000000000001", "00000000000927c0", "0000000000000001", "3fe0000000000000",
        "0000000000000014", "0000000000001388", "000000000001d4c0", "0000000000000001", "00000000000003e8",
        "3ff0000000000000", "3ff0000000000000", "00000000000003e8"]})
    assert d["classes"][0]["policy_hash"] != plain["classes"][0]["policy_hash"]
    top = case("a top-level section is every class's default; null opts a class out; a class's own replaces it",
               {"health": {"cache_ms": 2000},
                "classes": {"a": cls, "b": {**cls, "health": None}, "c": {**cls, "health": {"circuit": None}}}})
    hand("top", top, {"classes": [{"name": "a", "health": {"cache_ms": 2000}}, {"name": "b", "health": None},
                                  {"name": "c", "health": {"cache_ms": 1000, "circuit": None}}]})
    # A null circuit is the single word 0 between pause.max_ms and release.multiple.
    assert top["classes"][2]["hash_words"][3] == "0000000000000000" and len(top["classes"][2]["hash_words"]) == 7
    case("top-level null is no default", {"health": None, "classes": {"a": cls}})
    case("every field set", {"classes": {"n": {**cls, "health": {
        "hold_budget_refusals": False, "pause": {"max_ms": 0},
        "circuit": {"failure_ratio": 1, "min_sample": 1, "cooldown_ms": 1, "cooldown_max_ms": 86400000,
                    "probes": 100, "probe_interval_ms": 3600000},
        "release": {"multiple": 100, "floor_per_s": 10000}, "cache_ms": 60000}}}})
    bad = [
        ("failure_ratio 0 is refused", {"circuit": {"failure_ratio": 0}}, "circuit.failure_ratio"),
        ("failure_ratio above 1 is refused", {"circuit": {"failure_ratio": 1.5}}, "circuit.failure_ratio"),
        ("min_sample 0 is refused", {"circuit": {"min_sample": 0}}, "circuit.min_sample"),
        ("cooldown_ms 0 is refused", {"circuit": {"cooldown_ms": 0}}, "circuit.cooldown_ms"),
        ("cooldown_max_ms below cooldown_ms is refused", {"circuit": {"cooldown_ms": 9000, "cooldown_max_ms": 8000}},
         "circuit.cooldown_max_ms"),
        ("cooldown_max_ms above a day is refused", {"circuit": {"cooldown_max_ms": 86400001}},
         "circuit.cooldown_max_ms"),
        ("probes 101 is refused", {"circuit": {"probes": 101}}, "circuit.probes"),
        ("probe_interval_ms above an hour is refused", {"circuit": {"probe_interval_ms": 3600001}},
         "circuit.probe_interval_ms"),
        ("pause.max_ms above a day is refused", {"pause": {"max_ms": 86400001}}, "pause.max_ms"),
        ("release.multiple above 100 is refused", {"release": {"multiple": 100.5}}, "release.multiple"),
        ("release.floor_per_s 0 is refused", {"release": {"floor_per_s": 0}}, "release.floor_per_s"),
        ("cache_ms 0 is refused", {"cache_ms": 0}, "cache_ms"),
        ("cache_ms above a minute is refused", {"cache_ms": 60001}, "cache_ms"),
        ("an unknown field is refused with its path", {"circuit": {"failure_rate": 0.5}}, "circuit.failure_rate"),
        ("an unknown top field of the section is refused", {"holds": True}, "holds"),
        ("a string where a number belongs is refused", {"cache_ms": "1s"}, "cache_ms"),
        ("hold_budget_refusals must be a boolean", {"hold_budget_refusals": 1}, "hold_budget_refusals"),
        ("a fractional cooldown is refused", {"circuit": {"cooldown_ms": 1.5}}, "circuit.cooldown_ms"),
        ("null pause is refused (max_ms 0 turns pauses off)", {"pause": None}, "pause"),
        ("null release is refused", {"release": None}, "release"),
        ("null inside the circuit is refused", {"circuit": {"probes": None}}, "circuit.probes"),
    ]
    for name, section, path in bad:
        e = case(name, {"classes": {"ledger": {**cls, "health": section}}})
        hand(name, e, {"error": "invalid_document", "field": f"classes.ledger.health.{path}"})
    e = case("a section that is not an object is refused", {"classes": {"ledger": {**cls, "health": 5}}})
    hand("not object", e, {"error": "invalid_document", "field": "classes.ledger.health"})
    e = case("a bad top-level section names health", {"health": {"cache_ms": 0}, "classes": {"a": cls}})
    hand("top bad", e, {"error": "invalid_document", "field": "health.cache_ms"})
    bad_backoff = {"window_ms": 900000, "backoff": {"base_ms": 2000, "factor": 0.5, "cap_ms": 300000}}
    case("the format-2 part is judged first (hand-written: format 2's error)",
         {"classes": {"n": {**bad_backoff, "health": {"cache_ms": 0}}}},
         {"error": "invalid_backoff", "field": "classes.n.backoff.factor"})
    return cases


# ---- format3-store ----------------------------------------------------------------------------------

def held(total: int = 0, retries: int = 0, failures: int = 0, **health: int) -> dict[str, Any]:
    h = {"failures": {"bucket": BUCKET, "current": failures, "previous": 0}, "paused_until_ms": 0,
         "opened_at_ms": 0, "cooldown_ms": 0, "probe_window": 0, "probes_granted": 0, "closed_at_ms": 0}
    h.update(health)
    return {"buckets": {"bucket": BUCKET, "current": {"total": total, "retries": retries},
                        "previous": {"total": 0, "retries": 0}}, "health": h}


def req(op: str, outcome: str = "none", pause: int = 0, probe: bool = False, bucket: int = BUCKET) -> dict[str, Any]:
    return {"op": op, "bucket": bucket, "outcome": outcome, "pause_until_ms": pause, "probe": probe}


def store() -> list[dict[str, Any]]:
    cases = []

    def case(name: str, h: dict[str, Any], calls: list[tuple[int, dict[str, Any]]], section: Any = SECTION,
             budget: dict[str, Any] = FIXED) -> dict[str, Any]:
        state, replies = h, []
        for now, r in calls:
            reply, state = m.store_apply(r, section, budget, now, state)
            replies.append(reply)
        expect = {"replies": replies, "held": state}
        cases.append({"name": name, "op": "apply", "input": {
            "section": section, "budget": budget, "held": h,
            "calls": [{"now_ms": now, "request": r} for now, r in calls]}, "expect": expect})
        return expect

    t = T0 + 100
    # 19 attempts, 9 failed; the 20th fails: 10 / 20 = 0.5 >= 0.5 at est_total 20 >= min_sample 20: open.
    e = case("open at the threshold: 10 failures of 20 at min_sample 20", held(19, 0, 9), [(t, req("record", "failure"))])
    hand("open", e, {"held": {"health": {"opened_at_ms": t, "cooldown_ms": 5000, "failures": {"current": 10}}},
                     "replies": [{"view": {"opened_at_ms": t, "cooldown_ms": 5000, "as_of_ms": t}}]})
    # 18 + 1 = 19 attempts, all failed: 19 < min_sample 20: stays closed.
    e = case("not below min_sample: 19 failures of 19 stay closed", held(18, 0, 18), [(t, req("record", "failure"))])
    hand("min_sample", e, {"held": {"health": {"opened_at_ms": 0, "failures": {"current": 19}}}})
    # 20 attempts, 9 failed: 0.45 < 0.5.
    e = case("just below the ratio stays closed: 9 failures of 20", held(19, 0, 9), [(t, req("record", "success"))])
    hand("below ratio", e, {"held": {"health": {"opened_at_ms": 0}}})
    e = case("a terminal answer is not a failure", held(19, 0, 9), [(t, req("record", "none"))])
    hand("terminal", e, {"held": {"health": {"opened_at_ms": 0, "failures": {"current": 9}}}})
    # Sliding, 30 s into the bucket: w = 0.5. previous 40 attempts / 40 failures -> 20 + current 0: est 20/20.
    sl = held(0, 0, 0)
    sl["buckets"]["bucket"] = BUCKET - 1
    sl["buckets"]["current"] = {"total": 40, "retries": 0}
    sl["health"]["failures"] = {"bucket": BUCKET - 1, "current": 39, "previous": 0}
    e = case("sliding: the previous bucket counts at the budget's weight", sl,
             [(T0 + 30000, req("record", "failure", bucket=BUCKET))], budget=SLIDING)
    # after: current 1 total / 1 failure, previous 40 / 39: est_total 1 + 20 = 21, est_f 1 + 19.5 = 20.5 -> open
    hand("sliding", e, {"held": {"health": {"opened_at_ms": T0 + 30000,
                                            "failures": {"bucket": BUCKET, "current": 1, "previous": 39}}}})
    # At the rollover instant w = 1: est_total 40, est_failures 39, 0.975 >= 0.5: open on a success's report.
    e = case("sliding at the rollover instant: the previous bucket counts whole", sl,
             [(T0, req("report", "success", bucket=BUCKET))], budget=SLIDING)
    hand("rollover", e, {"held": {"health": {"opened_at_ms": T0}}})
    e = case("a failure reported without a budget op still counts", held(20, 0, 9),
             [(t, req("report", "failure"))])
    hand("report", e, {"held": {"health": {"opened_at_ms": t}, "buckets": {"current": {"total": 20}}},
                       "replies": [{"reservation": None, "granted": None}]})
    e = case("reserve after a failed retry: the budget's verdict and the health view in one reply", held(100, 5, 10),
             [(t, req("reserve", "failure"))])
    hand("reserve", e, {"replies": [{"reservation": {"reserved": True}, "granted": None}],
                        "held": {"buckets": {"current": {"total": 101, "retries": 6}}}})
    e = case("pause only grows", held(paused_until_ms=T0 + 5000),
             [(t, req("record", "failure", pause=T0 + 3000)), (t + 1, req("record", "failure", pause=T0 + 9000)),
              (t + 2, req("record", "success"))])
    hand("pause", e, {"replies": [{"view": {"paused_until_ms": T0 + 5000}}, {"view": {"paused_until_ms": T0 + 9000}},
                                  {"view": {"paused_until_ms": T0 + 9000}}]})
    # Open at T0 with cooldown 5000, 1 probe per 1000 ms window.
    opened = held(40, 0, 30, opened_at_ms=T0, cooldown_ms=5000)
    e = case("probe grant and refusal per window", opened,
             [(T0 + 4999, req("probe")), (T0 + 5000, req("probe")), (T0 + 5999, req("probe")),
              (T0 + 6000, req("probe")), (T0 + 6001, req("probe"))])
    hand("probe", e, {"replies": [{"granted": False}, {"granted": True}, {"granted": False}, {"granted": True},
                                  {"granted": False}],
                      "held": {"health": {"probe_window": (T0 + 6000) // 1000, "probes_granted": 1}}})
    three = m.parse_section({"circuit": {"probes": 3}})
    e = case("three probes per window", opened, [(T0 + 5000 + i, req("probe")) for i in range(4)], section=three)
    hand("three", e, {"replies": [{"granted": True}] * 3 + [{"granted": False}]})
    e = case("a closed circuit grants no probe", held(40, 0, 0), [(T0, req("probe"))])
    hand("closed probe", e, {"replies": [{"granted": False}]})
    e = case("no circuit: never opens, grants nothing", held(40, 0, 39), [(t, req("record", "failure")),
                                                                         (t + 1, req("probe"))],
             section=m.parse_section({"circuit": None}))
    hand("no circuit", e, {"held": {"health": {"opened_at_ms": 0, "failures": {"current": 39}}},
                           "replies": [{}, {"granted": False}]})
    # Probe failures: 5000 -> 10000 -> 12000 (cap) -> 12000.
    sm = held(40, 0, 30, opened_at_ms=T0, cooldown_ms=5000)
    e = case("cooldown doubles on a failed probe, capped at cooldown_max_ms", sm,
             [(T0 + 5000, req("reserve", "failure", probe=True)), (T0 + 15000, req("reserve", "failure", probe=True)),
              (T0 + 27000, req("reserve", "failure", probe=True))], section=SMALL)
    hand("doubling", e, {"replies": [{"view": {"cooldown_ms": 10000, "opened_at_ms": T0 + 5000}},
                                     {"view": {"cooldown_ms": 12000, "opened_at_ms": T0 + 15000}},
                                     {"view": {"cooldown_ms": 12000, "opened_at_ms": T0 + 27000}}]})
    e = case("a successful probe closes: failures deleted, cooldown reset", sm,
             [(T0 + 5000, req("report", "success", probe=True))], section=SMALL)
    hand("close", e, {"held": {"health": {"opened_at_ms": 0, "closed_at_ms": T0 + 5000, "cooldown_ms": 0,
                                          "failures": {"current": 0, "previous": 0}}}})
    e = case("a terminal answer to a probe leaves the circuit open", sm,
             [(T0 + 5000, req("report", "none", probe=True))], section=SMALL)
    hand("probe none", e, {"held": {"health": {"opened_at_ms": T0, "cooldown_ms": 5000}}})
    e = case("a probe that reports to a closed circuit changes only the counts", held(40, 0, 0),
             [(t, req("reserve", "failure", probe=True))])
    hand("closed probe report", e, {"held": {"health": {"opened_at_ms": 0, "cooldown_ms": 0}}})
    e = case("a failed probe that opens a closed circuit does not also double it", held(19, 0, 9),
             [(t, req("record", "failure", probe=True))])
    hand("no double", e, {"held": {"health": {"opened_at_ms": t, "cooldown_ms": 5000}}})
    e = case("a non-probe failure while open changes nothing but the count", sm,
             [(T0 + 100, req("record", "failure"))], section=SMALL)
    hand("open nonprobe", e, {"held": {"health": {"opened_at_ms": T0, "cooldown_ms": 5000, "failures": {"current": 31}}}})
    e = case("the whole cycle: open, cooldown, probe refused then granted, probe succeeds, closed", held(19, 0, 9),
             [(t, req("record", "failure")), (t + 100, req("probe")), (t + 5000, req("probe")),
              (t + 5001, req("report", "success", probe=True)), (t + 5002, req("probe"))])
    hand("cycle", e, {"replies": [{"view": {"opened_at_ms": t}}, {"granted": False}, {"granted": True},
                                  {"view": {"opened_at_ms": 0, "closed_at_ms": t + 5001}}, {"granted": False}]})
    e = case("opening at instant 0 records 1 (0 means closed)", {**held(19, 0, 9), "buckets": {
        "bucket": 0, "current": {"total": 19, "retries": 0}, "previous": {"total": 0, "retries": 0}},
        "health": {**held()["health"], "failures": {"bucket": 0, "current": 9, "previous": 0}}},
        [(0, req("record", "failure", bucket=0))])
    hand("zero", e, {"held": {"health": {"opened_at_ms": 1}}})
    return cases


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
            d, p = m.gate(POLICY, health, ev, v, pacer, now)
            inp = {"policy": POLICY, "health": health, "event": ev, "view": v, "pacer": pacer, "now_ms": now}
            op = "gate"
        else:
            d, p = m.after_probe(POLICY, health, ev, granted, v, pacer, now)
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
    e = case("gate 2: a stale view sends (1001 ms old, cache_ms 1000)", now, view(now - 1001, paused=now + 3000))
    hand("stale", e, {"decision": {"action": "send"}})
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
            r, p = m.pace(p, release, now)
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
        expect = {"normal_per_s": m.normal_per_s(budget, now, cur, prev)}
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
        expect = m.settle(POLICY, health, st, outcome, now, reply)
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

    def wake(name: str, reply: dict[str, Any], now: int, attempts: int = 2, refusals: int = 0) -> dict[str, Any]:
        w = {"event_id": "ev-1", "endpoint_id": "ep-1", "attempts": attempts, "first_attempted_at_ms": T0,
             "refusals": refusals}
        expect = m.settle_wake(POLICY, w, reply, now)
        cases.append({"name": name, "op": "settle_wake",
                      "input": {"policy": POLICY, "wake": w, "reply": reply, "now_ms": now}, "expect": expect})
        return expect

    hand("w send", wake("a wake the budget grants sends", RESERVED, T0 + 7000), {"action": "send"})
    # attempts 2, first refused wake: index 1 + 1 = 2, ceiling 4000.
    hand("w1", wake("a refused wake holds with the next retry index's delay", REFUSED, T0 + 7000),
         {"action": "hold", "until_ms": T0 + 11000, "refusals": 1})
    hand("w2", wake("the third refused wake: index 4, 16 s", REFUSED, T0 + 30000, refusals=2),
         {"action": "hold", "until_ms": T0 + 46000, "refusals": 3})
    hand("w cap", wake("refused wakes stop growing at the backoff's cap", REFUSED, T0 + 100000, refusals=20),
         {"action": "hold", "until_ms": T0 + 160000, "refusals": 21})
    hand("w deadline", wake("a refused wake holds at most until the deadline", REFUSED, DEADLINE - 1000, refusals=9),
         {"action": "hold", "until_ms": DEADLINE})
    hand("w unavailable", wake("an unavailable store at a wake fails closed", {"unavailable": True}, T0 + 7000),
         {"action": "stop", "stop_reason": "budget_unavailable", "dead_letter": {"attempts": 2, "elapsed_ms": 7000}})

    def small(name: str, op: str, inp: dict[str, Any], expect: dict[str, Any]) -> None:
        cases.append({"name": name, "op": op, "input": inp, "expect": expect})

    for outcome, want in [({"status": 200}, "success"), ({"status": 503}, "failure"), ({"status": 429}, "failure"),
                          ({"status": 400}, "none"), ({"status": 401}, "none"), ({"status": 599}, "failure"),
                          ({"error_kind": "connect_timeout"}, "failure"), ({"error_kind": "invalid_url"}, "none")]:
        got = m.health_outcome(outcome)
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
        got = m.pause_until(health, outcome, T0)
        assert got == want, (name, got)
        small(name, "pause_until", {"health": health, "outcome": outcome, "now_ms": T0}, {"pause_until_ms": got})
    return cases


if __name__ == "__main__":
    write("format3-documents", documents())
    write("format3-store", store())
    write("format3-gate", gates())
    write("format3-settle", settles())
    write("format3-pacer", pacers())
