"""fleet/budget.lua answers format-3 health calls (docs/health.md sections
2-3) exactly as the vectors say, on a real redis-server.

Every case of tests/vectors/format3-store.json (made by the
independent model tests/vectors-health/model.py) is run through the script:
the case's `held` state is written into the store key's hash, its calls are
made with the 18-argument health layout (the script's header), and each
reply and the hash afterwards, read back into the vectors' `held` shape,
must equal the expectation. The runner rejects fields it does not know and
names the failing case. Random call sequences are compared with the model
itself, bad health arguments must be error replies that write nothing, a
format-2 call must leave a health hash's health fields alone, and
deliberately broken copies of the script must each fail some check.
"""

from __future__ import annotations

import importlib.util
import json
import random
import re

import pytest

from fleetlib import ROOT, script_argv, store_key

SCRIPT = (ROOT / "fleet" / "budget.lua").read_text()
VECTORS = ROOT / "tests" / "vectors" / "format3-store.json"
HEALTH_FIELDS = ("paused_until_ms", "opened_at_ms", "cooldown_ms", "probe_window", "probes_granted", "closed_at_ms",
                 "consecutive_failures", "probes_in_flight", "probe_busy_until_ms")

# ---------------------------------------------------------------- the vectors' shape (unknown fields: rejected)

COUNTS = {"total": None, "retries": None}
CIRCUIT = dict.fromkeys(["failure_ratio", "min_sample", "cooldown_ms", "cooldown_max_ms", "probes", "probe_interval_ms"])
SECTION = {"hold_budget_refusals": None, "pause": {"max_ms": None}, "circuit": CIRCUIT,
           "release": {"multiple": None, "floor_per_s": None}, "cache_ms": None}
HELD = {"buckets": {"bucket": None, "current": COUNTS, "previous": COUNTS},
        "health": {"failures": {"bucket": None, "current": None, "previous": None}, **dict.fromkeys(HEALTH_FIELDS)}}
VIEW = dict.fromkeys(["paused_until_ms", "opened_at_ms", "cooldown_ms", "closed_at_ms", "as_of_ms"])
REPLY = {"reservation": {"reserved": None, "counts": {"current": COUNTS, "previous": COUNTS}}, "granted": None,
         "view": VIEW}
REQUEST = dict.fromkeys(["op", "bucket", "outcome", "pause_until_ms", "probe"])
CASE = {"name": None, "op": None,
        "input": {"section": SECTION, "budget": dict.fromkeys(["ratio", "window_ms", "min_sample", "sliding"]),
                  "held": HELD, "calls": [{"now_ms": None, "request": REQUEST}]},
        "expect": {"replies": [REPLY], "held": HELD}}
FILE = {"format": None, "suite": None, "spec": None, "regenerate": None, "cases": [CASE]}


def check_shape(value, shape, path: str = "") -> None:
    """Every key of `value` is one `shape` knows and every known key is there
    (a dict shape; a one-element list shape: each item; None: a leaf). An
    object may be null where the spec allows it (circuit, reservation)."""
    if isinstance(shape, dict):
        if value is None and path.rsplit(".", 1)[-1] in ("circuit", "reservation"):
            return
        assert isinstance(value, dict), f"{path}: expected an object, got {value!r}"
        unknown, missing = set(value) - set(shape), set(shape) - set(value)
        assert not unknown, f"{path}: unknown field(s) {sorted(unknown)}: the runner does not know them"
        assert not missing, f"{path}: missing field(s) {sorted(missing)}"
        for k, v in value.items():
            check_shape(v, shape[k], f"{path}.{k}" if path else k)
    elif isinstance(shape, list):
        assert isinstance(value, list), f"{path}: expected a list"
        for i, v in enumerate(value):
            check_shape(v, shape[0], f"{path}[{i}]")
    else:
        assert not isinstance(value, (dict, list)), f"{path}: expected a scalar, got {value!r}"


