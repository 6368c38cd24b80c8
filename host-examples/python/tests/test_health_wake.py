"""A budget-held wake's ``reserve`` reply gates the send once more
(docs/health-dispatch.md section 2 step 3, draft 3 item 2): two replicas
(two send loops, each with its own endpoint table) on one call store and
one endpoint. B's 20th event meets a 429 Retry-After 3 s while A's one
event is held by the budget, so A learns of the pause only from its wake's
own ``reserve`` reply, and must hold on it, keeping the reservation."""

from __future__ import annotations

from health_harness import T0, Harness, document

from webhook_retry_policy.types import AttemptOutcome, HttpResponse, StopReason

PAUSE_MS = 3000
B_AT = T0 + 200  # B starts once A's first reply (no pause in it) is in


def answer(now: int, event_id: str, n: int) -> AttemptOutcome:
    if event_id == "a0" and n == 1:
        return HttpResponse(503, None)
    if event_id == "b19" and n == 1:
        return HttpResponse(429, PAUSE_MS)
    return HttpResponse(204, None)


def test_a_woken_budget_held_retry_holds_on_the_pause_its_own_reserve_reply_shows_and_keeps_the_reservation() -> None:
    # ratio 0.1 over min_sample 1: A's first retry (1 of 1) is refused and held 800 ms;
    # B's 20 first attempts meanwhile make A's wake reserve allowed.
    health = {"hold_budget_refusals": True, "pause": {"max_ms": 600_000}, "circuit": None,
              "release": {"multiple": 1.0, "floor_per_s": 1000.0}, "cache_ms": 60_000}
    doc = document(health, window_ms=20_000,
                   backoff={"base_ms": 800, "factor": 1.0, "cap_ms": 800, "jitter": "none"},
                   budget={"ratio": 0.1, "window_ms": 60_000, "min_sample": 1, "sliding": False})
    h = Harness(doc, answer)
    a, b = h.loop, h.another_replica()
    got = h.run(h.admit_at(T0, "a0", a), *(h.admit_at(B_AT, f"b{i}", b) for i in range(20)))
    assert got == [StopReason.DELIVERED] * 21
    pause_end = B_AT + PAUSE_MS
    sent_a = [(t, n) for t, e, n in h.sent if e == "a0"]
    assert [n for _, n in sent_a] == [1, 2], "A's event: its first attempt and one retry"
    assert sent_a[1][0] >= pause_end, f"A's retry went {sent_a[1][0] - B_AT} ms after B's 429 asked for 3 s"
    writes_a = [(w["hold_reason"], w["held_since_ms"], w["needs_reserve"]) for w in h.writes
                if w["event_id"] == "a0" and w["status"] == "held"]
    # held by the budget, then at its wake (800 ms later: its own view showed no pause) the
    # granted reserve's reply held it paused, the reservation kept (no reserve owed).
    assert writes_a == [("budget_refused", T0, True), ("paused", T0 + 800, False)]
    assert a.counts.holds["budget_refused"] == 1
    assert a.counts.holds["paused"] == 1, "held on its reserve reply's pause"
    assert a.counts.wake_calls == 1, "the reservation was kept: no second reserve"
    assert a.counts.held == 0 and b.counts.wake_calls == 0
