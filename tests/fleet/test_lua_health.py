"""fleet/budget.lua answers format-3 health calls (docs/health.md sections
2-3) exactly as the vectors say, on a real redis-server.

Every case of tests/vectors-health/format3-store.json (made by the
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
VECTORS = ROOT / "tests" / "vectors-health" / "format3-store.json"
HEALTH_FIELDS = ("paused_until_ms", "opened_at_ms", "cooldown_ms", "probe_window", "probes_granted", "closed_at_ms")

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
