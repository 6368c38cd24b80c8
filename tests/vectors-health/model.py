"""An independent model of docs/health.md (format 3), written from the text
for tests/vectors-health/generate.py: sections 1-3 here (the section, the
hash, the store), sections 4-5 in model_send.py (pacer, gate, settle). It shares no code with policy-core's
`health` module: the Rust runner (policy-core/tests/health_vectors.rs)
checks the crate against what this model computes, and generate.py checks
the key cases against hand-computed values first.

Doubles are Python floats (IEEE 754 binary64), used in the spec's order.
"""

from __future__ import annotations

import copy
import math
import struct
from typing import Any

U64 = 2**64 - 1
DAY_MS = 86_400_000


def sat_add(a: int, b: int) -> int:
    return min(a + b, U64)


class Refused(Exception):
    def __init__(self, code: str, field: str) -> None:
        super().__init__(f"{code} at {field}")
        self.code, self.field = code, field

    def within(self, outer: str) -> "Refused":
        self.field = outer if not self.field else f"{outer}.{self.field}"
        return self


# ---- section 1: the health section ---------------------------------------------------------------

def _obj(v: Any, allowed: list[str], nulls_ok: tuple[str, ...] = ()) -> dict[str, Any]:
    if isinstance(v, dict):
        for k, x in v.items():
            if x is None and k not in nulls_ok:
                raise Refused("invalid_document", k)
    if not isinstance(v, dict):
        raise Refused("invalid_document", "")
    for k in v:
        if k not in allowed:
            raise Refused("invalid_document", k)
    return v


