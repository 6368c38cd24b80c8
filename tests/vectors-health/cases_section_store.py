"""format3-documents and format3-store cases (see generate.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import model as m  # noqa: E402

from fixtures import (BACKOFF, BUCKET, FIXED, POLICY, SECTION, SLIDING, SMALL, T0,  # noqa: F401
                      hand)


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
        "hold_budget_refusals": True, "pause": {"max_ms": 600000}, "release": {"multiple": 3.0, "floor_per_s": 1.0},
        "cache_ms": 1000, "circuit": {"failure_ratio": 0.5, "min_sample": 20, "cooldown_ms": 5000,
                                      "cooldown_max_ms": 120000, "probes": 1, "probe_interval_ms": 1000}})
    # 1, hold 1, pause 600000 (0x927c0), circuit 1, 0.5 = 0x3fe0..., 20, 5000, 120000, 1, 1000, 3.0, 1.0, 1000
    hand("words", d["classes"][0], {"hash_words": [
        "0000000000000001", "0000000000000001", "00000000000927c0", "0000000000000001", "3fe0000000000000",
        "0000000000000014", "0000000000001388", "000000000001d4c0", "0000000000000001", "00000000000003e8",
        "4008000000000000", "3ff0000000000000", "00000000000003e8"]})
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
    # (draft 7) The first probe reports (a terminal `none`) at T0 + 5500, so only the window limits the rest.
    e = case("probe grant and refusal per window", opened,
             [(T0 + 4999, req("probe")), (T0 + 5000, req("probe")), (T0 + 5500, req("report", "none", probe=True)),
              (T0 + 5999, req("probe")), (T0 + 6000, req("probe")), (T0 + 6001, req("probe"))])
    hand("probe", e, {"replies": [{"granted": False}, {"granted": True}, {}, {"granted": False}, {"granted": True},
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
    # Draft 6: a run of ceil(min_sample * failure_ratio) = ceil(20 * 0.5) = 10 failures opens, whatever the
    # buckets' estimates say.
    run = held(100, 0, 0, consecutive_failures=9)
    e = case("draft 6: a run of ceil(min_sample * failure_ratio) failures opens a circuit the estimates keep closed",
             run, [(t, req("record", "failure"))])
    # est 101 attempts, 1 failure: 0.0099 < 0.5; the run reaches 10: open.
    hand("run opens", e, {"held": {"health": {"opened_at_ms": t, "cooldown_ms": 5000, "consecutive_failures": 10}}})
    e = case("draft 6: a success ends the run", run, [(t, req("record", "success")), (t + 1, req("record", "failure"))])
    hand("run ends", e, {"held": {"health": {"opened_at_ms": 0, "consecutive_failures": 1}}})
    e = case("draft 6: a throttled failure (it carries a pause) does not lengthen the run", run,
             [(t, req("record", "failure", pause=T0 + 9000))])
    hand("run pause", e, {"held": {"health": {"opened_at_ms": 0, "paused_until_ms": T0 + 9000,
                                              "consecutive_failures": 9}}})
    e = case("draft 6: a terminal answer neither lengthens nor ends the run", run, [(t, req("record", "none"))])
    hand("run none", e, {"held": {"health": {"opened_at_ms": 0, "consecutive_failures": 9}}})
    one = m.parse_section({"circuit": {"min_sample": 3, "failure_ratio": 0.1}})
    e = case("draft 6: the run is at least one failure (ceil(3 * 0.1) = 1)", held(100, 0, 0),
             [(t, req("record", "failure"))], section=one)
    hand("run one", e, {"held": {"health": {"opened_at_ms": t, "consecutive_failures": 1}}})
    one = m.parse_section({"circuit": {"min_sample": 7, "failure_ratio": 0.5}})
    e = case("draft 6: the run rounds up (ceil(7 * 0.5) = 4: three failures stay closed, the fourth opens)",
             held(100, 0, 0, consecutive_failures=2), [(t, req("record", "failure")), (t + 1, req("record", "failure"))],
             section=one)
    hand("run ceil", e, {"replies": [{"view": {"opened_at_ms": 0}}, {"view": {"opened_at_ms": t + 1}}]})
    # With no run to open on, the estimates still weigh the previous bucket's failures (sliding, w = 0.5
    # 30 s into the bucket): est_total 10 + 40 x 0.5 = 30, est_failures 4 + 12 x 0.5 = 10: 0.33 < 0.5, closed
    # (unweighted, 4 + 12 = 16 of 30 would open).
    wt = held(9, 0, 3, consecutive_failures=0)
    wt["buckets"]["previous"] = {"total": 40, "retries": 0}
    wt["health"]["failures"]["previous"] = 12
    e = case("draft 6: a short run leaves the estimates to weigh the previous bucket's failures", wt,
             [(T0 + 30000, req("record", "failure"))], budget=SLIDING)
    hand("run weighted", e, {"held": {"health": {"opened_at_ms": 0, "consecutive_failures": 1,
                                                 "failures": {"current": 4, "previous": 12}},
                                      "buckets": {"current": {"total": 10}}}})
    e = case("draft 6: without a circuit no run is counted", held(100, 0, 0), [(t, req("record", "failure"))],
             section=m.parse_section({"circuit": None}))
    hand("run no circuit", e, {"held": {"health": {"opened_at_ms": 0, "consecutive_failures": 0}}})
    e = case("draft 6: a probe's success closes and ends the run", held(40, 0, 30, opened_at_ms=T0, cooldown_ms=5000,
                                                                          consecutive_failures=7),
             [(T0 + 5000, req("report", "success", probe=True))])
    hand("run close", e, {"held": {"health": {"opened_at_ms": 0, "consecutive_failures": 0}}})
    draft7_probes(case)
    return cases


def draft7_probes(case: Any) -> None:
    """Draft 7: at most `circuit.probes` granted probes in flight fleet-wide, each lease
    max(cooldown_ms, probe_interval_ms) from the last grant. T0 is a multiple of 1000, so T0 + 5999 and
    T0 + 6000 fall in two probe windows (interval 1000)."""
    opened = held(40, 0, 30, opened_at_ms=T0, cooldown_ms=5000)
    e = case("draft 7: a second probe is refused while the first is in flight, even in the next probe window",
             opened, [(T0 + 5999, req("probe")), (T0 + 6000, req("probe")),
                      (T0 + 6800, req("report", "failure", probe=True))])
    # Granted at T0 + 5999 (lease to T0 + 10999); T0 + 6000 opens a new window but one is in flight: refused.
    # The report at T0 + 6800 frees the slot and, the cooldown having ended, doubles it (draft 5).
    hand("d7 in flight", e, {"replies": [{"granted": True}, {"granted": False},
                                         {"view": {"opened_at_ms": T0 + 6800, "cooldown_ms": 10000}}],
                             "held": {"health": {"probes_in_flight": 0, "probe_busy_until_ms": 0,
                                                 "probes_granted": 0, "probe_window": (T0 + 6000) // 1000}}})
    e = case("draft 7: a probe that never reports stops counting after its lease, max(cooldown_ms, probe_interval_ms)",
             opened, [(T0 + 5000, req("probe")), (T0 + 9999, req("probe")), (T0 + 10000, req("probe"))])
    # Lease 5000 from T0 + 5000: refused at T0 + 9999, granted at T0 + 10000 (a new lease to T0 + 15000).
    hand("d7 lease", e, {"replies": [{"granted": True}, {"granted": False}, {"granted": True}],
                         "held": {"health": {"probes_in_flight": 1, "probe_busy_until_ms": T0 + 15000}}})
    e = case("draft 7: a probe's report frees its slot at once", opened,
             [(T0 + 5000, req("probe")), (T0 + 5100, req("report", "none", probe=True)), (T0 + 6000, req("probe"))])
    # A terminal answer (`none`) moves nothing but the slot: the next window's probe is granted.
    hand("d7 report", e, {"replies": [{"granted": True}, {"view": {"opened_at_ms": T0}}, {"granted": True}],
                          "held": {"health": {"probes_in_flight": 1, "probe_busy_until_ms": T0 + 11000}}})
    two = m.parse_section({"circuit": {"probes": 2}})
    e = case("draft 7: with probes 2, two may be in flight and a third waits for a report", opened,
             [(T0 + 5000, req("probe")), (T0 + 5500, req("probe")), (T0 + 6000, req("probe")),
              (T0 + 6100, req("report", "none", probe=True)), (T0 + 6200, req("probe"))], section=two)
    hand("d7 two", e, {"replies": [{"granted": True}, {"granted": True}, {"granted": False}, {},
                                   {"granted": True}],
                       "held": {"health": {"probes_in_flight": 2, "probe_busy_until_ms": T0 + 11200}}})
    e = case("draft 7: a probe's success closes the circuit and frees the slot", opened,
             [(T0 + 5000, req("probe")), (T0 + 5300, req("report", "success", probe=True))])
    hand("d7 close", e, {"held": {"health": {"opened_at_ms": 0, "closed_at_ms": T0 + 5300, "probes_in_flight": 0,
                                             "probe_busy_until_ms": 0}}})

