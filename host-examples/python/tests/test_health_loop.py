"""The format-3 send loop (docs/health-dispatch.md section 2) on virtual
time (``health_harness``): pauses, the circuit and its probe, paced release,
budget-held wakes, holds past the window; every hold journaled before it
waits; the per-endpoint table bounded."""

from __future__ import annotations

from health_harness import T0, Harness, document

from webhook_retry_policy.dispatcher.health_table import EndpointTable
from webhook_retry_policy.types import HealthView, HttpResponse, StopReason

DELIVERED = StopReason.DELIVERED


def holds_written(h: Harness, reason: str) -> list[dict]:
    return [w for w in h.writes if w["status"] == "held" and w["hold_reason"] == reason]


def test_a_429_with_retry_after_pauses_the_endpoint_and_the_held_events_leave_after_it() -> None:
    pause_end = T0 + 10_000
    h = Harness(document({"pause": {"max_ms": 60_000}}),
                lambda now, e, n: HttpResponse(429, 10_000) if now < pause_end else HttpResponse(204))
    got = h.run(h.admit_at(T0, "e0"), *(h.admit_at(T0 + 1000 + i, f"e{i}") for i in range(1, 5)))
    assert got == [DELIVERED] * 5
    assert [s for s in h.sent if T0 < s[0] < pause_end] == [], "no request before the pause's end"
    assert sorted(e for _, e, n in h.sent if n == 1 and e != "e0") == ["e1", "e2", "e3", "e4"]
    paused = holds_written(h, "paused")
    assert {w["event_id"] for w in paused} == {"e1", "e2", "e3", "e4"}
    assert all(w["held_until_ms"] == pause_end for w in paused)
    assert h.loop.counts.holds["paused"] == 4 and h.loop.counts.held == 0
    assert h.metrics.holds.labels("paused")._value.get() == 4 and h.metrics.held_events._value.get() == 0
    assert all(rec["held_ms"] > 0 for e, (_, rec) in h.finished.items() if e != "e0")


def test_failures_open_the_circuit_first_attempts_are_held_and_a_granted_probe_closes_it_and_releases_paced() -> None:
    up_at = T0 + 8_000
    h = Harness(document({"circuit": {"min_sample": 4, "failure_ratio": 0.5, "cooldown_ms": 5000,
                                      "probe_interval_ms": 1000}}),
                lambda now, e, n: HttpResponse(503) if now < up_at else HttpResponse(204))
    got = h.run(*(h.admit_at(T0 + 200 * i, f"e{i}") for i in range(12)))
    assert got == [DELIVERED] * 12
    held_first = {w["event_id"] for w in holds_written(h, "circuit_open") if w["attempts"] == 0}
    assert len(held_first) >= 5, "first attempts are gated too"
    assert h.loop.counts.probe_calls >= 1 and h.metrics.probe_calls.labels("true")._value.get() >= 1
    probe_ok = min(t for t, _, _ in h.sent if t >= up_at)  # the probe that succeeded closed the circuit
    after = sorted(t for t, _, _ in h.sent if t > probe_ok)
    assert len(after) >= 5 and after[-1] - after[0] >= 1000 * (len(after) - 2), "released paced, not at once"
    assert h.loop.counts.holds["release_pacing"] > 0


def test_a_budget_refusal_holds_instead_of_dead_lettering_and_each_wake_makes_one_reserve() -> None:
    budget = {"ratio": 0.2, "window_ms": 60_000, "min_sample": 1, "sliding": False}
    h = Harness(document({"circuit": None}, budget=budget),
                lambda now, e, n: HttpResponse(503) if e.startswith("sick") and n == 1 else HttpResponse(204))
    got = h.run(*(h.admit_at(T0, f"a{i}") for i in range(3)), h.admit_at(T0 + 100, "sick0"),
                h.admit_at(T0 + 200, "sick1"), *(h.admit_at(T0 + 3000 + 100 * i, f"ok{i}") for i in range(20)))
    assert set(got) == {DELIVERED}, "a refused retry is held, never dead-lettered retry_budget_exhausted"
    held = holds_written(h, "budget_refused")
    assert held and all(w["needs_reserve"] for w in held) and held[0]["event_id"] == "sick1"
    assert h.loop.counts.wake_calls >= 1 and h.store.ops.count("reserve") == h.loop.counts.wake_calls
    assert h.metrics.wake_calls._value.get() == h.loop.counts.wake_calls
    _, rec = h.finished["sick1"]
    assert rec["attempts"] == 2 and rec["held_ms"] > 0 and rec["needs_reserve"] is False


def test_an_event_held_past_its_window_is_dead_lettered_retry_window_elapsed_with_held_ms() -> None:
    h = Harness(document({"pause": {"max_ms": 60_000}}, window_ms=5000), lambda now, e, n: HttpResponse(429, 60_000))
    h.run(h.admit_at(T0, "e0"), h.admit_at(T0 + 1000, "e1"))
    reason, rec = h.finished["e1"]
    assert reason is StopReason.RETRY_WINDOW_ELAPSED and rec["attempts"] == 0
    assert rec["held_ms"] == 5000 and rec["dead_letter"].stop_reason is StopReason.RETRY_WINDOW_ELAPSED
    assert [e for _, e, _ in h.sent] == ["e0"], "the held event never reached the endpoint"


def test_a_held_record_read_back_meets_the_gate_held_and_is_delivered_after_its_hold() -> None:
    h = Harness(document({"pause": {"max_ms": 60_000}}), lambda now, e, n: HttpResponse(204))
    rec = h.record("e9")
    rec.update(status="held", hold_reason="paused", held_until_ms=T0 + 7000, held_since_ms=T0 - 3000, attempts=1)
    h.loop.count_resumed_hold()
    assert h.run(h.resume(rec, T0 + 7000)) == [DELIVERED]
    assert h.sent == [(T0 + 7000, "e9", 2)]
    assert h.finished["e9"][1]["held_ms"] == 10_000 and h.loop.counts.held == 0


def test_the_endpoint_table_keeps_at_most_its_limit_dropping_the_least_recently_used() -> None:
    t = EndpointTable(limit=3)
    for ep in ("a", "b", "c"):
        t.get(ep).keep_view(HealthView(0, 0, 0, 0, 5))
    t.get("a")
    t.get("d")
    assert len(t) == 3
    e = t.get("c")
    e.keep_view(HealthView(1, 0, 0, 0, 4))
    assert e.view == HealthView(0, 0, 0, 0, 5), "an older reply does not replace the view"
    assert t.get("a").view is not None and t.get("b").view is None and len(t) == 3  # b was dropped