def _u64(v: dict[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    # draft 4: a defaulted value is range-checked too (cooldown_max_ms against a written cooldown_ms).
    x = v.get(key, default)
    ok = (isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= U64) or (
        isinstance(x, float) and x.is_integer() and 0 <= x < 2**53)
    if not ok:
        raise Refused("invalid_document", key)
    n = int(x)
    if not lo <= n <= hi:
        raise Refused("invalid_document", key)
    return n


def _f64(v: dict[str, Any], key: str, default: float, hi: float) -> float:
    if key not in v:
        return default
    x = v[key]
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise Refused("invalid_document", key)
    x = float(x)
    if not (x > 0.0 and x <= hi):
        raise Refused("invalid_document", key)
    return x


def parse_section(v: Any) -> dict[str, Any]:
    """The section with every default filled in (the codec's output shape)."""
    s = _obj(v, ["hold_budget_refusals", "pause", "circuit", "release", "cache_ms"], ("circuit",))
    hold = s.get("hold_budget_refusals", True)
    if not isinstance(hold, bool):
        raise Refused("invalid_document", "hold_budget_refusals")
    pause = {"max_ms": 600000}
    if "pause" in s:
        try:
            p = _obj(s["pause"], ["max_ms"])
            pause = {"max_ms": _u64(p, "max_ms", 600000, 0, DAY_MS)}
        except Refused as e:
            raise e.within("pause")
    circuit: Any = {"failure_ratio": 0.5, "min_sample": 20, "cooldown_ms": 5000, "cooldown_max_ms": 120000,
                    "probes": 1, "probe_interval_ms": 1000}
    if "circuit" in s:
        if s["circuit"] is None:
            circuit = None
        else:
            try:
                c = _obj(s["circuit"], list(circuit))
                ratio = _f64(c, "failure_ratio", 0.5, 1.0)
                min_sample = _u64(c, "min_sample", 20, 1, U64)
                cooldown = _u64(c, "cooldown_ms", 5000, 1, DAY_MS)
                circuit = {"failure_ratio": ratio, "min_sample": min_sample, "cooldown_ms": cooldown,
                           "cooldown_max_ms": _u64(c, "cooldown_max_ms", 120000, cooldown, DAY_MS),
                           "probes": _u64(c, "probes", 1, 1, 100),
                           "probe_interval_ms": _u64(c, "probe_interval_ms", 1000, 1, 3_600_000)}
            except Refused as e:
                raise e.within("circuit")
    release = {"multiple": 3.0, "floor_per_s": 1.0}
    if "release" in s:
        try:
            r = _obj(s["release"], ["multiple", "floor_per_s"])
            release = {"multiple": _f64(r, "multiple", 3.0, 100.0), "floor_per_s": _f64(r, "floor_per_s", 1.0, 10000.0)}
        except Refused as e:
            raise e.within("release")
    cache = _u64(s, "cache_ms", 1000, 1, 60000)
    return {"hold_budget_refusals": hold, "pause": pause, "circuit": circuit, "release": release, "cache_ms": cache}


def bits(x: float) -> int:
    return int(struct.unpack("<Q", struct.pack("<d", x))[0])


def hash_words(h: dict[str, Any]) -> list[int]:
    w = [1, int(h["hold_budget_refusals"]), h["pause"]["max_ms"]]
    c = h["circuit"]
    if c is None:
        w.append(0)
    else:
        w += [1, bits(c["failure_ratio"]), c["min_sample"], c["cooldown_ms"], c["cooldown_max_ms"], c["probes"],
              c["probe_interval_ms"]]
    return w + [bits(h["release"]["multiple"]), bits(h["release"]["floor_per_s"]), h["cache_ms"]]


def fnv(h: int, words: list[int]) -> int:
    for word in words:
        for b in struct.pack("<Q", word):
            h = ((h ^ b) * 0x100000001B3) & U64
    return h


JITTER = {"none": 0, "full": 1, "equal": 2}


def policy_of_class(c: dict[str, Any]) -> dict[str, Any]:
    """A format-2 class with the document's defaults (valid input assumed)."""
    b = {"ratio": 0.1, "window_ms": 60000, "min_sample": 50, "sliding": True, **c.get("budget", {})}
    bo = {"jitter": "full", **c["backoff"]}
    return {"window_ms": c["window_ms"], "hard_cap": c.get("hard_cap", 16), "backoff": bo, "budget": b}


def policy_hash(p: dict[str, Any], health: dict[str, Any] | None) -> str:
    bo, b = p["backoff"], p["budget"]
    words = [bo["base_ms"], bits(float(bo["factor"])), bo["cap_ms"], JITTER[bo["jitter"]], p["window_ms"],
             p["hard_cap"], bits(float(b["ratio"])), b["window_ms"], b["min_sample"], int(b["sliding"])]
    h = fnv(0xCBF29CE484222325, words)
    if health is not None:
        h = fnv(h, hash_words(health))
    return f"{h:016x}"


def parse_document(doc: dict[str, Any]) -> dict[str, Any]:
    """Format-2 parts assumed valid (generate.py hand-writes those errors)."""
    default = None
    if doc.get("health") is not None:
        try:
            default = parse_section(doc["health"])
        except Refused as e:
            raise e.within("health")
    out = []
    for name, c in doc["classes"].items():
        if "health" not in c:
            h = default
        elif c["health"] is None:
            h = None
        else:
            try:
                h = parse_section(c["health"])
            except Refused as e:
                raise e.within(f"classes.{name}.health")
        p = policy_of_class({k: v for k, v in c.items() if k != "health"})
        out.append({"name": name, "health": h, "hash_words": None if h is None else [f"{w:016x}" for w in hash_words(h)],
                    "policy_hash": policy_hash(p, h)})
    return {"classes": out}


# ---- sections 2-3: the store ------------------------------------------------------------------------

def weight(budget: dict[str, Any], now: int) -> float:
    wm = budget["window_ms"]
    return (wm - now % wm) / wm if budget["sliding"] else 0.0


def _get(held: dict[str, Any], b: int, zero: Any) -> Any:
    if b == held["bucket"]:
        return copy.deepcopy(held["current"])
    if held["bucket"] >= 1 and b == held["bucket"] - 1:
        return copy.deepcopy(held["previous"])
    return copy.deepcopy(zero)


def _view(held: dict[str, Any], bucket: int, zero: Any) -> tuple[Any, Any]:
    return _get(held, bucket, zero), (_get(held, bucket - 1, zero) if bucket >= 1 else copy.deepcopy(zero))


ZERO = {"total": 0, "retries": 0}


def allows_retry(budget: dict[str, Any], now: int, cur: dict[str, int], prev: dict[str, int]) -> bool:
    w = weight(budget, now)
    est_total = cur["total"] + prev["total"] * w
    est_retries = cur["retries"] + prev["retries"] * w
    if est_total < budget["min_sample"]:
        return True
    return est_retries + 1.0 <= budget["ratio"] * (est_total + 1.0)


def _count(held: dict[str, Any], bucket: int, retry: bool) -> None:
    if bucket == held["bucket"]:
        slot = held["current"]
    elif held["bucket"] >= 1 and bucket == held["bucket"] - 1:
        slot = held["previous"]
    else:
        return
    slot["total"] += 1
    slot["retries"] += int(retry)


def budget_op(op: str, bucket: int, budget: dict[str, Any], now: int, b: dict[str, Any]) -> tuple[Any, Any]:
    if bucket > b["bucket"]:
        cur, prev = _view(b, bucket, ZERO)
        b = {"bucket": bucket, "current": cur, "previous": prev}
    b = copy.deepcopy(b)
    if op in ("record", "record_reserve"):
        _count(b, bucket, False)
    cur, prev = _view(b, bucket, ZERO)
    counts = {"current": cur, "previous": prev}
    if op == "record":
        return {"reserved": False, "counts": counts}, b
    reserved = allows_retry(budget, now, cur, prev)
    if reserved:
        _count(b, bucket, True)
    return {"reserved": reserved, "counts": counts}, b


def store_apply(req: dict[str, Any], section: dict[str, Any], budget: dict[str, Any], now: int,
                held: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    held = copy.deepcopy(held)
    h = held["health"]
    c = section["circuit"]
    granted = None
    reservation = None
    if req["op"] == "probe":
        granted = False
        if c is not None and h["opened_at_ms"] != 0 and now >= h["opened_at_ms"] + h["cooldown_ms"]:
            window = now // c["probe_interval_ms"]
            if window > h["probe_window"]:
                h["probe_window"], h["probes_granted"] = window, 0
            # draft 7: at most `probes` granted probes in flight, until their lease lapses
            if now >= h["probe_busy_until_ms"]:
                h["probes_in_flight"] = 0
            if h["probes_granted"] < c["probes"] and h["probes_in_flight"] < c["probes"]:
                h["probes_granted"] += 1
                h["probes_in_flight"] += 1
                h["probe_busy_until_ms"] = now + max(h["cooldown_ms"], c["probe_interval_ms"])
                granted = True
    else:
        if req["op"] != "report":
            reservation, held["buckets"] = budget_op(req["op"], req["bucket"], budget, now, held["buckets"])
        h["paused_until_ms"] = max(h["paused_until_ms"], req["pause_until_ms"])
        if c is not None:
            was_open = h["opened_at_ms"] != 0
            if req["probe"]:  # draft 7: a granted probe reported
                h["probes_in_flight"] = max(0, h["probes_in_flight"] - 1)
                if h["probes_in_flight"] == 0:
                    h["probe_busy_until_ms"] = 0
            f = h["failures"]
            if req["outcome"] == "failure":
                if req["bucket"] > f["bucket"]:
                    cur, prev = _view(f, req["bucket"], 0)
                    f.update(bucket=req["bucket"], current=cur, previous=prev)
                if req["bucket"] == f["bucket"]:
                    f["current"] += 1
                elif f["bucket"] >= 1 and req["bucket"] == f["bucket"] - 1:
                    f["previous"] += 1
            # draft 6: the run of failures since the last success (a failure with a pause is not counted)
            if req["outcome"] == "failure" and req["pause_until_ms"] == 0:
                h["consecutive_failures"] += 1
            elif req["outcome"] == "success":
                h["consecutive_failures"] = 0
            if not was_open:
                cur, prev = _view(held["buckets"], req["bucket"], ZERO)
                fc, fp = _view(f, req["bucket"], 0)
                w = weight(budget, now)
                est_total = cur["total"] + prev["total"] * w
                est_failures = fc + fp * w
                run = max(1, min(math.ceil(c["min_sample"] * c["failure_ratio"]), c["min_sample"]))
                if h["consecutive_failures"] >= run or (
                        est_total >= c["min_sample"] and est_failures / est_total >= c["failure_ratio"]):
                    h["opened_at_ms"], h["cooldown_ms"] = max(now, 1), c["cooldown_ms"]
            elif req["probe"] and req["outcome"] == "success":
                h.update(opened_at_ms=0, closed_at_ms=now, cooldown_ms=0,
                         failures={"bucket": 0, "current": 0, "previous": 0})
            elif req["probe"] and req["outcome"] == "failure" and now >= h["opened_at_ms"] + h["cooldown_ms"]:
                # draft 5: only a probe of a cooldown that had ended moves it
                h["opened_at_ms"] = max(now, 1)
                h["cooldown_ms"] = min(2 * h["cooldown_ms"], c["cooldown_max_ms"])
    view = {k: h[k] for k in ("paused_until_ms", "opened_at_ms", "cooldown_ms", "closed_at_ms")}
    view["as_of_ms"] = now
    return {"reservation": reservation, "granted": granted, "view": view}, held
