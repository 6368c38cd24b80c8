"""Cases pinning what draft 4 of docs/health.md settles (issue 26, item 6), one
list per suite, appended to the suites' own cases by generate.py. Every name
starts `draft 4:`; expectations come from the model (model.py,
model_send.py), the key ones checked by hand first (`hand`, arithmetic in the
comments). Errors of op inputs pin only the code (docs/health.md section 7).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import model as m  # noqa: E402
import model_send as ms  # noqa: E402

from fixtures import BUCKET, FIXED, POLICY, SECTION, SLIDING, T0, hand  # noqa: E402

P = "draft 4: "
DEADLINE = T0 + 900000
CLS = {"window_ms": 900000, "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000}}


def answer(f: Callable[[], Any], field: bool = False) -> Any:
    """The model's answer, or its refusal: `{error}` (op inputs) or `{error, field}` (documents)."""
    try:
        return f()
    except m.Refused as e:
        return {"error": e.code, "field": e.field} if field else {"error": e.code}


# ---- format3-documents: which error is named, which path -----------------------------------------

def documents() -> list[dict[str, Any]]:
    cases = []

    def case(name: str, doc: dict[str, Any]) -> Any:
        expect = answer(lambda: m.parse_document(doc), field=True)
        cases.append({"name": P + name, "op": "parse_document", "input": {"document": doc}, "expect": expect})
        return expect

    def bad(name: str, section: Any, path: str) -> None:
        e = case(name, {"classes": {"ledger": {**CLS, "health": section}}})
        hand(name, e, {"error": "invalid_document", "field": "classes.ledger.health." + path})

    bad("an unknown member is named before a bad value", {"cache_ms": 0, "holds": True}, "holds")
    bad("a null member is named before an unknown one", {"holds": True, "pause": None}, "pause")
    bad("members are judged in table order, not document order", {"cache_ms": 0, "circuit": {"probes": 0}},
        "circuit.probes")
    bad("inside circuit, table order too: failure_ratio before probe_interval_ms",
        {"circuit": {"probe_interval_ms": 0, "failure_ratio": 2}}, "circuit.failure_ratio")
    bad("release before cache_ms", {"cache_ms": "x", "release": {"floor_per_s": 0}}, "release.floor_per_s")
    bad("a defaulted cooldown_max_ms below a written cooldown_ms is named, not cooldown_ms",
        {"circuit": {"cooldown_ms": 200000}}, "circuit.cooldown_max_ms")
    bad("a nested member that is not an object is named", {"pause": 5}, "pause")
    bad("an unknown member inside circuit before a bad value there", {"circuit": {"probes": 0, "probe": 1}},
        "circuit.probe")
    bad("a negative integer is refused as that field's", {"cache_ms": -1}, "cache_ms")
    bad("an integer of 2^64 is refused (min_sample ends at 2^64 - 1)", {"circuit": {"min_sample": 2**64}},
        "circuit.min_sample")
    bad("a fractional integer field is refused by its type before any range", {"circuit": {"cooldown_ms": 0.5}},
        "circuit.cooldown_ms")
    e = case("an integral double counts as an integer", {"classes": {"n": {**CLS, "health": {"cache_ms": 2000.0}}}})
    hand("integral", e, {"classes": [{"health": {"cache_ms": 2000}}]})
    e = case("the top-level section is judged even when no class uses it",
             {"health": {"cache_ms": 0}, "classes": {"a": {**CLS, "health": None}, "b": {**CLS, "health": {}}}})
    hand("top unused", e, {"error": "invalid_document", "field": "health.cache_ms"})
    return cases


# ---- format3-store: rolls, probe windows, closes ---------------------------------------------------

