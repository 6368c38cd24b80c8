"""fleet/budget.lua decides exactly as the component, on standalone Redis and
on a local three-master Redis Cluster.

Every `budget` case of tests/vectors, every budget-gated `decide` case and
every format-2 `settle` case whose store answered (`reply` = {reserved,
counts}) is run through the script: the hash is seeded so that the counts
the script judges are the case's counts (for `record_reserve` one less
current total, since the script records first), the op `evaluate` would send
is run (`record_reserve` for attempt 1, else `reserve`), and

  (a) the counts the script returns are the case's counts;
  (b) `reserved` is the policy's rule on those counts. For a settle case the
      rule is read off its expectation: with `budget_disagreement` false and
      gates 1-5 passed, the case's `reserved` is the rule (a retry iff
      reserved); with `budget_disagreement` true it is the opposite. A settle
      case whose gates fired says nothing about the rule: there the Python
      port of the rule (itself checked against every case that does) judges.
  (c) the hash afterwards holds the seeded counts plus exactly what was
      counted, a stale bucket is gone, and the key expires in 3 windows.

Mutated copies of the script (a changed comparison, order, or op) must each
fail some case: the test can tell a broken script from a good one.
"""

from __future__ import annotations

import glob
import json
import time
from pathlib import Path

import pytest

import fleetlib
from fleetlib import ROOT, allows_retry, script_argv, store_key

SCRIPT = (ROOT / "fleet" / "budget.lua").read_text()
TWO53 = 2**53


def _case_rule_from_settle(exp: dict, reply: dict):
    """The rule's verdict as a settle expectation implies it, or None."""
    d = exp["decision"]
    gates_passed = d["stop_reason"] is None or d["stop_reason"] == "retry_budget_exhausted"
    if exp["budget_disagreement"]:
        return not reply["reserved"]
    if gates_passed:
        return reply["reserved"]
    return None


def collect_cases() -> list[dict]:
    cases = []
    for path in sorted(glob.glob(str(ROOT / "tests" / "vectors" / "*.json"))):
        fname = Path(path).name
        doc = json.loads(Path(path).read_text())
        if doc.get("format") == "webhook-retry-policy/health-vectors 1":
            continue  # format 3's store rule: test_lua_health.py
        if doc.get("format") == "webhook-retry-policy/engine-trace 1":
            continue  # the delivery engine's traces: no store rule of their own
        for case in doc["cases"]:
            exp, inp, op = case["expect"], case["input"], case["op"]
            if "error" in exp:
                continue
            c = None
            if op == "budget":
                c = dict(budget=inp["budget"], now_ms=inp["now_ms"], current=inp["current"],
                         previous=inp["previous"], rule=exp["allows_retry"], rule_from="vector",
                         attempt=None, endpoint_id=None)
            elif op == "decide" and inp["budget_counts"] is not None and exp["stop_reason"] in (None, "retry_budget_exhausted"):
                cnt = inp["budget_counts"]
                c = dict(budget=inp["policy"]["budget"], now_ms=inp["now_ms"], current=cnt["current"],
                         previous=cnt["previous"], rule=exp["stop_reason"] is None, rule_from="vector",
                         attempt=inp["state"]["attempt"], endpoint_id=inp["state"]["endpoint_id"])
            elif op == "settle" and "reserved" in inp["reply"]:
                reply = inp["reply"]
                rule = _case_rule_from_settle(exp, reply)
                c = dict(budget=inp["policy"]["budget"], now_ms=inp["now_ms"], current=reply["counts"]["current"],
                         previous=reply["counts"]["previous"], rule=rule,
                         rule_from="vector" if rule is not None else "python-rule",
                         attempt=inp["state"]["attempt"], endpoint_id=inp["state"]["endpoint_id"],
                         case_reserved=reply["reserved"], disagreement=exp["budget_disagreement"])
            if c is None:
                continue
            if c["rule"] is None:
                c["rule"] = allows_retry(c["budget"], c["now_ms"], c["current"], c["previous"])
            # The op evaluate would send: record_reserve for a first attempt,
            # else reserve. Counts with no current attempt cannot come from a
            # record_reserve (it counts one first): those are judged by reserve.
            opname = "record_reserve" if c["attempt"] == 1 else "reserve"
            if opname == "record_reserve" and c["current"]["total"] == 0:
                opname = "reserve"
            c.update(file=fname, name=case["name"], op=opname, vop=op)
            cases.append(c)
            if op == "budget" and c["current"]["total"] >= 1:
                cases.append(dict(c, op="record_reserve"))  # the same counts reached by the other op
    for i, c in enumerate(cases):
        c["idx"] = i
    return cases


