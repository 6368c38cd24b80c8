#!/usr/bin/env python3
"""Write tests/vectors/engine-*.json: the delivery engine's trace
vectors (docs/engine.md section 14).

Each case is a config and a list of inputs; the expected actions after each
input are what `policy-core/examples/engine_run.rs` prints, and every
case's trace was read against docs/engine.md before it was kept (the
traces named "(checked by hand)" line by line: each action, its order and
its numbers). Regenerate after a deliberate change of the engine's rules,
and read the diff:

    python3 tests/vectors-engine/generate.py
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
T0 = 1_800_000_000_000  # a round instant: buckets of 60 s start here

F2 = {
    "version": "f2",
    "classes": {
        "n": {"window_ms": 60000, "hard_cap": 4,
              "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "none"},
              "budget": {"ratio": 0.1, "window_ms": 60000, "min_sample": 20, "sliding": False}},
        "short": {"window_ms": 3500, "hard_cap": 10,
                  "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "none"}},
    },
}

HEALTH = {"hold_budget_refusals": True, "pause": {"max_ms": 600000},
          "circuit": {"failure_ratio": 0.5, "min_sample": 2, "cooldown_ms": 5000,
                      "cooldown_max_ms": 120000, "probes": 1, "probe_interval_ms": 1000},
          "release": {"multiple": 3.0, "floor_per_s": 1.0}, "cache_ms": 1000}

F3 = {
    "version": "f3",
    "health": HEALTH,
    "classes": {
        "h": {"window_ms": 600000, "hard_cap": 10,
              "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "none"},
              "budget": {"ratio": 0.1, "window_ms": 60000, "min_sample": 20, "sliding": False}},
    },
}


def admit(t, eid, ep="ep-1", cls="n", **kw):
    return dict({"op": "admit", "now_ms": T0 + t, "event_id": eid, "endpoint_id": ep,
                 "target": "https://hooks.example.com/" + ep, "class": cls}, **kw)


def result(t, eid, attempt, **kw):
    return dict({"op": "result", "now_ms": T0 + t, "event_id": eid, "attempt": attempt}, **kw)


def store(t, call_id, reply=None):
    if reply is None:
        return {"op": "store", "now_ms": T0 + t, "call_id": call_id, "failed": True}
    return {"op": "store", "now_ms": T0 + t, "call_id": call_id, "reply": reply}


def tick(t):
    return {"op": "tick", "now_ms": T0 + t}


def op(name, t, **kw):
    return dict({"op": name, "now_ms": T0 + t}, **kw)


def config(doc, **kw):
    return dict({"document": doc}, **kw)


def run(cfg, inputs):
    exe = os.environ.get("ENGINE_RUN") or os.path.join(ROOT, "target", "release", "examples", "engine_run")
    if not os.path.exists(exe):
        subprocess.run(["cargo", "build", "-q", "--release", "-p", "retry-policy-core", "--example", "engine_run"],
                       cwd=ROOT, check=True)
    p = subprocess.run([exe], input=json.dumps({"config": cfg, "inputs": inputs}), capture_output=True,
                       text=True, check=True, cwd=ROOT)
    return [json.loads(line) for line in p.stdout.splitlines()]


def case(name, cfg, inputs, comment=None):
    steps = []
    for inp, out in zip(inputs, run(cfg, inputs)):
        step = {"input": inp, "expect": out["outputs"], "timeout_ms": out["timeout_ms"]}
        if out["errors"]:
            step["error"] = out["errors"][0]["error"]
        steps.append(step)
    c = {"name": name}
    if comment:
        c["comment"] = comment
    c.update({"config": cfg, "steps": steps})
    return c


def drive(cfg, inputs, admits, until, latency_ms=50):
    """`inputs`, then the inputs a host loop feeds: each `(t, event_id)` of
    `admits` admitted at t (class "h"), a tick at every `timeout_ms` the
    engine answers, every send answered 200 `latency_ms` later, until `until`
    ms after T0. Every step is fed after the one before it was answered."""
    inputs, admits, pending = list(inputs), list(admits), []
    timeout = run(cfg, inputs)[-1]["timeout_ms"]
    while True:
        next_ = [(admits[0][0], 0)] if admits else []
        next_ += [(min(pending)[0], 1)] if pending else []
        next_ += [(timeout - T0, 2)] if timeout is not None else []
        if not next_ or min(next_)[0] > until:
            return inputs
        t, kind = min(next_)
        if kind == 0:
            inputs.append(admit(t, admits.pop(0)[1], cls="h"))
        elif kind == 1:
            _, eid, attempt = pending.pop(pending.index(min(pending)))
            inputs.append(result(t, eid, attempt, status=200))
        else:
            inputs.append(tick(t))
        out = run(cfg, inputs)[-1]
        pending += [(t + latency_ms, a["event_id"], a["attempt"]) for a in out["outputs"] if a["action"] == "send"]
        timeout = out["timeout_ms"]


def journal_text(c, upto):
    """The journal a host would hold after step `upto` of case `c`."""
    lines = []
    for step in c["steps"][:upto + 1]:
        lines += [a["line"] for a in step["expect"] if a["action"] == "journal"]
    return "".join(lines)


R2 = [1, 20, 0, 0, 0]          # format 2 reply: reserved, counts (the rule agrees)
R2_REFUSED = [0, 20, 5, 0, 0]


def delivery_cases():
    cs = []
    cs.append(case("a 200 on the first attempt is delivered (checked by hand)", config(F2), [
        admit(0, "ev-1"),
        result(40, "ev-1", 1, status=200),
        store(41, 1, [1, 1, 0, 0, 0]),
    ], "admission record, attempt 1 journaled then sent; the first attempt's record call is made and not waited on"))
    cs.append(case("a 503 is retried after its backoff, then delivered (checked by hand)", config(F2), [
        admit(0, "ev-1"),
        result(10, "ev-1", 1, status=503),
        store(11, 1, R2),
        tick(1010),
        tick(1011),
        result(1050, "ev-1", 2, status=200),
    ], "record_reserve for attempt 1's retry; retry 0's delay is 1000 ms (jitter none): due at 1011"))
    cs.append(case("retries stop at max attempts", config(F2, memory_store=True), [
        admit(0, "ev-1"), result(5, "ev-1", 1, status=503),
        tick(1005), result(1010, "ev-1", 2, status=503),
        tick(3010), result(3020, "ev-1", 3, status=503),
        tick(7020), result(7030, "ev-1", 4, status=503),
    ]))
    cs.append(case("a retry whose delay passes the window stops at the window", config(F2, memory_store=True), [
        admit(0, "ev-1", cls="short"), result(5, "ev-1", 1, status=500),
        tick(1005), result(2600, "ev-1", 2, status=500),
    ], "window 3500 ms: three attempts planned (0, 1000, 3000); attempt 2 ends at 2600 and retry 1's 2000 ms "
       "delay would start past the window: retry_window_elapsed"))
    cs.append(case("the budget refuses a retry: retry_budget_exhausted (format 2)", config(F2), [
        admit(0, "ev-1"), result(5, "ev-1", 1, status=503), store(6, 1, R2_REFUSED),
    ]))
    cs.append(case("a store that fails fails closed: budget_unavailable", config(F2), [
        admit(0, "ev-1"), result(5, "ev-1", 1, status=503), store(6, 1),
    ]))
    cs.append(case("a store reply of the wrong shape is a failed call, said in a warning", config(F2), [
        admit(0, "ev-1"), result(5, "ev-1", 1, status=503), store(6, 1, [1, 2, 3]),
    ]))
    cs.append(case("a 410 stops, dead-letters and asks to disable the endpoint", config(F2, memory_store=True), [
        admit(0, "ev-1"), result(5, "ev-1", 1, status=410),
    ]))
    cs.append(case("a 401 is retried once with refreshed credentials", config(F2, memory_store=True), [
        admit(0, "ev-1"), result(5, "ev-1", 1, status=401), tick(1005), result(1010, "ev-1", 2, status=200),
    ]))
    cs.append(case("a transport error is counted by kind and retried", config(F2, memory_store=True), [
        admit(0, "ev-1"), result(5, "ev-1", 1, error_kind="connect_timeout"),
    ]))
    cs.append(case("the window edge: a send not started in time gives its number back and stops at the window",
                   config(F2, memory_store=True), [
        admit(0, "ev-1", cls="short"), result(5, "ev-1", 1, status=503),
        tick(1005), result(3600, "ev-1", 2, not_started=True),
    ]))
    cs.append(case("max_in_flight bounds the events busy at once", config(F2, memory_store=True, max_in_flight=1), [
        admit(0, "ev-1"), admit(0, "ev-2"), result(5, "ev-1", 1, status=200), result(9, "ev-2", 1, status=200),
    ]))
    cs.append(case("max_open refuses an admission past it and changes nothing; a result that stops an event frees "
                   "its place for the next input (checked by hand)", config(F2, memory_store=True, max_open=1), [
        admit(0, "ev-1"), admit(1, "ev-2"), result(5, "ev-1", 1, status=200), admit(5, "ev-2"),
    ], "ev-1 is admitted and sent; ev-2 is at_capacity (1 open event), with no action at all; ev-1's 200 "
       "delivers it and ev-2, offered again at the same instant, is admitted and sent"))
    cs.append(case("drain: nothing new starts, drained once nothing is in flight (checked by hand)",
                   config(F2, memory_store=True, max_in_flight=1), [
        admit(0, "ev-1"), admit(0, "ev-2"), op("drain", 1), result(5, "ev-1", 1, status=503), tick(2000),
    ], "ev-2 waits for the slot; after drain ev-1's retry is journaled pending and ev-2 never starts"))
    cs.append(case("a swap mid-run: the admitted event keeps its policy, new ones take the new document",
                   config(F2, memory_store=True), [
        admit(0, "ev-old", cls="short"), result(5, "ev-old", 1, status=503),
        op("swap", 6, document={"version": "f2b", "classes": {"short": {
            "window_ms": 900000, "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "none"}}}}),
        admit(7, "ev-new", cls="short"),
        tick(1005), result(1400, "ev-old", 2, status=503), tick(3400), result(3450, "ev-old", 3, status=503),
    ]))
    return cs


def health_cases():
    cs = []
    cs.append(case("429 with Retry-After pauses the endpoint: a later event holds paused (checked by hand)",
                   config(F3), [
        admit(0, "ev-1", cls="h"),
        result(10, "ev-1", 1, status=429, retry_after="5"),
        store(11, 1, [1, 20, 0, 0, 0, -1, T0 + 5010, 0, 0, 0, T0 + 11]),
        admit(100, "ev-2", cls="h"),
        tick(5010),
        tick(5011),
    ], "the reply's view pauses ep-1 until +5010; ev-2's gate holds it paused until then (then it leaves the hold with a "
       "release token); the 429 also set ep-1's learned limit (engine section 5: 0.7 x 1 request sent in the second "
       "before, at least the floor 1/s, no token at the cut): ev-2 spends its token at +5010, so ev-1's retry, due at "
       "+5011 (it honours Retry-After), waits in the release queue for the next one at +6010 (release_pacing)"))
    cs.append(case("an open circuit holds, probes once per window, and a granted probe's success closes it",
                   config(F3, memory_store=True), [
        admit(0, "ev-1", cls="h"), admit(0, "ev-2", cls="h"),
        result(10, "ev-1", 1, status=503), result(10, "ev-2", 1, status=503),
        tick(1010), tick(1011), tick(5010),
        result(5100, "ev-1", 2, status=200),
        tick(6000), tick(6001),
    ], "two 503s open the circuit (min_sample 2); the retries hold circuit_open until the cooldown's end; there ev-1 "
       "probes (granted) and ev-2, in the same window, holds probe_refused; the probe's 200 closes the circuit"))
    cs.append(case("events held for an open circuit wait behind one head, and the probes rotate (checked by hand)",
                   config(F3, memory_store=True), [
        admit(0, "a", cls="h"), admit(1, "b", cls="h"), admit(2, "c", cls="h"),
        result(10, "a", 1, status=503), result(11, "b", 1, status=503), result(12, "c", 1, status=503),
        tick(1010), tick(1011), tick(1012), tick(5010),
        result(5100, "a", 2, status=503),
        tick(6000), tick(7100), tick(15100),
        result(15200, "b", 2, status=200),
        tick(16100),
        result(16200, "c", 2, status=200),
    ], "engine section 4, the hold queue: a's 503 opens the circuit (a run of 1 with min_sample 2), cooldown 5 s to "
       "+5010; the three retries (+1010, +1011, +1012) hold circuit_open, one record each, and join ep-1's queue, a "
       "the head (earliest deadline), b and c due at their deadlines; at +5010 only a wakes and probes (granted; "
       "attempt 2, probe), b becomes the head and holds probe_refused to the next window (+6000), c writes nothing; "
       "a's probe fails (+5100): the circuit reopens with cooldown 10 s (to +15100) and a's retry is due at +7100; "
       "at +6000 b holds circuit_open to +15100 (its reason changed: a record); at +7100 a holds circuit_open too "
       "but, sent once as a probe, goes behind b and c; at +15100 b (not a) probes and c holds probe_refused to "
       "+16000; b's 200 closes the circuit; at +16100 c sends (a pacer token) and a, the head now, holds "
       "release_pacing to the next token (+17100). Before the queue took circuit holds all three woke at +5010 and "
       "+15100, b and c wrote a probe_refused record each time, and a probed both times"))
    cs.append(case("a budget-refused retry holds, and at its wake leaves with a release token, no store call (checked by hand)",
                   config(F3), [
        admit(0, "ev-1", cls="h"),
        result(10, "ev-1", 1, status=503),
        store(11, 1, [0, 20, 5, 0, 0, -1, 0, 0, 0, 0, T0 + 11]),
        tick(1011),
        result(1100, "ev-1", 2, status=200),
    ], "hold budget_refused until +1011 (retry 0's delay); at +1011 the gate passes it (a new pacer is full) and "
       "attempt 2 is journaled and sent with no store call before it (draft 6); its 200 delivers it with no call "
       "(a retry's success that was no probe)"))
    cs.append(case("after a 429 every send to the endpoint waits for the learned limit's slot, one a second at the "
                   "floor (checked by hand)", config(F3), [
        admit(0, "a", cls="h"),
        result(10, "a", 1, status=429, retry_after="2"),
        store(11, 1, [1, 20, 0, 0, 0, -1, T0 + 2010, 0, 0, 0, T0 + 11]),
        admit(20, "b", cls="h"), admit(21, "c", cls="h"), admit(22, "d", cls="h"),
        tick(2010), tick(2011), tick(3010), tick(4010),
    ], "the 429 pauses ep-1 until +2010 and sets its learned limit to the floor, 1/s, no more sends in its "
       "second (+10); b, c, d hold paused (one record each) in ep-1's hold queue, b the head; at +2010 b leaves in "
       "the limit's one slot of second +2000 (and with the release pacer's token); c, the head then, waits for the "
       "pacer's next token at 1/s, +3010 (a journaled release_pacing hold: its reason changed), d behind it writes "
       "nothing; a's retry, due at +2011 and never held (the release pacer does not pace it), waits for the limit's "
       "next second, +3000, and joins the queue as its head (the earliest deadline); the queue releases one a "
       "second in deadline order: a at +3010 (c, the head again, waits with no new record), c at +4010, where d, "
       "the head then, holds release_pacing to +5010"))
    cs.append(case("a throttle after successes sets the learned limit to 95% of what the endpoint accepted in the "
                   "second before, and the pacer lets that rate through", config(F3, memory_store=True), [
        admit(0, "a", cls="h"), admit(1, "b", cls="h"), admit(2, "c", cls="h"), admit(3, "d", cls="h"),
        admit(4, "e", cls="h"),
        result(100, "a", 1, status=200), result(200, "b", 1, status=200), result(300, "c", 1, status=200),
        result(400, "d", 1, status=200),
        result(500, "e", 1, status=429, retry_after="1"),
        admit(600, "f", cls="h"), admit(601, "g", cls="h"), admit(602, "h", cls="h"),
        tick(1500), tick(1501), tick(1800), tick(2100), tick(2400),
    ], "engine section 5 (checked by hand): four 200s in the second before e's 429 set ep-1's limit to "
       "0.95 x 4 = 3.8/s, no more sends in its second (+500); f, g and h hold paused until the pause's end "
       "(+1500) in ep-1's hold queue, f the head; there, in second +1000, the limit allows floor(3.8) = 3 sends, "
       "at +1000, +1334 and +1667 (ceil(1000 k / 3)): e's retry (due at +1500, its Retry-After, never held) and f "
       "take the first two; g, the head then, waits for +1667 (a release_pacing hold: its reason changed), h "
       "behind it writes nothing; g leaves at the next tick (+1800); h, the head then, holds release_pacing to the "
       "next second's first slot (+2000) and leaves at the tick at +2100; the pacer (raised to the limit) "
       "refusing none"))
    steady = [(sec * 1000 + at, f"s{sec}.{at}") for sec in range(2, 31) for at in (0, 334, 667)]
    steady += [(31000 + k, f"burst{k}") for k in range(6)]
    cfg = config(F3, memory_store=True, journal=False)
    cs.append(case("a learned limit still in use 30 s after its cut doubles, at most to twice what the replica sends "
                   "(checked by hand)", cfg, drive(cfg, [
        admit(0, "a", cls="h"), admit(1, "b", cls="h"), admit(2, "c", cls="h"), admit(3, "d", cls="h"),
        admit(4, "e", cls="h"),
        result(100, "a", 1, status=200), result(200, "b", 1, status=200), result(300, "c", 1, status=200),
        result(400, "d", 1, status=200),
        result(500, "e", 1, status=429, retry_after="1"),
    ], steady, until=32000),
        "engine section 5: e's 429 sets ep-1's limit to 0.95 x 4 = 3.8/s (+500), cut_at +500: 3 sends a second, "
        "at +0, +334 and +667 of each. e's retry leaves at the pause's end (+1500); then one event at each of those "
        "slots from +2000 to +30667 (3/s, never held), each answered 200 after 50 ms, each success adding "
        "0.05 / rate (0.05/s for each second at the limit; capped at twice what is sent, never binding here). The first look 30 s after the cut is "
        "s30.667's admission at +30667: 87 successes (e and the 86 events before it) made the limit 4.812/s "
        "(rate + 0.05 / rate, 87 times from 3.8); sent_per_s there (before its own send) is 2 (+30000, +30334) + 3 x 0.333 (the second "
        "before, weight (1000 - 667) / 1000) = 2.999, and 2 x 2.999 = 5.998 > 4.812, so the limit doubles, to "
        "min(9.623, 5.998) = 5.998/s; s30.667's 200 (+30717) adds 0.05 / 5.998: 6.006/s, 6 sends a second. The burst "
        "of six at +31000..31005 leaves in the six slots of second +31000: +31000, +31167, +31334, +31500, "
        "+31667, +31834 (without the doubling, at 4.82/s, in 4: +31000, +31250, +31500, +31750, and the last "
        "two in the next second)"))
    cfg = config(F3, memory_store=True, journal=False)
    cs.append(case("a success after a second the pause kept quiet never lowers the learned limit (checked by hand)",
                   cfg, drive(cfg, [
        admit(0, "a", cls="h"), admit(1, "b", cls="h"), admit(2, "c", cls="h"), admit(3, "d", cls="h"),
        admit(4, "e", cls="h"),
        result(100, "a", 1, status=200), result(200, "b", 1, status=200), result(300, "c", 1, status=200),
        result(400, "d", 1, status=200),
        result(500, "e", 1, status=429, retry_after="2"),
    ], [(2600 + k, f"n{k}") for k in range(4)], until=4500),
        "engine section 5: e's 429 sets ep-1's limit to 0.95 x 4 = 3.8/s (+500) and pauses ep-1 until +2500, "
        "so nothing is sent in second +1000. e's retry leaves at +2500 in the first of second +2000's three "
        "slots (+2000, +2334, +2667), and its 200 at +2550 comes when sent_per_s is 1 (the quiet second before "
        "counts 0): growth stops at twice that, 2/s, and the limit stays 3.8 + 0 (it is never lowered by a "
        "success; lowered to 2/s, two sends a second, +2000 and +2500, n0 would take the last one and n1, n2, n3 "
        "+3000, +3500, +4000). n0 (+2600) takes the slot of +2334, n1 waits for +2667, n2 and n3 for second "
        "+3000's first two, +3000 and +3334"))
    return cs


def journal_cases():
    cs = []
    first = case("setup", config(F2, memory_store=True), [
        admit(0, "ev-1"), result(5, "ev-1", 1, status=503), tick(1005),
    ])
    text = journal_text(first, 2)  # crashed while attempt 2 was in flight
    cs.append(case("a crash mid-attempt: resumed, the next attempt is a new number (checked by hand)",
                   config(F2, memory_store=True), [
        op("resume", 1500, journal=text),
        result(1600, "ev-1", 3, status=200),
    ], "the journal's newest record has attempts 2 (journaled before the send): resumed due now, it sends attempt 3"))
    torn = text + text.splitlines(True)[1][:40]
    cs.append(case("a torn tail is cut before anything is appended", config(F2, memory_store=True), [
        op("resume", 1500, journal=torn),
    ]))
    dead = case("setup", config(F2), [admit(0, "ev-d"), result(5, "ev-d", 1, status=503), store(6, 1, R2_REFUSED)])
    dtext = journal_text(dead, 2)
    cs.append(case("replay at most once: a second replay finds it replayed (checked by hand)",
                   config(F2, memory_store=True), [
        op("resume", 100, journal=dtext),
        op("replay", 200),
        op("replay", 300),
        result(400, "ev-d~r1", 1, status=200),
    ]))
    cs.append(case("replay picks by endpoint and stop reason", config(F2, memory_store=True), [
        op("resume", 100, journal=dtext),
        op("replay", 200, endpoint_id="ep-other"),
        op("replay", 300, stop_reason="max_attempts_exhausted"),
        op("replay", 400, endpoint_id="ep-1", stop_reason="retry_budget_exhausted", limit=1),
    ]))
    held = case("setup", config(F3), [
        admit(0, "ev-1", cls="h"), result(10, "ev-1", 1, status=429, retry_after="5"),
        store(11, 1, [1, 20, 0, 0, 0, -1, T0 + 5010, 0, 0, 0, T0 + 11]), admit(100, "ev-2", cls="h")])
    htext = journal_text(held, 3)
    cs.append(case("a held event survives a restart and resumes at its hold's end (checked by hand)",
                   config(F3, memory_store=True), [
        op("resume", 2000, journal=htext), tick(5010), tick(5011),
    ], "ev-2 was held paused until +5010: resumed held, it leaves the hold then (held_ms counts the restart); ev-1's "
       "retry is pending until +5011"))
    other = case("setup", config(F2, memory_store=True), [
        admit(0, "ev-1"), admit(0, "ev-9"), result(5, "ev-9", 1, status=503)])
    otext = journal_text(other, 2)
    cs.append(case("two journals: the host's own first, another copied into it, an event in both once (checked by hand)",
                   config(F2, memory_store=True), [
        op("resume", 1000, journal=text),
        op("resume", 1001, journal=otext, copy=True),
        tick(1005),
        result(1100, "ev-9", 2, status=200),
        result(1101, "ev-1", 3, status=200),
    ], "the own journal gives ev-1 (attempt 2 journaled, due at +1005); the copied one gives ev-1 again (skipped, "
       "one warn) and ev-9 (its record journaled into the own journal, due at +1005); at +1005 both are judged and "
       "sent: ev-1 attempt 3, ev-9 attempt 2"))
    busy = case("setup", config(F2, memory_store=True), [
        admit(0, "ev-1"), admit(0, "ev-2"), result(5, "ev-2", 1, status=503), op("drain", 10),
        result(20, "ev-1", 1, status=200), op("snapshot", 30)])
    snap = [a["journal"] for a in busy["steps"][5]["expect"] if a["action"] == "snapshot"][0]
    cs.append(case("a snapshot after drain is the state as a journal (checked by hand)", config(F2, memory_store=True), [
        admit(0, "ev-1"), admit(0, "ev-2"), result(5, "ev-2", 1, status=503),
        op("snapshot", 6), op("drain", 10), result(20, "ev-1", 1, status=200), op("snapshot", 30),
    ], "refused (engine_busy) while ev-1's attempt is out; after the drain settles it: a header and ev-2's pending "
       "record (ev-1 was delivered and forgotten)"))
    cs.append(case("a new engine resumes a snapshot and goes on (checked by hand)", config(F2, memory_store=True), [
        op("resume", 40, journal=snap), tick(1005), result(1010, "ev-2", 2, status=200),
    ], "the swapped-in artifact's engine: ev-2 is due at +1005 (retry 0 after +5), sends attempt 2"))
    cs.append(case("an engine that does not dispatch resumes and replays, and sends nothing", config(F2, dispatch=False), [
        op("resume", 100, journal=dtext),
        op("resume", 101, journal=text, copy=True),
        op("replay", 200),
        tick(5000),
        tick(61000),
    ], "dispatch false (a replay command whose next run sends): the replay and the dead letter are journaled, no "
       "send, no timeout; ev-1 stays pending until its window is over, then it is judged and dead-lettered "
       "retry_window_elapsed with its 2 attempts"))
    cs.append(case("without a journal the engine writes no journal lines", config(F2, memory_store=True, journal=False), [
        admit(0, "ev-1"), result(5, "ev-1", 1, status=503), tick(1005), result(1010, "ev-1", 2, status=200),
    ]))
    return cs


def error_cases():
    cs = []
    cs.append(case("every refused input names what was wrong and changes nothing",
                   config(F2, max_events=2), [
        admit(0, "ev-1"),
        admit(0, "ev-1"),
        tick(-1),
        result(1, "nope", 1, status=200),
        result(1, "ev-1", 2, status=200),
        result(1, "ev-1", 1, status=700),
        store(1, 99, R2),
        admit(1, "", cls="n"),
        admit(1, "ev-x", cls="missing"),
        admit(1, "ev-2"),
        admit(1, "ev-3"),
        op("resume", 2, journal=""),
        {"op": "tick", "now_ms": T0 + 2, "extra": 1},
        {"op": "teleport", "now_ms": T0 + 2},
        result(3, "ev-1", 1, status=200, error_kind="reset"),
        result(100, "nope", 1, status=200),
        op("drain", 4),
        admit(5, "ev-9"),
        result(6, "ev-1", 1, status=200),
    ], "a refused input changes nothing, the clock included: after the refused result at +100 the drain at +4 is "
       "taken"))
    cs.append(case("a target URL is read at admission: refused with its reason, else sent spelled one way",
                   config(F2), [
        admit(0, "ev-u", target="http://user:pw@hooks.example.com/x"),
        admit(0, "ev-s", target="ftp://hooks.example.com/x"),
        admit(0, "ev-h", target="http://256.1.1.1/x"),
        admit(0, "ev-p", target="http://hooks.example.com:70000/x"),
        admit(0, "ev-b", target="http://hooks.example.com/a b"),
        admit(1, "ev-1", target="HTTP://Hooks.Example.COM:80/in?x=1#frag"),
        admit(2, "ev-2", target="http://127.1:8080"),
        admit(3, "ev-3", target="https://[::1]:443/v6"),
    ], "checked by hand: the five refusals are invalid_target (userinfo, unsupported_scheme, invalid_host, "
       "invalid_port, invalid_url) and admit nothing; the sends go to http://hooks.example.com/in?x=1, "
       "http://127.0.0.1:8080/ and https://[::1]/v6, while the journal keeps each target as given"))
    cs.append(case("a journal that is not a journal is refused at resume", config(F2), [
        op("resume", 0, journal="not a journal\nreally not\n"),
        admit(1, "ev-1"),
    ]))
    return cs


def write(name, cases):
    doc = {"format": "webhook-retry-policy/engine-trace 1", "spec": "docs/engine.md",
           "regenerate": "python3 tests/vectors-engine/generate.py", "cases": cases}
    with open(os.path.join(HERE, "..", "vectors", name), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"{name}: {len(cases)} cases")


if __name__ == "__main__":
    write("engine-delivery.json", delivery_cases())
    write("engine-health.json", health_cases())
    write("engine-journal.json", journal_cases())
    write("engine-errors.json", error_cases())