def load_cases() -> list[dict]:
    doc = json.loads(VECTORS.read_text())
    check_shape(doc, FILE)
    assert doc["suite"] == "format3-store"
    for c in doc["cases"]:
        assert c["op"] == "apply", f"{c['name']}: unknown op {c['op']!r}"
        assert len(c["input"]["calls"]) == len(c["expect"]["replies"]), c["name"]
    return doc["cases"]


CASES = load_cases()

# ---------------------------------------------------------------- the script's arguments and reply


def health_argv(request: dict, section: dict) -> list[str]:
    c = section["circuit"]
    circuit = ["0"] * 7 if c is None else ["1", repr(float(c["failure_ratio"]))] + [
        str(c[k]) for k in ("min_sample", "cooldown_ms", "cooldown_max_ms", "probes", "probe_interval_ms")]
    return [request["outcome"], str(request["pause_until_ms"]), "1" if request["probe"] else "0"] + circuit


def argv(request: dict, section: dict, budget: dict, now_ms: int) -> list[str]:
    return script_argv(request["op"], request["bucket"], budget, now_ms) + health_argv(request, section)


def read_reply(raw) -> dict:
    r = [int(x) for x in raw]
    assert len(r) == 11, f"a health reply has 11 integers, got {r}"
    reservation = None
    if r[0] != -1:
        reservation = {"reserved": bool(r[0]), "counts": {"current": {"total": r[1], "retries": r[2]},
                                                          "previous": {"total": r[3], "retries": r[4]}}}
    else:
        assert r[1:5] == [0, 0, 0, 0], f"no reservation but counts {r[1:5]}"
    return {"reservation": reservation, "granted": None if r[5] == -1 else bool(r[5]),
            "view": dict(zip(VIEW, r[6:11]))}


# ---------------------------------------------------------------- the hash <-> `held`


def seed(node, key: str, held: dict) -> None:
    node.delete(key)
    b, f = held["buckets"], held["health"]["failures"]
    fields = {f"t:{b['bucket']}": b["current"]["total"], f"r:{b['bucket']}": b["current"]["retries"],
              f"f:{f['bucket']}": f["current"]}
    if b["bucket"] >= 1:
        fields.update({f"t:{b['bucket'] - 1}": b["previous"]["total"], f"r:{b['bucket'] - 1}": b["previous"]["retries"]})
    if f["bucket"] >= 1:
        fields[f"f:{f['bucket'] - 1}"] = f["previous"]
    fields.update({k: held["health"][k] for k in HEALTH_FIELDS if held["health"][k]})  # absent = 0
    node.hset(key, mapping=fields)


def read_held(node, key: str) -> dict:
    """The hash as the vectors' `held`; a field the script should not keep fails."""
    h = {k.decode(): int(v) for k, v in node.hgetall(key).items()}
    by_prefix: dict[str, dict[int, int]] = {"t": {}, "r": {}, "f": {}}
    for k, v in h.items():
        m = re.fullmatch(r"([trf]):(\d+)", k)
        if m:
            by_prefix[m[1]][int(m[2])] = v
        else:
            assert k in HEALTH_FIELDS, f"unexpected field {k!r} in {h}"
            assert v != 0, f"{k} is 0: a zero health field is deleted"
    budget = set(by_prefix["t"]) | set(by_prefix["r"])
    newest = max(budget, default=0)
    newest_f = max(by_prefix["f"], default=0)
    assert budget <= {newest, newest - 1}, f"stale budget buckets kept: {h}"
    assert set(by_prefix["f"]) <= {newest_f, newest_f - 1}, f"stale failure buckets kept: {h}"

    def counts(b: int) -> dict:
        return {"total": by_prefix["t"].get(b, 0), "retries": by_prefix["r"].get(b, 0)}

    return {"buckets": {"bucket": newest, "current": counts(newest), "previous": counts(newest - 1)},
            "health": {"failures": {"bucket": newest_f, "current": by_prefix["f"].get(newest_f, 0),
                                    "previous": by_prefix["f"].get(newest_f - 1, 0)},
                       **{k: h.get(k, 0) for k in HEALTH_FIELDS}}}