CASES = collect_cases()


def case_id(c: dict) -> str:
    return f"{c['file']}:{c['name']}:{c['op']}"


# ---------------------------------------------------------------- stores

class Store:
    """Where the script runs: one standalone Redis, or the cluster node that
    owns each key's slot."""

    def __init__(self, name: str, node_for) -> None:
        self.name = name
        self.node_for = node_for
        self.shas: dict[str, str] = {}

    def eval(self, script: str, key: str, argv: list[str]):
        import redis

        node = self.node_for(key)
        sha = self.shas.get(script)
        if sha is None:
            sha = self.shas[script] = node.script_load(script)
        try:
            return node.evalsha(sha, 1, key, *argv)
        except redis.exceptions.NoScriptError:
            node.script_load(script)  # this node has not seen it yet; nothing ran
            return node.evalsha(sha, 1, key, *argv)


@pytest.fixture(scope="module")
def cluster():
    with fleetlib.RedisCluster() as c:
        yield c


@pytest.fixture(scope="module", params=["standalone", "cluster"])
def store(request, redis_server):
    if request.param == "standalone":
        c = redis_server.client()
        yield Store("standalone", lambda key: c)
    else:
        cl = request.getfixturevalue("cluster")
        yield Store("cluster", cl.node_for)


# ---------------------------------------------------------------- one case

def seed_and_run(store: Store, script: str, c: dict) -> list[str]:
    """Run case `c` through `script`; the problems found ([] = agrees)."""
    budget, now = c["budget"], c["now_ms"]
    window = budget["window_ms"]
    bucket = now // window
    if bucket == 0 and (c["previous"]["total"] or c["previous"]["retries"]):
        # Bucket 0 has no previous bucket in a real store. The rule reads only
        # now % window: the same judgement one window later.
        if now + window >= TWO53:
            return []
        now += window
        bucket = 1
    eid = c["endpoint_id"] if c["endpoint_id"] is not None else f"vec-{c['idx']}"
    eid = f"{eid}#{c['idx']}"  # one key per case (spreads the cases over the cluster's slots)
    key = store_key(eid, window)
    node = store.node_for(key)
    node.delete(key)
    seeded_total = c["current"]["total"] - (1 if c["op"] == "record_reserve" else 0)
    fields = {f"t:{bucket}": seeded_total, f"r:{bucket}": c["current"]["retries"]}
    if bucket >= 1:
        fields.update({f"t:{bucket - 1}": c["previous"]["total"], f"r:{bucket - 1}": c["previous"]["retries"]})
    if bucket >= 2:
        fields.update({f"t:{bucket - 2}": 999, f"r:{bucket - 2}": 99})  # stale: must go, must not count
    node.hset(key, mapping=fields)
    try:
        reply = store.eval(script, key, script_argv(c["op"], bucket, budget, now))
    except Exception as e:  # an error reply is a disagreement too
        return [f"error reply {e}"]
    problems = []
    reserved, ct, cr, pt, pr = [int(x) for x in reply]
    want = [c["current"]["total"], c["current"]["retries"], c["previous"]["total"], c["previous"]["retries"]]
    if [ct, cr, pt, pr] != want:
        problems.append(f"(a) judged counts {[ct, cr, pt, pr]} != the case's {want}")
    if reserved != int(c["rule"]):
        problems.append(f"(b) reserved={reserved} but the rule ({c['rule_from']}) says {c['rule']}")
    h = {k.decode(): int(v) for k, v in node.hgetall(key).items()}
    want_h = {f"t:{bucket}": c["current"]["total"] + reserved, f"r:{bucket}": c["current"]["retries"] + reserved}
    if bucket >= 1:
        want_h.update({f"t:{bucket - 1}": c["previous"]["total"], f"r:{bucket - 1}": c["previous"]["retries"]})
    if h != want_h:
        problems.append(f"(c) hash after the call {h} != {want_h}")
    ttl = node.pttl(key)
    wrote = reserved or c["op"] == "record_reserve" or bucket >= 2  # counted, or dropped the stale bucket
    if wrote and not (0 < ttl <= 3 * window):
        problems.append(f"(c) PTTL {ttl} after a write, not in (0, 3 * window_ms = {3 * window}]")
    node.delete(key)
    return problems