def held(total: int = 0, retries: int = 0, failures: int = 0, fprev: int = 0, **health: int) -> dict[str, Any]:
    h = {"failures": {"bucket": BUCKET, "current": failures, "previous": fprev}, "paused_until_ms": 0,
         "opened_at_ms": 0, "cooldown_ms": 0, "probe_window": 0, "probes_granted": 0, "closed_at_ms": 0,
         "consecutive_failures": 0, "probes_in_flight": 0, "probe_busy_until_ms": 0}
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
        cases.append({"name": P + name, "op": "apply", "input": {
            "section": section, "budget": budget, "held": h,
            "calls": [{"now_ms": now, "request": r} for now, r in calls]}, "expect": expect})
        return expect

    # Sliding, 1 ms into bucket B+1: w = 59999/60000; est_total 200w ~ 199.997 >= 50, retries 40w + 1 > 0.1 * (200w + 1).
    e = case("a refused reserve at a later bucket rolls the t:/r: buckets but not the f: ones", held(200, 40, 5),
             [(T0 + 60001, req("reserve", "success", bucket=BUCKET + 1))], budget=SLIDING)
    hand("roll t not f", e, {"replies": [{"reservation": {"reserved": False}}],
                             "held": {"buckets": {"bucket": BUCKET + 1, "current": {"total": 0, "retries": 0},
                                                  "previous": {"total": 200, "retries": 40}},
                                      "health": {"failures": {"bucket": BUCKET, "current": 5, "previous": 0}}}})
    e = case("a report at a later bucket rolls neither", held(30, 0, 5),
             [(T0 + 120000, req("report", "success", bucket=BUCKET + 2))])
    hand("report no roll", e, {"held": {"buckets": {"bucket": BUCKET}, "health": {"failures": {"bucket": BUCKET}}}})
    e = case("a failure two buckets ahead rolls f: to zeros, then counts", held(30, 0, 5, 3),
             [(T0 + 120000, req("record", "failure", bucket=BUCKET + 2))])
    hand("roll f", e, {"held": {"health": {"failures": {"bucket": BUCKET + 2, "current": 1, "previous": 0}}}})
    e = case("a failure one bucket ahead keeps the newest f: as the previous", held(30, 0, 5, 3),
             [(T0 + 60000, req("record", "failure", bucket=BUCKET + 1))])
    hand("roll f 1", e, {"held": {"health": {"failures": {"bucket": BUCKET + 1, "current": 1, "previous": 5}}}})
    e = case("a failure older than both kept f: buckets is dropped", held(30, 0, 5, 3),
             [(T0 - 120000, req("record", "failure", bucket=BUCKET - 2))])
    hand("drop f", e, {"held": {"health": {"failures": {"bucket": BUCKET, "current": 5, "previous": 3}},
                                "buckets": {"current": {"total": 30}}}})
    w0 = (T0 - 60000) // 1000  # an old probe window with its one probe spent
    cooling = held(40, 0, 30, opened_at_ms=T0, cooldown_ms=5000, probe_window=w0, probes_granted=1)
    e = case("a probe call during the cooldown writes nothing: the probe window does not move", cooling,
             [(T0 + 1000, req("probe")), (T0 + 5000, req("probe"))])
    hand("cooldown probe", e, {"replies": [{"granted": False}, {"granted": True}],
                               "held": {"health": {"probe_window": (T0 + 5000) // 1000, "probes_granted": 1}}})
    closed = held(40, 0, 0, probe_window=w0, probes_granted=1, closed_at_ms=T0 - 1)
    e = case("a probe call on a closed circuit writes nothing", closed, [(T0 + 1000, req("probe"))])
    hand("closed probe", e, {"replies": [{"granted": False}], "held": closed})
    two = m.parse_section({"circuit": {"probes": 2}})
    ahead = held(40, 0, 30, opened_at_ms=T0, cooldown_ms=5000, probe_window=(T0 + 7000) // 1000, probes_granted=1)
    e = case("a clock behind is judged against the stored window, and its grant counts there", ahead,
             [(T0 + 6000, req("probe")), (T0 + 6001, req("probe"))], section=two)
    hand("behind", e, {"replies": [{"granted": True}, {"granted": False}],
                       "held": {"health": {"probe_window": (T0 + 7000) // 1000, "probes_granted": 2}}})
    # Probe interval 1 h; T0 + 10002 is in the same hour window as T0 + 5000 (T0 is 3182400 ms before the next).
    hourly = m.parse_section({"circuit": {"min_sample": 1, "failure_ratio": 0.01, "probe_interval_ms": 3600000}})
    nxt = ((T0 + 5000) // 3600000 + 1) * 3600000
    assert T0 + 10002 < nxt
    e = case("closing and reopening keep the probe window's count: no second probe in that window",
             held(40, 0, 30, opened_at_ms=T0, cooldown_ms=5000),
             [(T0 + 5000, req("probe")), (T0 + 5001, req("report", "success", probe=True)),
              (T0 + 5002, req("record", "failure")), (T0 + 10002, req("probe")), (nxt, req("probe"))], section=hourly)
    # after the close: total 40, failures 0; the failure: 1 / 41 >= 0.01 at 41 >= 1: reopened at T0 + 5002.
    hand("keep count", e, {"replies": [{"granted": True}, {"view": {"opened_at_ms": 0, "closed_at_ms": T0 + 5001}},
                                       {"view": {"opened_at_ms": T0 + 5002, "cooldown_ms": 5000}},
                                       {"granted": False}, {"granted": True}]})
    e = case("a null circuit still raises the pause", held(40, 0, 39),
             [(T0 + 100, req("record", "failure", pause=T0 + 9000))], section=m.parse_section({"circuit": None}))
    hand("null pause", e, {"replies": [{"view": {"paused_until_ms": T0 + 9000, "opened_at_ms": 0}}],
                           "held": {"health": {"failures": {"current": 39}}}})
    e = case("a failed probe is counted as a failure too", held(40, 0, 30, opened_at_ms=T0, cooldown_ms=5000),
             [(T0 + 5000, req("report", "failure", probe=True))])
    hand("probe counts", e, {"held": {"health": {"failures": {"current": 31}, "opened_at_ms": T0 + 5000,
                                                 "cooldown_ms": 10000}}})
    e = case("two probes in flight fail: the cooldown doubles once (draft 5)",
             held(40, 0, 30, opened_at_ms=T0, cooldown_ms=5000),
             [(T0 + 5800, req("report", "failure", probe=True)), (T0 + 6600, req("report", "failure", probe=True)),
              (T0 + 16000, req("report", "failure", probe=True))])
    # The first reopens at T0 + 5800 for 10 s; the second, inside those 10 s, only counts its failure; a
    # third after them (T0 + 15800 has passed) doubles again.
    hand("two probes", e, {"replies": [{"view": {"opened_at_ms": T0 + 5800, "cooldown_ms": 10000}},
                                       {"view": {"opened_at_ms": T0 + 5800, "cooldown_ms": 10000}},
                                       {"view": {"opened_at_ms": T0 + 16000, "cooldown_ms": 20000}}],
                           "held": {"health": {"failures": {"current": 33}}}})
    zero = {"buckets": {"bucket": 0, "current": {"total": 19, "retries": 0}, "previous": {"total": 0, "retries": 0}},
            "health": {**held()["health"], "failures": {"bucket": 0, "current": 9, "previous": 0},
                       "opened_at_ms": 1, "cooldown_ms": 0}}
    e = case("a close at instant 0 writes closed_at_ms 0 (no rule reads it)", zero,
             [(0, req("report", "success", probe=True, bucket=0))])
    hand("close 0", e, {"held": {"health": {"opened_at_ms": 0, "closed_at_ms": 0, "cooldown_ms": 0}}})
    return cases


# ---- format3-gate --------------------------------------------------------------------------------

def gates() -> list[dict[str, Any]]:
    cases = []
    now = T0 + 10000

    def ev(held_: bool = False) -> dict[str, Any]:
        return {"event_id": "ev-1", "endpoint_id": "ep-1", "attempts": 1, "first_attempted_at_ms": T0, "held": held_,
                "held_ms": 0}

    def view(paused: int = 0, opened: int = 0, cooldown: int = 0, closed: int = 0) -> dict[str, Any]:
        return {"paused_until_ms": paused, "opened_at_ms": opened, "cooldown_ms": cooldown, "closed_at_ms": closed,
                "as_of_ms": now}

    def case(name: str, at: int, v: Any, e: dict[str, Any], pacer: dict[str, Any], health: Any = SECTION,
             granted: bool | None = None) -> Any:
        inp: dict[str, Any] = {"policy": POLICY, "health": health, "event": e}
        if granted is None:
            op = "gate"
            expect = answer(lambda: dict(zip(("decision", "pacer"), ms.gate(POLICY, health, e, v, pacer, at))))
        else:
            op, inp["granted"] = "after_probe", granted
            expect = answer(lambda: dict(zip(("decision", "pacer"),
                                             ms.after_probe(POLICY, health, e, granted, v, pacer, at))))
        inp.update({"view": v, "pacer": pacer, "now_ms": at})
        cases.append({"name": P + name, "op": op, "input": inp, "expect": expect})
        return expect

    full = {"tokens": 1.0, "updated_ms": T0, "normal_per_s": 0.0}
    empty = {"tokens": 0.0, "updated_ms": now, "normal_per_s": 0.0}
    # Rate 1/s, 500 ms since 0.25 tokens: 0.75, hold ceil(0.25 * 1000) = 250 ms; the pacer kept is the call's.
    e = case("a release_pacing hold returns the pacer after the call (tokens accrued, updated_ms now)", now, None,
             ev(held_=True), {"tokens": 0.25, "updated_ms": now - 500, "normal_per_s": 0.0})
    hand("pacing kept", e, {"decision": {"action": "hold", "until_ms": now + 250, "reason": "release_pacing"},
                            "pacer": {"tokens": 0.75, "updated_ms": now}})
    stale = {"tokens": 0.25, "updated_ms": now - 500, "normal_per_s": 0.0}
    e = case("a held event held by a pause gets its pacer back unchanged (gate 6 did not run)", now,
             view(paused=now + 3000), ev(held_=True), stale)
    hand("pause pacer", e, {"decision": {"reason": "paused"}, "pacer": stale})
    future = {**view(paused=now + 3000), "as_of_ms": now + 60000}
    e = case("a view whose as_of_ms is ahead of now_ms is read like any other", now, future, ev(), full)
    hand("future", e, {"decision": {"action": "hold", "until_ms": now + 3000, "reason": "paused"}})
    off = m.parse_section({"pause": {"max_ms": 0}})
    e = case("pause.max_ms 0 still holds on a view's pause", now, view(paused=now + 3000), ev(), full, health=off)
    hand("max 0", e, {"decision": {"action": "hold", "until_ms": now + 3000, "reason": "paused"}})
    e = case("the clock behind the first attempt: elapsed 0, not a stop", T0 - 5000, None, ev(), full)
    hand("behind", e, {"decision": {"action": "send", "probe": False}})
    # Checked by hand: a negative token count is refused before gate 1 would stop the event.
    bad_pacer = {"tokens": -1.0, "updated_ms": T0, "normal_per_s": 0.0}
    cases.append({"name": P + "an invalid pacer is refused even when the window is over", "op": "gate",
                  "input": {"policy": POLICY, "health": SECTION, "event": ev(), "view": None, "pacer": bad_pacer,
                            "now_ms": DEADLINE + 1}, "expect": {"error": "invalid_input"}})
    # A section with one bad value, written whole (as a host builds the record): the section's code.
    cases.append({"name": P + "an invalid section is refused by gate with invalid_document", "op": "gate",
                  "input": {"policy": POLICY, "health": {**SECTION, "cache_ms": 0}, "event": ev(), "view": None,
                            "pacer": full, "now_ms": now}, "expect": {"error": "invalid_document"}})
    # Granted, but the fresh view shows the circuit closed: the whole gate runs, gate 6 with an empty pacer.
    e = case("after_probe: granted on a view that closed meanwhile paces a held event", now, view(closed=now - 1),
             ev(held_=True), empty, granted=True)
    hand("granted closed", e, {"decision": {"action": "hold", "until_ms": now + 1000, "reason": "release_pacing"}})
    e = case("after_probe: granted on a view that closed meanwhile sends a new event as an ordinary send", now,
             view(closed=now - 1), ev(), empty, granted=True)
    hand("granted closed new", e, {"decision": {"action": "send", "probe": False}, "pacer": empty})
    e = case("after_probe: granted on a view that shows a pause holds for it", now,
             view(paused=now + 2000, opened=now - 6000, cooldown=5000), ev(), full, granted=True)
    hand("granted paused", e, {"decision": {"action": "hold", "until_ms": now + 2000, "reason": "paused"}})
    return cases


# ---- format3-pacer ---------------------------------------------------------------------------------

def pacers() -> list[dict[str, Any]]:
    cases = []

    def pace(name: str, release: dict[str, Any], pacer: dict[str, Any], calls: list[int]) -> Any:
        def run() -> dict[str, Any]:
            ms.check_pace(pacer, release)
            p, results = pacer, []
            for now in calls:
                r, p = ms.pace(p, release, now)
                results.append(r)
            return {"results": results, "pacer": p}
        expect = answer(run)
        cases.append({"name": P + name, "op": "pace", "input": {"release": release, "pacer": pacer, "calls": calls},
                      "expect": expect})
        return expect

    one = {"multiple": 1.0, "floor_per_s": 1.0}
    new = {"tokens": 0.0, "updated_ms": 0, "normal_per_s": 0.0}
    # Rate 1/s: at 500, 0.5 tokens: wait ceil(0.5 * 1000) = 500 -> 1000; at 1000, 1.0: send.
    e = pace("a new pacer used before 1000 / rate is not full: the formula wins", one, new, [500, 1000])
    hand("new early", e, {"results": [{"action": "wait", "until_ms": 1000}, {"action": "send"}],
                          "pacer": {"tokens": 0.0, "updated_ms": 1000}})
    e = pace("tokens above the capacity are cut to it", one, {"tokens": 50.0, "updated_ms": T0, "normal_per_s": 0.0},
             [T0, T0])
    hand("cut", e, {"results": [{"action": "send"}, {"action": "wait", "until_ms": T0 + 1000}]})
    e = pace("a release out of range is the section's invalid_document", {"multiple": 0.0, "floor_per_s": 1.0}, new,
             [T0])
    hand("release bad", e, {"error": "invalid_document"})
    e = pace("a negative token count is invalid_input", one, {"tokens": -0.5, "updated_ms": 0, "normal_per_s": 0.0},
             [T0])
    hand("tokens bad", e, {"error": "invalid_input"})

    def rate(name: str, budget: dict[str, Any], now: int, cur: int, prev: int) -> Any:
        expect = answer(lambda: {"normal_per_s": ms.normal_per_s(budget, now, cur, prev)})
        cases.append({"name": P + name, "op": "normal_per_s",
                      "input": {"budget": budget, "now_ms": now, "current": cur, "previous": prev}, "expect": expect})
        return expect

    hand("w0", rate("normal_per_s with window_ms 0 is invalid_budget, not a rate", {**FIXED, "window_ms": 0}, T0, 1, 0),
         {"error": "invalid_budget"})
    hand("r0", rate("normal_per_s with ratio 0 is invalid_budget", {**FIXED, "ratio": 0.0}, T0, 1, 0),
         {"error": "invalid_budget"})
    hand("cap", rate("normal_per_s is capped at 1e9", {**FIXED, "window_ms": 1}, T0, 2**53 - 1, 0),
         {"normal_per_s": 1e9})
    return cases


# ---- format3-settle --------------------------------------------------------------------------------

REFUSED = {"reserved": False, "counts": {"current": {"total": 200, "retries": 40}, "previous": {"total": 0, "retries": 0}}}
RESERVED = {"reserved": True, "counts": {"current": {"total": 200, "retries": 4}, "previous": {"total": 0, "retries": 0}}}


def settles() -> list[dict[str, Any]]:
    cases = []

    def small(name: str, op: str, inp: dict[str, Any], f: Callable[[], Any], want: Any) -> None:
        got = answer(f)
        hand(name, got, want)
        cases.append({"name": P + name, "op": op, "input": inp, "expect": got})

    for outcome, want in [({"status": 600}, {"error": "invalid_status"}), ({"status": 99}, {"error": "invalid_status"}),
                          ({"status": 100}, {"outcome": "none"}), ({"status": 302}, {"outcome": "none"}),
                          ({"status": 403}, {"outcome": "none"})]:
        small(f"health outcome of status {outcome['status']}", "health_outcome", {"outcome": outcome},
              lambda o=outcome: {"outcome": ms.health_outcome(o)}, want)
    for name, health, outcome, want in [
        ("pause_until does not classify the status: 600 with Retry-After gives 0", SECTION,
         {"status": 600, "retry_after_ms": 1000}, {"pause_until_ms": 0}),
        ("a Retry-After of 0 gives now_ms, not 0", SECTION, {"status": 429, "retry_after_ms": 0},
         {"pause_until_ms": T0}),
        ("a 503 with pause.max_ms 0 gives 0", m.parse_section({"pause": {"max_ms": 0}}),
         {"status": 503, "retry_after_ms": 1000}, {"pause_until_ms": 0}),
    ]:
        small(name, "pause_until", {"health": health, "outcome": outcome, "now_ms": T0},
              lambda h=health, o=outcome: {"pause_until_ms": ms.pause_until(h, o, T0)}, want)
    cases.append({"name": P + "pause_until judges its section: invalid_document", "op": "pause_until",
                  "input": {"health": {**SECTION, "release": {"multiple": 0.0, "floor_per_s": 1.0}},
                            "outcome": {"status": 429, "retry_after_ms": 1000}, "now_ms": T0},
                  "expect": {"error": "invalid_document"}})
    st = {"event_id": "ev-1", "endpoint_id": "ep-1", "attempt": 2, "max_attempts": 13, "first_attempted_at_ms": T0,
          "credentials_refreshed": False}
    cases.append({"name": P + "settle judges its section: invalid_document", "op": "settle",
                  "input": {"policy": POLICY, "health": {**SECTION, "cache_ms": 60001}, "state": st,
                            "outcome": {"status": 503}, "now_ms": T0 + 5000, "reply": REFUSED},
                  "expect": {"error": "invalid_document"}})
    return cases