def run_case(node, sha: str, case: dict, idx: int) -> list[str]:
    """Run one vector case; the problems found ([] = agrees)."""
    inp, exp = case["input"], case["expect"]
    window = inp["budget"]["window_ms"]
    key = store_key(f"health-{idx}", window)
    seed(node, key, inp["held"])
    seeded = node.hgetall(key)
    problems = []
    for i, (call, want) in enumerate(zip(inp["calls"], exp["replies"])):
        try:
            raw = node.evalsha(sha, 1, key, *argv(call["request"], inp["section"], inp["budget"], call["now_ms"]))
            got = read_reply(raw)
        except Exception as e:  # noqa: BLE001 - an error reply is a disagreement too
            return problems + [f"call {i}: {e}"]
        if got != want:
            problems.append(f"call {i} ({call['request']['op']}): reply {got} != {want}")
    try:
        held = read_held(node, key)
    except AssertionError as e:
        return problems + [f"hash afterwards: {e}"]
    if held != exp["held"]:
        problems.append(f"held afterwards {held} != {exp['held']}")
    last = inp["calls"][-1]["now_ms"]
    h = exp["held"]["health"]
    live_until = max(last, h["paused_until_ms"], h["opened_at_ms"] + h["cooldown_ms"] if h["opened_at_ms"] else 0)
    ttl = node.pttl(key)
    unchanged = node.hgetall(key) == seeded  # nothing written: no PEXPIRE, as in format 2
    if not (unchanged and ttl == -1) and not 0 < ttl <= live_until - last + 3 * window:
        problems.append(f"PTTL {ttl} not in (0, {live_until - last + 3 * window}]")
    node.delete(key)
    return problems


@pytest.fixture(scope="module")
def node(redis_server):
    return redis_server.client()


@pytest.fixture(scope="module")
def sha(node):
    return node.script_load(SCRIPT)


# ---------------------------------------------------------------- tests


@pytest.mark.parametrize("idx", range(len(CASES)), ids=[c["name"] for c in CASES])
def test_the_script_answers_the_format3_store_case_as_the_vector_says(node, sha, idx):
    problems = run_case(node, sha, CASES[idx], idx)
    assert not problems, f"{CASES[idx]['name']}: " + "; ".join(problems)


def test_every_format3_store_vector_passes_on_redis(node, sha):
    failing = {c["name"]: p for i, c in enumerate(CASES) if (p := run_case(node, sha, c, i))}
    print(f"lua health: {len(CASES) - len(failing)}/{len(CASES)} format3-store cases pass on redis-server")
    for name, p in failing.items():
        print(f"  FAIL {name}: {'; '.join(p)}")
    assert len(CASES) >= 20 and not failing, sorted(failing)


def test_the_runner_rejects_a_vector_with_a_field_it_does_not_know():
    case = json.loads(json.dumps(CASES[0]))
    case["input"]["calls"][0]["request"]["retry_after_ms"] = 5
    with pytest.raises(AssertionError, match="unknown field.*retry_after_ms"):
        check_shape(case, CASE)
    case = json.loads(json.dumps(CASES[0]))
    case["expect"]["held"]["health"]["probe_epoch"] = 0
    with pytest.raises(AssertionError, match="unknown field.*probe_epoch"):
        check_shape(case, CASE)


# ---------------------------------------------------------------- random sequences against the model