# ---------------------------------------------------------------- tests

def test_the_vectors_hold_cases_to_check():
    kinds = {(c["vop"], c["op"]) for c in CASES}
    print(f"lua agreement: {len(CASES)} cases: "
          + ", ".join(f"{v}/{o} {sum(1 for c in CASES if (c['vop'], c['op']) == (v, o))}" for v, o in sorted(kinds)))
    assert len(CASES) >= 150, f"only {len(CASES)} cases found in tests/vectors"
    assert {c["rule"] for c in CASES} == {True, False}, "need both allowed and refused cases"
    assert any(c["vop"] == "settle" for c in CASES) and any(c["op"] == "record_reserve" for c in CASES)
    assert any(c["vop"] == "settle" and c["disagreement"] for c in CASES), "need settle cases with a disagreement"


def test_the_python_rule_agrees_with_every_vector_that_states_the_rule():
    checked = [c for c in CASES if c["rule_from"] == "vector"]
    bad = [case_id(c) for c in checked if allows_retry(c["budget"], c["now_ms"], c["current"], c["previous"]) != c["rule"]]
    assert not bad, bad
    assert len(checked) > 100


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_the_script_reserves_exactly_when_the_policy_allows_a_retry(store, case):
    problems = seed_and_run(store, SCRIPT, case)
    assert not problems, f"{store.name}: {case_id(case)}: " + "; ".join(problems)


