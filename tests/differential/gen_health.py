"""Format-3 cases for gen.py (docs/health.md; the shapes of tests/vectors/format3-*.json).

Ops: parse_document, apply, gate, after_probe, settle,
health_outcome, pause_until, pace, normal_per_s. Inputs are always well
formed for the reference runner (policy-core/tests/health_vectors.rs):
sections outside `parse_document` are written whole (every field, as a
host builds the WIT record), an `apply` case's section and budget are
valid (the store's rule is only called with validated ones), a probe
request carries outcome `none`, no pause, probe false. Values sit on the
boundaries: views stale/fresh at exactly `cache_ms`, pauses and cooldowns
ending at `now_ms`, probe windows, pacer tokens near 1, instants near 2^53,
sliding and fixed budgets, every `invalid_document` path of a section,
documents nested 25-41 levels deep.

`loose` (gen.py --loose3) adds values the reference's JSON decoding judges
before the component does (pacer `normal_per_s` above 1e9, a `release`
out of range, an invalid budget for
`normal_per_s`): the runners disagree on those by construction today.
"""

U53 = (1 << 53) - 1
T0 = 1_796_180_820_000  # a 60 s bucket edge, as in tests/vectors-health/fixtures.py
OPS = ["parse_document", "apply", "gate", "after_probe", "settle", "health_outcome", "pause_until",
       "pace", "normal_per_s"]
WEIGHTS = [8, 12, 14, 6, 10, 2, 4, 6, 3]
FULL = {
    "hold_budget_refusals": True, "pause": {"max_ms": 600000},
    "circuit": {"failure_ratio": 0.5, "min_sample": 20, "cooldown_ms": 5000, "cooldown_max_ms": 120000, "probes": 1,
                "probe_interval_ms": 1000},
    "release": {"multiple": 1.0, "floor_per_s": 1.0}, "cache_ms": 1000,
}
# (path, a refused value) for every check of a section: range, type, null, unknown field, fraction.
INVALID = [
    (("circuit", "failure_ratio"), 0), (("circuit", "failure_ratio"), 0.0), (("circuit", "failure_ratio"), 1.0000000000000002),
    (("circuit", "failure_ratio"), -0.5), (("circuit", "failure_ratio"), 1.5), (("circuit", "min_sample"), 0),
    (("circuit", "cooldown_ms"), 0), (("circuit", "cooldown_ms"), 86400001), (("circuit", "cooldown_max_ms"), 86400001),
    (("circuit", "probes"), 0), (("circuit", "probes"), 101), (("circuit", "probe_interval_ms"), 0),
    (("circuit", "probe_interval_ms"), 3600001), (("pause", "max_ms"), 86400001), (("release", "multiple"), 0),
    (("release", "multiple"), 100.00000000000001), (("release", "multiple"), -1), (("release", "floor_per_s"), 0),
    (("release", "floor_per_s"), 10000.000000000002), (("cache_ms",), 0), (("cache_ms",), 60001),
]
# Only in documents: what a WIT record cannot carry.
INVALID_DOC = [
    (("circuit", "cooldown_ms"), 1.5), (("cache_ms",), "1s"), (("hold_budget_refusals",), 1), (("pause",), None),
    (("release",), None), (("circuit", "probes"), None), (("holds",), True), (("circuit", "failure_rate"), 0.5),
    (("pause", "max"), 1), (("release", "rate"), 1), (("pause",), 5), (("circuit",), []), (("cache_ms",), -1),
    (("cache_ms",), None), (("hold_budget_refusals",), None), (("circuit", "min_sample"), 2.5),
]


def num(d, key, default):
    """d[key] if it is an integer, else `default` (a mutated or missing field)."""
    v = d.get(key) if isinstance(d, dict) else None
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else default