def _model():
    spec = importlib.util.spec_from_file_location("health_model", ROOT / "tests" / "vectors-health" / "model.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


MODEL = _model()


def random_sequences_disagreements(node, sha: str, seqs: int = 40, steps: int = 30, seen: dict | None = None) -> list[str]:
    """Random calls (every op, outcome, probe flag, pauses; buckets forward,
    back and far back; circuits small enough to open, close and reopen) made
    on Redis and on the model: every reply and the state after each call.
    `seen` counts the transitions the sequences went through."""
    rnd = random.Random(19)
    seen = {} if seen is None else seen
    problems = []
    for seq in range(seqs):
        window = rnd.choice([1000, 7001, 60_000])
        budget = {"ratio": rnd.choice([0.1, 0.5, 1.0]), "window_ms": window, "min_sample": rnd.choice([0, 3, 10]),
                  "sliding": rnd.random() < 0.6}
        circuit = None if rnd.random() < 0.15 else {
            "failure_ratio": rnd.choice([0.5, 1.0, 0.3333333333333333]), "min_sample": rnd.choice([1, 3, 6]),
            "cooldown_ms": rnd.choice([1, 400, 3000]), "cooldown_max_ms": 9000, "probes": rnd.choice([1, 2]),
            "probe_interval_ms": rnd.choice([1, 250, 1000])}
        section = MODEL.parse_section({"circuit": circuit})
        held = {"buckets": {"bucket": 0, "current": {"total": 0, "retries": 0}, "previous": {"total": 0, "retries": 0}},
                "health": {"failures": {"bucket": 0, "current": 0, "previous": 0}, **dict.fromkeys(HEALTH_FIELDS, 0)}}
        key = store_key(f"health-seq-{seq}", window)
        node.delete(key)
        now = rnd.randint(0, 5) * window + rnd.randrange(window)
        for step in range(steps):
            now = max(0, now + rnd.choice([0, 1, 200, 900, window // 2, window, 2 * window, -window, -3 * window]))
            op = rnd.choice(["record", "reserve", "record_reserve", "report", "report", "probe", "probe"])
            req = {"op": op, "bucket": now // window, "outcome": "none", "pause_until_ms": 0, "probe": False}
            if op != "probe":
                req["outcome"] = rnd.choice(["failure", "failure", "success", "none"])
                req["probe"] = rnd.random() < 0.3
                if rnd.random() < 0.15:
                    req["pause_until_ms"] = now + rnd.choice([1, 500, 5000])
            before = held["health"]
            want, held = MODEL.store_apply(req, section, budget, now, held)
            after = held["health"]
            for what, happened in [
                ("opened", not before["opened_at_ms"] and after["opened_at_ms"]),
                ("closed", after["closed_at_ms"] != before["closed_at_ms"]),
                ("reopened", before["opened_at_ms"] and after["cooldown_ms"] > before["cooldown_ms"]),
                ("granted", want["granted"]), ("refused", want["granted"] is False and before["opened_at_ms"]),
                ("paused", after["paused_until_ms"] > before["paused_until_ms"]),
                ("failure rolled", after["failures"]["bucket"] > before["failures"]["bucket"] > 0),
            ]:
                seen[what] = seen.get(what, 0) + bool(happened)
            try:
                got = read_reply(node.evalsha(sha, 1, key, *argv(req, section, budget, now)))
                got_held = read_held(node, key)
            except Exception as e:  # noqa: BLE001
                problems.append(f"seq {seq} step {step} {req}: {e}")
                break
            if got != want or got_held != held:
                problems.append(f"seq {seq} step {step} {req} now {now}: reply {got} vs model {want}; "
                                f"held {got_held} vs model {held}")
                break
        node.delete(key)
    return problems


def test_random_call_sequences_agree_with_the_independent_model(node, sha):
    seen: dict[str, int] = {}
    problems = random_sequences_disagreements(node, sha, seen=seen)
    print(f"lua health: random sequences went through {seen}")
    assert not problems, problems[:3]
    assert all(n >= 3 for n in seen.values()) and len(seen) == 7, f"the sequences missed a transition: {seen}"


# ---------------------------------------------------------------- format 2 untouched, bad arguments

CIRCUIT_ARGS = ["1", "0.5", "20", "5000", "120000", "1", "1000"]
BUDGET = {"ratio": 0.1, "window_ms": 60_000, "min_sample": 50, "sliding": True}


def test_a_format2_call_replies_five_integers_and_leaves_the_health_fields_alone(node, sha):
    key = store_key("health-format2", 60_000)
    node.delete(key)
    health = {"f:7": 3, "f:6": 1, "paused_until_ms": 999_000, "opened_at_ms": 420_100, "cooldown_ms": 5000,
              "probe_window": 420, "probes_granted": 1, "closed_at_ms": 7, "consecutive_failures": 4,
              "probes_in_flight": 1, "probe_busy_until_ms": 425_100}
    node.hset(key, mapping={"t:7": 10, "r:7": 1, **health})
    reply = node.evalsha(sha, 1, key, *script_argv("record_reserve", 7, BUDGET, 7 * 60_000 + 5))
    assert [int(x) for x in reply] == [1, 11, 1, 0, 0]
    h = {k.decode(): int(v) for k, v in node.hgetall(key).items()}
    assert h == {"t:7": 12, "r:7": 2, **health}
    assert 0 < node.pttl(key) <= 3 * 60_000
    node.delete(key)


def test_a_live_pause_or_open_circuit_keeps_the_key_past_three_windows(node, sha):
    window, now = 1000, 7 * 1000 + 5
    key = store_key("health-ttl", window)
    node.delete(key)
    base = script_argv("record", 7, dict(BUDGET, window_ms=window), now)
    node.evalsha(sha, 1, key, *base + ["success", "0", "0"] + CIRCUIT_ARGS)
    assert 0 < node.pttl(key) <= 3 * window  # nothing live: three windows, as in format 2
    node.evalsha(sha, 1, key, *base + ["failure", str(now + 600_000), "0"] + CIRCUIT_ARGS)
    assert 600_000 < node.pttl(key) <= 600_000 + 3 * window, "the key would expire before its pause ends"
    node.delete(key)
    node.hset(key, mapping={"t:7": 1, "opened_at_ms": now, "cooldown_ms": 120_000})
    node.evalsha(sha, 1, key, *base + ["failure", "0", "1"] + CIRCUIT_ARGS)  # a failed probe: cooldown 240 s -> cap
    assert int(node.hget(key, "cooldown_ms")) == 120_000
    assert 120_000 < node.pttl(key) <= 120_000 + 3 * window, "the key would expire before the cooldown ends"
    node.delete(key)


BAD = [
    (8, "bogus", "outcome"), (9, "-1", "pause_until_ms"), (9, "1.5", "pause_until_ms"), (9, str(2**53), "pause_until_ms"),
    (10, "yes", "probe"), (11, "2", "circuit"), (12, "0", "failure_ratio"), (12, "1.5", "failure_ratio"),
    (12, "nan", "failure_ratio"), (12, "inf", "failure_ratio"), (13, "0", "min_sample"), (14, "0", "cooldown_ms"),
    (14, "86400001", "cooldown_ms"), (15, "4999", "cooldown_max_ms"), (16, "101", "probes"),
    (17, "0", "probe_interval_ms"), (17, "x", "probe_interval_ms"),
]


@pytest.mark.parametrize("index,value,needle", BAD, ids=[f"ARGV[{i + 1}]={v}" for i, v, _ in BAD])
def test_a_bad_health_argument_is_an_error_reply_naming_it_that_writes_nothing(node, sha, index, value, needle):
    import redis

    key = store_key("health-bad", 60_000)
    node.delete(key)
    args = script_argv("record", 7, BUDGET, 7 * 60_000) + ["failure", "0", "0"] + CIRCUIT_ARGS
    assert int(node.evalsha(sha, 1, key, *args)[1]) == 1  # the good call counts
    node.delete(key)
    args[index] = value
    with pytest.raises(redis.exceptions.ResponseError, match=needle):
        node.evalsha(sha, 1, key, *args)
    assert node.exists(key) == 0


def test_wrong_arity_new_ops_without_health_and_a_probe_with_an_outcome_are_error_replies(node, sha):
    import redis

    key = store_key("health-bad-shape", 60_000)
    node.delete(key)
    base = script_argv("record", 7, BUDGET, 7 * 60_000)
    cases = [
        (base + ["failure"], "18 arguments"),
        (base + ["failure", "0", "0"] + CIRCUIT_ARGS + ["extra"], "18 arguments"),
        (["report"] + base[1:], "unknown op"),  # report and probe exist only in health calls
        (["probe"] + base[1:], "unknown op"),
        (["probe"] + base[1:] + ["failure", "0", "0"] + CIRCUIT_ARGS, "probe call follows no attempt"),
        (["probe"] + base[1:] + ["none", "5", "0"] + CIRCUIT_ARGS, "probe call follows no attempt"),
        (["probe"] + base[1:] + ["none", "0", "1"] + CIRCUIT_ARGS, "probe call follows no attempt"),
        (["drop"] + base[1:] + ["none", "0", "0"] + CIRCUIT_ARGS, "unknown op"),
    ]
    for args, needle in cases:
        with pytest.raises(redis.exceptions.ResponseError, match=needle):
            node.evalsha(sha, 1, key, *args)
    assert node.exists(key) == 0


# ---------------------------------------------------------------- broken copies

MUTANTS = {
    "opens above the ratio only": ("est_failures / est_total >= c.failure_ratio", "est_failures / est_total > c.failure_ratio"),
    "cooldown not doubled": ("math.min(2 * h.cooldown_ms, c.cooldown_max)", "math.min(h.cooldown_ms, c.cooldown_max)"),
    "no cooldown cap": ("math.min(2 * h.cooldown_ms, c.cooldown_max)", "2 * h.cooldown_ms"),
    "probe window never resets": ("if pw > h.probe_window then", "if false then"),
    "a pause can shrink": ("if hp.pause_until > h.paused_until_ms then", "if hp.pause_until ~= 0 then"),
    "previous failures unweighted": ("+ fail_prev * w", "+ fail_prev"),
    "failures kept on close": ("if redis.call('HDEL', key, f) == 1 then wrote = true end", "wrote = true"),
    "stale failure buckets kept": ("if not b or b < newest_f - 1 then", "if not b then"),
    "probe granted during the cooldown": ("now >= h.opened_at_ms + h.cooldown_ms", "now >= h.opened_at_ms"),
    "every failed probe doubles the cooldown": ("and now - h.opened_at_ms >= h.cooldown_ms then", "then"),
    "probes in flight not limited (draft 7)": ("and h.probes_in_flight < c.probes then", "then"),
    "a probe's report keeps its slot (draft 7)": ("h.probes_in_flight = math.max(0, h.probes_in_flight - 1)",
                                                   "h.probes_in_flight = h.probes_in_flight"),
    "open judged on the counts before the op": ("local est_total = get('t:' .. dec(bucket))",
                                                "local est_total = reply[2]"),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_a_deliberately_broken_copy_of_the_script_fails_the_vectors_or_the_model(node, mutant):
    old, new = MUTANTS[mutant]
    assert SCRIPT.count(old) == 1, f"mutant {mutant!r}: {old!r} is not in fleet/budget.lua once"
    sha = node.script_load(SCRIPT.replace(old, new))
    failing = [c["name"] for i, c in enumerate(CASES) if run_case(node, sha, c, i)]
    seqs = random_sequences_disagreements(node, sha) if not failing else []
    print(f"mutant {mutant!r}: {len(failing)} of {len(CASES)} vector cases fail, {len(seqs)} random sequences")
    assert failing or seqs, f"a broken copy of budget.lua ({mutant}) passed every check: the test cannot tell"