def test_record_counts_exactly_one_attempt_and_replies_the_counts_after_it(store):
    n = 0
    for c in CASES:
        if c["vop"] != "budget" or c["op"] != "reserve":
            continue
        budget, now = c["budget"], c["now_ms"]
        window = budget["window_ms"]
        bucket = max(now // window, 1)
        key = store_key(f"record-{c['idx']}", window)
        node = store.node_for(key)
        node.delete(key)
        node.hset(key, mapping={f"t:{bucket}": c["current"]["total"], f"r:{bucket}": c["current"]["retries"],
                                f"t:{bucket - 1}": c["previous"]["total"], f"r:{bucket - 1}": c["previous"]["retries"]})
        reply = [int(x) for x in store.eval(SCRIPT, key, script_argv("record", bucket, budget, now))]
        assert reply == [0, c["current"]["total"] + 1, c["current"]["retries"], c["previous"]["total"],
                         c["previous"]["retries"]], (case_id(c), reply)
        assert int(node.hget(key, f"t:{bucket}")) == c["current"]["total"] + 1
        assert int(node.hget(key, f"r:{bucket}")) == c["current"]["retries"]
        node.delete(key)
        n += 1
    assert n >= 50


def test_buckets_roll_forward_keep_two_and_a_late_caller_counts_nothing(store):
    budget = {"ratio": 0.5, "window_ms": 1000, "min_sample": 100, "sliding": True}
    key = store_key("roll", 1000)
    node = store.node_for(key)
    node.delete(key)

    def call(op, bucket):
        return [int(x) for x in store.eval(SCRIPT, key, script_argv(op, bucket, budget, bucket * 1000 + 500))]

    assert call("record", 10) == [0, 1, 0, 0, 0]
    assert call("record_reserve", 10) == [1, 2, 0, 0, 0]  # floor: allowed; counted 2 attempts + 1 retry
    assert call("reserve", 11) == [1, 0, 0, 3, 1]  # the previous bucket is read
    assert sorted(node.hkeys(key)) == [b"r:10", b"r:11", b"t:10", b"t:11"]
    assert call("record", 13) == [0, 1, 0, 0, 0]  # 11 is two back: gone with 10
    assert sorted(node.hkeys(key)) == [b"t:13"]
    # A caller one bucket behind the newest counts into its own bucket and
    # sees no previous one (it was dropped); further behind: zeros, nothing counted.
    assert call("record", 12) == [0, 1, 0, 0, 0]
    assert call("record", 11) == [0, 0, 0, 0, 0]
    assert {k.decode(): int(v) for k, v in node.hgetall(key).items()} == {"t:13": 1, "t:12": 1}
    # bucket 0 has no previous bucket
    node.delete(key)
    assert call("record", 0) == [0, 1, 0, 0, 0]
    node.delete(key)


def test_unknown_op_bad_arguments_and_clock_skew_are_error_replies_that_write_nothing(store):
    import redis

    budget = {"ratio": 0.1, "window_ms": 10_000, "min_sample": 5, "sliding": True}
    key = store_key("errors", 10_000)
    node = store.node_for(key)
    node.delete(key)
    for argv, needle in [
        (["bogus"] + script_argv("record", 1, budget, 10_000)[1:], "unknown op"),
        (script_argv("record", 1, dict(budget, window_ms=0), 10_000), "window_ms"),
        (["reserve", "x"] + script_argv("reserve", 1, budget, 10_000)[2:], "bucket"),
    ]:
        with pytest.raises(redis.exceptions.ResponseError, match=needle):
            store.eval(SCRIPT, key, argv)
    now = int(time.time() * 1000)
    bucket = now // 10_000
    # Skew check on: the caller's now_ms 3 s (> window/4 = 2.5 s) from Redis TIME.
    with pytest.raises(redis.exceptions.ResponseError, match="clock skew"):
        store.eval(SCRIPT, key, script_argv("record_reserve", bucket, budget, now - 3000, skew_check=True))
    with pytest.raises(redis.exceptions.ResponseError, match="clock skew"):
        store.eval(SCRIPT, key, script_argv("reserve", bucket, budget, now + 3000, skew_check=True))
    assert node.exists(key) == 0, "an error reply must write nothing"
    # Within a quarter window: fine.
    r = store.eval(SCRIPT, key, script_argv("record_reserve", bucket, budget, now + 1000, skew_check=True))
    assert [int(x) for x in r] == [1, 1, 0, 0, 0]
    node.delete(key)


ODD_IDS = ["{", "}", "", "{}", "}{", "a" * 1024, "é", "日本語", "e", "e7b", "{e}", "a}b{c", "\x00", " ", "ep_42"]


def test_endpoint_ids_of_any_content_get_their_own_key_in_one_slot(store):
    keys = [store_key(i, 60_000) for i in ODD_IDS]
    assert len(set(keys)) == len(keys), "two endpoint ids share a key"
    budget = {"ratio": 0.1, "window_ms": 60_000, "min_sample": 5, "sliding": True}
    for k in keys:
        store.node_for(k).delete(k)
    for n, (eid, key) in enumerate(zip(ODD_IDS, keys)):
        for _ in range(n + 1):  # id number n gets n+1 attempts
            store.eval(SCRIPT, key, script_argv("record", 7, budget, 7 * 60_000))
    for n, (eid, key) in enumerate(zip(ODD_IDS, keys)):
        assert int(store.node_for(key).hget(key, "t:7")) == n + 1, f"endpoint id {eid!r}: counts collided"
        store.node_for(key).delete(key)


def test_the_store_key_is_policy_cores_and_the_python_hosts():
    # policy-core store_key: rb:{e<lowercase hex>}:<window_ms>
    assert store_key("ep_42", 60000) == "rb:{e65705f3432}:60000"
    assert store_key("", 1) == "rb:{e}:1"
    assert store_key("}", 5) == "rb:{e7d}:5"
    # ... and what the component answers through the Python host (store-key),
    # with the Python host's ARGV for the script.
    ops, g = _component()
    from webhook_retry_policy.redis_store import script_args

    import webhook_retry_policy as wrp

    budget = g.Budget(ratio=0.1, window_ms=60_000, min_sample=50, sliding=True)
    for eid in ODD_IDS:
        if hasattr(wrp, "store_key"):  # the package's module-level helper
            assert wrp.store_key(eid, 60_000) == store_key(eid, 60_000), eid
        req = g.StoreRequest(g.StoreOp.RECORD_RESERVE, eid, 60_000, 28333333)
        assert ops.store_key(req) == store_key(eid, 60_000), eid
        assert script_args(req, budget, 1_700_000_000_080, True) == script_argv(
            "record_reserve", 28333333, {"ratio": 0.1, "window_ms": 60_000, "min_sample": 50, "sliding": True},
            1_700_000_000_080, skew_check=True)


def test_on_the_cluster_each_key_lives_in_its_hash_tag_slot_and_only_its_owner_answers(cluster):
    import redis

    budget = {"ratio": 0.1, "window_ms": 60_000, "min_sample": 5, "sliding": True}
    owners = set()
    for eid in ODD_IDS:
        key = store_key(eid, 60_000)
        tag = "e" + eid.encode().hex()
        assert cluster.keyslot(key) == cluster.keyslot(tag), f"{eid!r}: the hash tag is not the slot"
        owner = cluster.port_for(key)
        owners.add(owner)
        node = cluster.client(owner)
        sha = node.script_load(SCRIPT)
        assert [int(x) for x in node.evalsha(sha, 1, key, *script_argv("record", 3, budget, 3 * 60_000))][:2] == [0, 1]
        other = next(p for p in cluster.ports if p != owner)
        cluster.client(other).script_load(SCRIPT)
        with pytest.raises(redis.exceptions.MovedError):  # MOVED <slot> <owner>
            cluster.client(other).evalsha(sha, 1, key, *script_argv("record", 3, budget, 3 * 60_000))
        node.delete(key)
    assert len(owners) >= 2, "the odd ids all landed on one master: the cluster routing was not exercised"


# ---------------------------------------------------------------- broken copies

MUTANTS = {
    "ratio comparison < instead of <=": ("(est_retries + 1.0) <= ratio", "(est_retries + 1.0) < ratio"),
    "sample floor <= instead of <": ("if est_total < min_sample then", "if est_total <= min_sample then"),
    "another order: ratio * est_total + ratio": ("ratio * (est_total + 1.0)", "ratio * est_total + ratio"),
    "no sliding weight": ("  if sliding then\n", "  if false then\n"),
    "record_reserve does not record": ("if op == 'record' or op == 'record_reserve' then count(false) end",
                                       "if op == 'record' then count(false) end"),
    "counts before the record": ("local ct, cr = get(cur_t), get(cur_r)\n",
                                 "local ct, cr = get(cur_t), get(cur_r)\nif op == 'record_reserve' then ct = ct - 1 end\n"),
    "reservation not counted": ("    count(true)\n", "    \n"),
    "stale buckets kept": ("if not b or b < newest - 1 then", "if not b or b < newest - 3 then"),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_a_deliberately_broken_copy_of_the_script_fails_the_agreement_check(redis_server, mutant):
    old, new = MUTANTS[mutant]
    assert SCRIPT.count(old) == 1, f"mutant {mutant!r}: {old!r} is not in fleet/budget.lua once"
    broken = SCRIPT.replace(old, new)
    c = redis_server.client()
    store = Store("standalone", lambda key: c)
    failing = [case_id(x) for x in CASES if seed_and_run(store, broken, x)]
    print(f"mutant {mutant!r}: {len(failing)} of {len(CASES)} cases fail")
    assert failing, f"a broken copy of budget.lua ({mutant}) passed every case: the test cannot tell"


# ---------------------------------------------------------------- the component's store rule

def _component():
    try:
        from webhook_retry_policy import types as t  # noqa: F401
        from webhook_retry_policy.ops import PolicyOps
        from webhook_retry_policy._generated import types as g
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"the Python host (webhook_retry_policy with PolicyOps.store_apply) is not importable: {e}")
    return PolicyOps(), g


def test_random_call_sequences_agree_with_the_components_store_apply(store):
    """Random sequences of the three ops over neighbouring, later and late
    buckets (late callers included), budgets with and without sliding and a
    zero sample floor: every reply and what is held afterwards equal the
    component's in-memory rule (`store-apply`, through the Python host)."""
    import random

    ops, g = _component()
    rnd = random.Random(10)
    n = 0
    for seq in range(60):
        # Windows >= 1 s: the key's TTL (3 windows, real time) outlives the
        # sequence, which the in-memory rule has no notion of.
        window = rnd.choice([1000, 7001, 60_000])
        budget = g.Budget(ratio=rnd.choice([0.1, 0.5, 1.0, 0.3333333333333333]), window_ms=window,
                          min_sample=rnd.choice([0, 1, 3, 10]), sliding=rnd.random() < 0.7)
        bd = {"ratio": budget.ratio, "window_ms": window, "min_sample": budget.min_sample, "sliding": budget.sliding}
        eid = f"seq-{seq}"
        key = store_key(eid, window)
        node = store.node_for(key)
        node.delete(key)
        held = g.HeldBuckets(0, g.BucketCounts(0, 0), g.BucketCounts(0, 0))
        bucket = rnd.randint(0, 5)
        for step in range(40):
            bucket = max(0, bucket + rnd.choice([0, 0, 0, 1, 1, 2, -1, -2, -3]))
            now = bucket * window + rnd.randrange(window)
            op = rnd.choice(["record", "reserve", "record_reserve"])
            req = g.StoreRequest(g.StoreOp(op), eid, window, bucket)
            applied = ops.store_apply(req, budget, now, held)
            held = applied.held
            want = [int(applied.reply.reserved), applied.reply.counts.current.total, applied.reply.counts.current.retries,
                    applied.reply.counts.previous.total, applied.reply.counts.previous.retries]
            got = [int(x) for x in store.eval(SCRIPT, key, script_argv(op, bucket, bd, now))]
            assert got == want, f"seq {seq} step {step}: {op} bucket {bucket} now {now} {bd}: lua {got} != component {want}"
            h = {k.decode(): int(v) for k, v in node.hgetall(key).items()}
            view = lambda b: (h.get(f"t:{b}", 0), h.get(f"r:{b}", 0))  # noqa: E731
            cur = (held.current.total, held.current.retries)
            prev = (held.previous.total, held.previous.retries)
            assert view(held.bucket) == cur and (held.bucket == 0 or view(held.bucket - 1) == prev), \
                f"seq {seq} step {step}: held {held} vs hash {h}"
            assert all(int(f.split(":")[1]) >= held.bucket - 1 for f in h), f"stale fields kept: {h} (held {held.bucket})"
            n += 1
        node.delete(key)
    assert n == 2400