class H:
    def __init__(self, g, loose=False):
        self.g, self.r, self.loose = g, g.r, loose

    def pick(self, xs):
        return self.g.pick(xs)

    def chance(self, p):
        return self.g.chance(p)

    # -- instants ---------------------------------------------------------
    def now(self):
        k = self.r.randrange(10)
        if k < 6:
            return T0 + self.pick([0, 1, 999, 1000, 29_999, 30_000, 59_999, 60_000, self.r.randrange(0, 3_600_000)])
        if k < 8:
            return self.pick([0, 1, 999, 1000, 60_000, self.r.randrange(0, 10_000_000)])
        return U53 - self.pick([0, 1, 1000, 86_400_000, self.r.randrange(0, 10_000_000)])

    def after(self, now, deltas):
        """now plus one of `deltas`, within 0..=2^53-1 (the integers every JSON reader keeps exact)."""
        return max(0, min(U53, now + self.pick(deltas)))

    def before(self, now, edges):
        """now minus one of `edges` (never below 0)."""
        return max(0, now - self.pick(edges))

    # -- policy pieces ----------------------------------------------------
    def budget(self, valid=False):
        if self.loose and not valid and self.chance(0.1):
            return self.g.budget()
        return {"ratio": self.pick([0.1, 0.5, 1.0, 0.05, 1e-300, 0.9999999999999999]),
                "window_ms": self.pick([1, 1000, 60_000, 60_000, 3_600_000, 86_400_000]),
                "min_sample": self.pick([0, 1, 20, 50, 1000]), "sliding": self.chance(0.5)}

    def policy(self):
        """Valid most of the time; else anything gen.py writes (then the section is valid)."""
        if self.chance(0.1):
            return self.g.policy(), True
        base = self.pick([1, 100, 1000, 2000])
        return {"backoff": {"base_ms": base, "factor": self.pick([1.0, 1.5, 2.0, 1.0000000000000002]),
                            "cap_ms": self.pick([base, 60_000, 300_000, 86_400_000]),
                            "jitter": self.pick(["none", "full", "equal"])},
                "window_ms": self.pick([1, 1000, 60_000, 900_000, 3_600_000, 86_400_000, 2_592_000_000]),
                "hard_cap": self.pick([1, 2, 16, 100]), "budget": self.budget()}, False

    def circuit(self):
        cd = self.pick([1, 1000, 5000, 86_400_000])
        return {"failure_ratio": self.pick([0.5, 1, 1.0, 5e-324, 0.1, 0.9999999999999999]),
                "min_sample": self.pick([1, 2, 20, 50, U53]), "cooldown_ms": cd,
                "cooldown_max_ms": self.pick([cd, cd, 120_000 if cd <= 120_000 else cd, 86_400_000]),
                "probes": self.pick([1, 1, 2, 3, 100]), "probe_interval_ms": self.pick([1, 1000, 1000, 3_600_000])}

    def section(self, allow_invalid=True, may_be_null=True):
        """A whole section (or null), sometimes with one refused value."""
        if may_be_null and self.chance(0.15):
            return None
        if self.chance(0.3):
            s = {k: (dict(v) if isinstance(v, dict) else v) for k, v in FULL.items()}
        else:
            s = {"hold_budget_refusals": self.chance(0.7), "pause": {"max_ms": self.pick([0, 1, 600_000, 86_400_000])},
                 "circuit": None if self.chance(0.15) else self.circuit(),
                 "release": {"multiple": self.pick([1.0, 0.5, 2, 100, 1e-9]),
                             "floor_per_s": self.pick([1.0, 0.001, 1, 10_000])},
                 "cache_ms": self.pick([1, 1000, 1000, 60_000])}
        if allow_invalid and self.chance(0.08):
            self.mutate(s, INVALID)
        return s

    def mutate(self, s, table):
        path, value = self.pick(table)
        node = s
        for k in path[:-1]:
            if not isinstance(node.get(k), dict):
                node[k] = dict(FULL[k])  # a whole sub-record (null circuit: the default one)
            node = node[k]
        node[path[-1]] = value

    def doc_section(self):
        """A section as a document writes it: any subset of fields, or an invalid one."""
        k = self.r.randrange(10)
        if k == 0:
            return {}
        s = {}
        full = self.section(allow_invalid=False, may_be_null=False)
        for key in FULL:
            if self.chance(0.5):
                if key in ("pause", "circuit", "release") and isinstance(full[key], dict) and self.chance(0.5):
                    s[key] = {f: v for f, v in full[key].items() if self.chance(0.5)}
                else:
                    s[key] = full[key]
        if k < 4:
            self.mutate(s, self.pick([INVALID, INVALID_DOC]))
        elif k == 4:
            return self.pick([5, "on", [], True, None])
        elif k == 5 and self.chance(0.3):
            deep = 1
            for _ in range(self.r.randrange(24, 41)):  # the document nests 32 levels at most
                deep = {"x": deep}
            s["circuit"] = deep
        return s

    def document(self):
        def cls():
            if self.chance(0.1):
                return {"window_ms": 900_000, "backoff": {"base_ms": 2000, "factor": 0.5, "cap_ms": 300_000}}
            p, _ = self.policy()
            c = {"window_ms": p["window_ms"], "backoff": p["backoff"]}
            if self.chance(0.5):
                c["hard_cap"] = p["hard_cap"]
            if self.chance(0.5):
                c["budget"] = p["budget"]
            return c
        doc = {}
        if self.chance(0.5):
            doc["version"] = self.pick(["v1", "", "2026-12-01", "é"])
        if self.chance(0.4):
            doc["health"] = self.doc_section() if self.chance(0.8) else None
        names = self.r.sample(["n", "ledger", "a", "b", "invoice.paid", "é"], self.r.randrange(1, 4))
        doc["classes"] = {}
        for name in names:
            c = cls()
            k = self.r.randrange(4)
            if k == 1:
                c["health"] = self.doc_section()
            elif k == 2:
                c["health"] = None
            doc["classes"][name] = c
        return {"document": doc}

    # -- store --------------------------------------------------------------
    def counts(self):
        t = self.pick([0, 1, 19, 20, 21, 49, 50, 100, self.r.randrange(0, 1000)])
        return {"total": t, "retries": self.pick([0, 1, t // 10, t])}

    def held(self, bucket, section, now):
        c = (section or {}).get("circuit") or {}
        c = {k: num(c, k, v) for k, v in FULL["circuit"].items()}
        fb = self.after(bucket, [0, 0, -1, -2, 1])
        opened = self.pick([0, 0, now, max(1, now - c["cooldown_ms"]), max(1, now - c["cooldown_ms"] + 1), 1])
        window = now // c["probe_interval_ms"]
        return {"buckets": {"bucket": self.after(bucket, [0, 0, -1, -2, 1]),
                            "current": self.counts(), "previous": self.counts()},
                "health": {"failures": {"bucket": fb, "current": self.pick([0, 1, 9, 10, 19, 20, 40]),
                                        "previous": self.pick([0, 1, 10, 39])},
                           "paused_until_ms": self.after(now, [0, 1, -1]) if self.chance(0.75) else 0,
                           "opened_at_ms": opened,
                           "cooldown_ms": 0 if opened == 0 else self.pick([c["cooldown_ms"], c["cooldown_max_ms"]]),
                           "probe_window": self.pick([0, window, max(0, window - 1)]),
                           "probes_granted": self.pick([0, 1, c["probes"] - 1, c["probes"]]),
                           "closed_at_ms": self.pick([0, max(0, now - 1000)]),
                           # draft 6: the run, around the count that opens (ceil(min_sample x failure_ratio))
                           "consecutive_failures": self.pick([0, 1, 4, 5, 9, 10, c["min_sample"] - 1,
                                                              c["min_sample"]]),
                           # draft 7: probes in flight, around the limit, and their lease around now
                           "probes_in_flight": self.pick([0, 0, 1, c["probes"] - 1, c["probes"]]),
                           "probe_busy_until_ms": self.pick([0, self.after(now, [0, 1, -1, 5000])])}}

    def request(self, now, budget):
        op = self.pick(["record", "reserve", "record_reserve", "report", "probe", "probe"])
        bucket = now // budget["window_ms"]
        bucket = self.after(bucket, [0, 0, 0, -1, 1])
        if op == "probe":
            return {"op": op, "bucket": bucket, "outcome": "none", "pause_until_ms": 0, "probe": False}
        return {"op": op, "bucket": bucket, "outcome": self.pick(["success", "failure", "failure", "none"]),
                "pause_until_ms": 0 if self.chance(0.3) else self.after(now, [0, 1, 600_000, -1]),
                "probe": self.chance(0.3)}

    def apply(self):
        section = self.section(allow_invalid=False, may_be_null=False)
        budget = self.budget(valid=True)
        now = self.now()
        held = self.held(now // budget["window_ms"], section, now)
        calls = []
        for _ in range(self.r.randrange(1, 9)):
            calls.append({"now_ms": now, "request": self.request(now, budget)})
            now = min(U53, now + self.pick([0, 1, 999, 1000, 5000, 60_000, self.r.randrange(0, 200_000)]))
        return {"section": section, "budget": budget, "held": held, "calls": calls}

    # -- gate -----------------------------------------------------------------
    def view(self, now, section):
        s = section or FULL
        c = {k: num(s.get("circuit"), k, v) for k, v in FULL["circuit"].items()}
        cache = num(s, "cache_ms", 1000)
        cd = self.pick([c["cooldown_ms"], c["cooldown_max_ms"], 0, 1])
        opened = self.pick([0, 0, max(1, self.after(now, [-cd, 1 - cd, -cd - 1, 0])), 1])
        as_of = self.after(now, [0, 0, -cache, -cache - 1, 1, -60_001])
        return {"paused_until_ms": 0 if self.chance(0.3) else self.after(now, [0, 1, -1, 600_000, U53]),
                "opened_at_ms": opened, "cooldown_ms": cd, "closed_at_ms": self.pick([0, max(0, now - 1)]),
                "as_of_ms": as_of}

    def pacer(self, now):
        p = {"tokens": self.pick([0.0, 0.5, 0.999999999, 0.9999999999999999, 1.0, 1, 1.0000000000000002, 2.5, 100.0]),
             "updated_ms": self.after(now, [0, -1, -999, -1000, -1001, 5, -now]),
             "normal_per_s": self.pick([0.0, 0, 0.001, 1.0, 10.0, 1e9, 123.456])}
        if self.loose and self.chance(0.05):
            p["normal_per_s"] = self.pick([1e9 + 1, 1.0000000000000002e9, 1e300])
        return p

    def event(self, now, window_ms):
        first = self.before(now, [0, 1, window_ms - 1, window_ms, window_ms + 1, self.r.randrange(0, 1 + window_ms)])
        return {"event_id": self.g.ident(), "endpoint_id": self.g.ident(), "attempts": self.pick([0, 1, 2, 16, 100]),
                "first_attempted_at_ms": first, "held": self.chance(0.5),
                "held_ms": self.pick([0, 1, 42_000, self.r.randrange(0, 1 << 40)])}

    def gate(self, probe):
        policy, loose_policy = self.policy()
        section = self.section(allow_invalid=not loose_policy, may_be_null=not probe)
        now = self.now()
        w = policy["window_ms"] if isinstance(policy["window_ms"], int) else 1
        inp = {"policy": policy, "health": section, "event": self.event(now, w)}
        if probe:
            inp["granted"] = self.chance(0.5)
        inp["view"] = self.view(now, section) if probe or self.chance(0.85) else None
        inp["pacer"] = self.pacer(now)
        inp["now_ms"] = now
        return inp

    # -- after an attempt -------------------------------------------------------
    def outcome(self, retry_after_edges):
        if self.chance(0.15):
            return {"error_kind": self.pick(["connect_timeout", "read_timeout", "tls_error", "", "dns_failure"])}
        o = {"status": self.pick([200, 204, 301, 400, 401, 403, 404, 408, 410, 425, 429, 429, 500, 503, 503, 599, 600,
                                  99])}
        if self.chance(0.6):
            o["retry_after_ms"] = None if self.chance(0.2) else self.pick(retry_after_edges)
        return o

    def state(self, now, window_ms):
        m = self.pick([1, 2, 3, 13, 16, 100])
        return {"event_id": self.g.ident(), "endpoint_id": self.g.ident(),
                "attempt": self.pick([1, 1, 2, max(1, m - 1), m, m + 1, 0]), "max_attempts": m,
                "first_attempted_at_ms": self.before(now, [0, 1000, window_ms - 1, window_ms, 5000]),
                "credentials_refreshed": self.chance(0.3)}

    def reply(self, budget):
        if self.chance(0.2):
            return {"unavailable": True}
        return {"reserved": self.chance(0.4), "counts": {"current": self.counts(), "previous": self.counts()}}

    def settle(self):
        policy, loose_policy = self.policy()
        section = self.section(allow_invalid=not loose_policy)
        now = self.now()
        w = policy["window_ms"] if isinstance(policy["window_ms"], int) else 1
        if loose_policy and self.chance(0.5):
            state = self.g.state(policy, now)
        else:
            state = self.state(now, w)
        return {"policy": policy, "health": section, "state": state,
                "outcome": self.outcome([0, 1, 1000, 60_000, 600_000, U53]), "now_ms": now,
                "reply": self.reply(policy["budget"])}

    def pause_until(self):
        section = self.section(may_be_null=False)
        m = num(section.get("pause"), "max_ms", 0)
        return {"health": section, "outcome": self.outcome([0, 1, max(0, m - 1), m, m + 1, U53]), "now_ms": self.now()}

    # -- pacer ------------------------------------------------------------------
    def pace(self):
        release = {"multiple": self.pick([1.0, 0.5, 2, 100, 1e-9, 3.0000000000000004]),
                   "floor_per_s": self.pick([1.0, 0.001, 1, 3, 10_000, 0.1])}
        if self.loose and self.chance(0.1):
            self.mutate({"release": release}, [p for p in INVALID if p[0][0] == "release"])
        now = self.now()
        pacer = self.pacer(now)
        calls = []
        for _ in range(self.r.randrange(1, 9)):
            calls.append(now)
            now = min(U53, max(0, now + self.pick([0, 1, 333, 999, 1000, 1001, -1, self.r.randrange(0, 5000)])))
        return {"release": release, "pacer": pacer, "calls": calls}

    def normal_per_s(self):
        return {"budget": self.budget(), "now_ms": self.now(),
                "current": self.pick([0, 1, 600, 1000, U53, self.r.randrange(0, 1 << 20)]),
                "previous": self.pick([0, 1, 900, U53, self.r.randrange(0, 1 << 20)])}

    def case(self, op):
        if op == "parse_document":
            return self.document()
        if op in ("gate", "after_probe"):
            return self.gate(op == "after_probe")
        if op == "health_outcome":
            return {"outcome": self.outcome([0, 1000])}
        return getattr(self, op)()


def draw(g, loose=False):
    """One format-3 case: (op, input), drawn with gen.py's generator `g`."""
    op = g.r.choices(OPS, WEIGHTS)[0]
    return op, H(g, loose).case(op)
