"""Hypothesis at the Python boundary (issue 13).

(a) Every public operation with arbitrary values: boundary integers, bools
    where ints go, NaN/inf/-0.0/1+ulp, empty/huge/non-ASCII/NUL/lone-surrogate
    strings, wrong types, and "forged" dataclasses (fields set past the
    checked constructor). Each call returns or raises ``PolicyError`` with a
    known code; never another exception, never a ``PolicyTrap``; afterwards
    the same instance gives the known answer to a known-good call.
(b) Differential: valid vector-shape inputs of evaluate/settle/
    retry_after through the package, checked against invariants stated in
    docs/contract.md inside each example, then all examples at once against
    the native answers of ``target/release/expect`` (policy-core; skipped
    when that binary is not built).

Profiles: ``HYPOTHESIS_PROFILE=long`` for long runs (20,000 examples a test,
``FUZZ_EXAMPLES=N`` for N); the default keeps the file well under 60 s.
Memory: Hypothesis keeps the drawn values of up to 10^4 test cases (strings
strongly), so every large value is built once at import (``HUGE``) and test
(a) fails if RSS less guest memory grows by more than 64 MiB + 16 KiB an example.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import NOW_MS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import webhook_retry_policy as wrp
from webhook_retry_policy import (
    Backoff,
    BucketCounts,
    Budget,
    BudgetCounts,
    DeliveryState,
    ErrorCode,
    HttpResponse,
    InMemoryBudgetStore,
    ManualClock,
    Policy,
    PolicyError,
    PolicyTrap,
    Reservation,
    RetryPolicy,
    StoreRequest,
    TransportError,
    Unavailable,
    instance,
)
from webhook_retry_policy import conformance_json as cj
from webhook_retry_policy._generated.abi import GuestError
from webhook_retry_policy.types import HeldBuckets

_COMMON = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck))
settings.register_profile("boundary-ci", max_examples=400, **_COMMON)  # type: ignore[arg-type]
LONG_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "20000"))
settings.register_profile("long", max_examples=LONG_EXAMPLES, **_COMMON)  # type: ignore[arg-type]
PROFILE = settings.get_profile("long" if os.environ.get("HYPOTHESIS_PROFILE") == "long" else "boundary-ci")
EXPECT = Path(__file__).resolve().parents[3] / "target" / "release" / "expect"
MIB = 1 << 20


def _rss_mib() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) // 1024 for line in f if line.startswith("VmRSS:"))

# --- arbitrary values --------------------------------------------------------

INTS = st.one_of(
    st.sampled_from([0, 1, 2, 99, 100, 101, 599, 600, 2**16 - 1, 2**16, 2**32 - 1, 2**32, 2**53 - 1, 2**53,
                     2**63, 2**64 - 1, 2**64, -1, -(2**63), True, False, 86_400_000, 2_592_000_000, NOW_MS,
                     10**5000, -(10**5000)]),  # past str()'s 4300-digit limit
    st.integers(-(2**65), 2**65), st.integers(0, 10**7))
FLOATS = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 0.0, 1.0, math.nextafter(1.0, 2.0), math.nextafter(1.0, 0.0),
                     5e-324, 1.7976931348623157e308, 0.1, 2.0]), st.floats())
SPECIAL_TEXT = ["", "\x00", "\ud800", "\udfff", "a\ud800b", "é", "\U0001F600", "evt_1", " 12 ", "\t30\t", "connect_timeout",
                "Sun, 06 Nov 1994 08:49:37 GMT", "{}", '{"version":"v","classes":{}}']
# Built once: Hypothesis keeps every drawn str (Spans.span_values) in its cache of up to 10^4 test cases, so
# a fresh ``ch * n`` per draw held ~1 MiB per case for the whole run (4 GB RSS at 20,000 examples).
HUGE = st.sampled_from([ch * n for ch in ("a", "é", "\x00", "9", "{") for n in (MIB - 1, MIB, MIB + 1)])
TEXT = st.one_of(st.sampled_from(SPECIAL_TEXT), st.text(max_size=40),
                 st.text(st.characters(codec=None, categories=None, exclude_categories=()), max_size=20), HUGE)
JUNK = st.sampled_from([None, b"evt", bytearray(b"x"), [], {}, (), object(), 1.5, "x", 0, True, Ellipsis])
ANY = st.one_of(INTS, FLOATS, TEXT, JUNK)


class Refused:
    """A constructor refused its fields (with a PolicyError: checked); passed on as a wrong-typed argument."""

    def __init__(self, e: PolicyError) -> None:
        self.error = e


def _safe(cls: type, *args: Any) -> Any:
    try:
        return cls(*args)
    except PolicyError as e:
        assert isinstance(e.code, ErrorCode)
        return Refused(e)


def _forge(cls: type, values: list[Any]) -> Any:
    """An instance whose fields bypassed ``__post_init__`` (some possibly missing)."""
    o = object.__new__(cls)
    for name, v in zip(cls.__slots__, values, strict=True):  # type: ignore[attr-defined]
        if v is not Ellipsis:
            object.__setattr__(o, name, v)
    return o


def typed(cls: type, *fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    checked = st.tuples(*fields).map(lambda a: _safe(cls, *a))
    forged = st.lists(ANY, min_size=len(fields), max_size=len(fields)).map(lambda v: _forge(cls, v))
    return st.one_of(checked, checked, checked, forged, ANY)


JITTER = st.one_of(st.sampled_from(["none", "full", "equal", "FULL", ""]), ANY)
BACKOFF = typed(Backoff, INTS, FLOATS, INTS, JITTER)
BUDGET = typed(Budget, FLOATS, INTS, INTS, st.one_of(st.booleans(), ANY))
POLICY = typed(Policy, BACKOFF, INTS, INTS, BUDGET)
STATE = typed(DeliveryState, TEXT, TEXT, INTS, INTS, INTS, st.one_of(st.booleans(), ANY))
OUTCOME = st.one_of(typed(HttpResponse, INTS, st.one_of(st.none(), INTS)), typed(TransportError, TEXT))
BUCKET = typed(BucketCounts, INTS, INTS)
COUNTS = typed(BudgetCounts, BUCKET, BUCKET)
REPLY = st.one_of(st.just(Unavailable()), typed(Reservation, st.one_of(st.booleans(), ANY), COUNTS))
OP = st.one_of(st.sampled_from(["record", "reserve", "record_reserve", "RESERVE"]), ANY)
REQUEST = typed(StoreRequest, OP, TEXT, INTS, INTS)
HELD = typed(HeldBuckets, INTS, BUCKET, BUCKET)
NOW = st.one_of(INTS, st.none(), ANY)

CALLS: dict[str, st.SearchStrategy[tuple[Any, ...]]] = {
    "evaluate": st.tuples(POLICY, STATE, OUTCOME, NOW),
    "settle": st.tuples(POLICY, STATE, OUTCOME, NOW, REPLY),
    "parse_retry_after": st.tuples(TEXT, NOW),
    "store_key": st.tuples(REQUEST),
    "store_apply": st.tuples(REQUEST, BUDGET, NOW, HELD),
    "step": st.tuples(POLICY, STATE, OUTCOME, NOW),
    "decide": st.tuples(POLICY, STATE, OUTCOME),
    "plan": st.tuples(BACKOFF, INTS, INTS),
    "classify_status": st.tuples(INTS),
    "classify_error": st.tuples(TEXT),
    "load_document": st.tuples(TEXT),
    "load_document_toml": st.tuples(TEXT),
    "load_health_document": st.tuples(TEXT),
    "admit": st.tuples(st.one_of(JUNK, TEXT), TEXT, NOW),
    "module_store_key": st.tuples(TEXT, INTS),
}

GOOD_POLICY = Policy(Backoff(2000, 2.0, 300_000, "full"), 900_000, 16, Budget(0.1, 60_000, 50, True))
GOOD_STATE = DeliveryState("evt_1", "ep_42", 1, 13, NOW_MS)


def _call(rp: RetryPolicy, op: str, args: tuple[Any, ...]) -> Any:
    if op == "module_store_key":
        return wrp.store_key(*args)
    return getattr(rp, op)(*args)


def _known_good(rp: RetryPolicy) -> Any:
    return rp.evaluate(GOOD_POLICY, GOOD_STATE, HttpResponse(503), NOW_MS)


@pytest.fixture(scope="module")
def rp() -> RetryPolicy:
    return RetryPolicy(ManualClock(NOW_MS), InMemoryBudgetStore())


def test_every_operation_returns_or_raises_policy_error_and_the_instance_stays_usable(rp):
    good = _known_good(rp)
    inst = instance.current()
    seen: dict[str, int] = {}
    rss: list[int] = []  # (RSS - guest memory) at each example: Hypothesis's cache and the host's heap

    @PROFILE
    @given(st.sampled_from(sorted(CALLS)).flatmap(lambda op: st.tuples(st.just(op), CALLS[op])))
    def one(case: tuple[str, tuple[Any, ...]]) -> None:
        op, args = case
        try:
            _call(rp, op, args)
            seen[op] = seen.get(op, 0) + 1
        except PolicyTrap as e:  # a trap is a finding: fail loudly
            raise AssertionError(f"{op} trapped: {e}") from e
        except PolicyError as e:
            assert isinstance(e.code, ErrorCode) and isinstance(e.field, str) and isinstance(e.message, str)
        assert instance.current() is inst, "the instance was rebuilt (a trap happened)"
        assert _known_good(rp) == good
        rss.append(_rss_mib() - inst.memory.data_len(inst.store) // MIB)

    one()
    assert len(seen) >= 3, seen  # some calls did succeed (which ones depends on the draw)
    n, grown = len(rss), max(rss) - rss[0]
    print(f"boundary fuzz: {n} examples, RSS less guest memory {rss[0]} -> max {max(rss)} MiB "
          f"(at 1/4, 1/2, 3/4: {rss[n // 4]}, {rss[n // 2]}, {rss[3 * n // 4]})")
    # Hypothesis's own cache (10^4 cases) and tree of tried choices: ~8 KiB an example, ~1 KiB past 10^4
    assert grown < 64 + n // 64, f"memory grew by {grown} MiB over {n} examples"


@pytest.mark.parametrize("text", ["a" * (MIB + 1), "é" * (MIB // 2 + 1), "{" * MIB, "\x00" * MIB, "[" * 40 + "]" * 40])
def test_huge_and_deep_documents_are_refused_with_a_code(rp, text):
    with pytest.raises(PolicyError) as e:
        rp.load_document(text)
    assert e.value.code in (ErrorCode.DOCUMENT_TOO_LARGE, ErrorCode.INVALID_DOCUMENT)
    assert _known_good(rp).store is not None


# --- (b) valid inputs: invariants, then native answers -----------------------

U64 = 2**64 - 1
MS = st.one_of(st.sampled_from([0, 1, 999, 1000, 60_000, 900_000, 2_592_000_000, 2_592_000_001, 2**53 - 1, U64, NOW_MS,
                                NOW_MS + 1]), st.integers(0, U64), st.integers(0, 10**6))
SMALL = st.one_of(st.sampled_from([0, 1, 2, 13, 16, 99, 100, 101, 2**32 - 1]), st.integers(0, 120))
FACTOR = st.one_of(st.sampled_from([1.0, math.nextafter(1.0, 2.0), math.nextafter(1.0, 0.0), 2.0, 0.5, 1e308, -0.0, 0.0]),
                   st.floats(0.5, 10.0))
RATIO = st.one_of(st.sampled_from([0.1, 1.0, math.nextafter(1.0, 2.0), 5e-324, 0.0, -0.0, 0.5]), st.floats(0.0, 1.5))
SAFE_TEXT = st.one_of(st.sampled_from(["", "evt_1", "ep_42", "é\U0001F600", "\x00"]), st.text(max_size=30))
J_BACKOFF = st.fixed_dictionaries({"base_ms": st.one_of(MS, st.integers(0, 5000)), "factor": FACTOR,
                                   "cap_ms": st.one_of(MS, st.sampled_from([86_400_000, 86_400_001, 300_000])),
                                   "jitter": st.sampled_from(["none", "full", "equal"])})
J_BUDGET = st.fixed_dictionaries({"ratio": RATIO, "window_ms": st.one_of(MS, st.sampled_from([1, 60_000])),
                                  "min_sample": st.one_of(st.sampled_from([0, 50, U64]), st.integers(0, 100)),
                                  "sliding": st.booleans()})
J_POLICY = st.fixed_dictionaries({"backoff": J_BACKOFF, "window_ms": st.one_of(MS, st.integers(0, 10**7)),
                                  "hard_cap": SMALL, "budget": J_BUDGET})
J_STATE = st.fixed_dictionaries({"event_id": SAFE_TEXT, "endpoint_id": SAFE_TEXT, "attempt": SMALL, "max_attempts": SMALL,
                                 "first_attempted_at_ms": st.one_of(MS, st.just(NOW_MS - 1000)),
                                 "credentials_refreshed": st.booleans()})
STATUS = st.one_of(st.sampled_from([100, 200, 204, 401, 403, 408, 410, 429, 500, 503, 599, 600, 99, 0, 65535]),
                   st.integers(0, 65535))
J_OUTCOME = st.one_of(
    st.builds(lambda s, ra: {"status": s} if ra is None else {"status": s, "retry_after_ms": ra},
              STATUS, st.one_of(st.none(), MS)),
    st.builds(lambda k: {"error_kind": k}, st.one_of(st.sampled_from(["connect_timeout", "read_timeout", "invalid_url"]),
                                                     SAFE_TEXT)))
J_BUCKET = st.fixed_dictionaries({"total": st.one_of(MS, st.integers(0, 2000)), "retries": st.one_of(MS, st.integers(0, 200))})
J_COUNTS = st.fixed_dictionaries({"current": J_BUCKET, "previous": J_BUCKET})
J_REPLY = st.one_of(st.just({"unavailable": True}), st.fixed_dictionaries({"reserved": st.booleans(), "counts": J_COUNTS}))
J_NOW = st.one_of(MS, st.just(NOW_MS))


@st.composite
def imf_date(draw: st.DrawFn) -> tuple[str, int | None]:
    """An IMF-fixdate and its instant in ms (None when the day does not exist)."""
    y, mo, d = draw(st.integers(0, 9999)), draw(st.integers(1, 12)), draw(st.integers(1, 31))
    h, mi, s = draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(st.integers(0, 60))
    day = draw(st.sampled_from(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]))
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    text = f"{day}, {d:02d} {months[mo - 1]} {y:04d} {h:02d}:{mi:02d}:{s:02d} GMT"
    try:  # proleptic Gregorian day count (year 0 is a leap year: shift by 400 years)
        shift = 400 if y < 400 else 0
        days = datetime.date(y + shift, mo, d).toordinal() - datetime.date(1970 + shift, 1, 1).toordinal()
    except ValueError:
        return text, None
    return text, ((days * 24 + h) * 60 + mi) * 60 * 1000 + s * 1000


HEADER = st.one_of(
    st.builds(lambda pre, ds, post: pre + ds + post, st.sampled_from(["", " ", "\t", " \t "]),
              st.text("0123456789", min_size=1, max_size=25), st.sampled_from(["", " ", "\t"])),
    imf_date().map(lambda t: t[0]), st.sampled_from(["", "-1", "+5", "1.5", "1e3", "\u0661", "5\n", "\xa05"]),
    st.text(max_size=30))

CASES = {
    "evaluate": st.fixed_dictionaries({"policy": J_POLICY, "state": J_STATE, "outcome": J_OUTCOME, "now_ms": J_NOW}),
    "settle": st.fixed_dictionaries({"policy": J_POLICY, "state": J_STATE, "outcome": J_OUTCOME, "now_ms": J_NOW,
                                     "reply": J_REPLY}),
    "retry_after": st.fixed_dictionaries({"header": HEADER, "now_ms": J_NOW}),
}


def _answer(rp: RetryPolicy, op: str, i: dict[str, Any]) -> dict[str, Any]:
    """The package's answer in the vector shape (what the Python conformance runner reports)."""
    try:
        if op == "retry_after":
            return {"retry_after_ms": rp.parse_retry_after(i["header"], i["now_ms"])}
        p, s = cj.policy(i["policy"]), cj.state(i["state"])
        o = cj.outcome(i["outcome"])
        if op == "evaluate":
            return cj.step_to_json(rp.evaluate(p, s, o, i["now_ms"]))
        return cj.settlement_to_json(rp.settle(p, s, o, i["now_ms"], cj.reply(i["reply"])))
    except PolicyError as e:
        return {"error": e.code.value}


def _allows(budget: dict[str, Any], now_ms: int, counts: dict[str, Any]) -> bool:
    """The budget rule on ``counts`` (format 1's ``budget`` op, which ABI 1.0 runs inside the artifact)."""
    for allows in (True, False):
        case = {"name": "allows", "op": "budget", "expect": {"allows_retry": allows},
                "input": {"budget": budget, "now_ms": now_ms, "current": counts["current"], "previous": counts["previous"]}}
        try:
            instance.current().run("vector-case", "1", json.dumps(case))
            return allows
        except GuestError:
            continue
    raise AssertionError(f"the budget case answered neither true nor false: {budget} {counts}")


def _digits(header: str) -> str | None:
    t = header.strip(" \t")
    return t if t and all(c in "0123456789" for c in t) else None


def _check_invariants(rp: RetryPolicy, op: str, i: dict[str, Any], got: dict[str, Any]) -> None:
    if op == "retry_after":
        r = got["retry_after_ms"]
        assert r is None or 0 <= r <= 2**53 - 1
        ds = _digits(i["header"])
        if ds is not None:
            assert r == min(int(ds) * 1000, 2**53 - 1)
        return
    if "error" in got:
        return
    st_, now = i["state"], i["now_ms"]
    elapsed = max(0, now - st_["first_attempted_at_ms"])
    window = i["policy"]["window_ms"]
    bw = i["policy"]["budget"]["window_ms"]
    ev = got if op == "evaluate" else _answer(rp, "evaluate", {k: v for k, v in i.items() if k != "reply"})
    assert "error" not in ev, f"settle accepted what evaluate refused: {ev}"
    store, first = ev["store"], st_["attempt"] == 1
    if store is not None:
        assert (store["bucket"], store["endpoint_id"], store["window_ms"]) == (now // bw, st_["endpoint_id"], bw)
    if ev["decision"] is not None:
        assert (store is None) == (not first) and (store is None or store["op"] == "record")
    else:
        assert store is not None and store["op"] == ("record_reserve" if first else "reserve")
    decisions = [ev["decision"]] if op == "evaluate" else [got["decision"]]
    if op == "settle":
        reply = i["reply"]
        if ev["decision"] is not None:
            assert got == {"decision": ev["decision"], "budget_disagreement": False}
        elif "unavailable" in reply:
            assert got["decision"]["stop_reason"] == "budget_unavailable" and not got["budget_disagreement"]
        else:
            retry = got["decision"]["stop_reason"] is None
            assert retry == reply["reserved"] or (not retry and got["decision"]["stop_reason"] == "retry_budget_exhausted")
            assert retry == reply["reserved"]
            c = reply["counts"]
            allows = _allows(i["policy"]["budget"], now, c)
            assert got["budget_disagreement"] == (allows != reply["reserved"])
    for d in decisions:
        if d is not None and d["stop_reason"] is None:
            delay = d["retry"]["delay_ms"]
            assert elapsed + delay <= window and st_["attempt"] < st_["max_attempts"]
            assert delay >= i["outcome"].get("retry_after_ms", 0)


def test_valid_inputs_keep_the_contracts_invariants_and_agree_with_native(rp, tmp_path):
    cases: list[tuple[str, str]] = []  # (vector line, python's answer) as JSON text: ~5x smaller than the dicts

    @PROFILE
    @given(st.sampled_from(sorted(CASES)).flatmap(lambda op: st.tuples(st.just(op), CASES[op])))
    def one(case: tuple[str, dict[str, Any]]) -> None:
        op, i = case
        i = json.loads(json.dumps(i))  # what a vector file carries
        got = _answer(rp, op, i)
        _check_invariants(rp, op, i, got)
        cases.append((json.dumps({"name": f"py/{op}/{len(cases)}", "op": op, "input": i}), json.dumps(got)))

    one()
    if not EXPECT.is_file():
        pytest.skip(f"{EXPECT} not built: invariants checked, native comparison skipped")
    lines = "".join(line + "\n" for line, _ in cases)
    subprocess.run([str(EXPECT), "--out", str(tmp_path), "--chunk", "100000"], input=lines.encode(), check=True,
                   capture_output=True, timeout=120)
    native = {c["name"]: c["expect"] for f in sorted(tmp_path.glob("*.json"))
              for c in json.loads(f.read_text(encoding="utf-8"))["cases"]}
    assert len(native) == len(cases)
    bad = []
    for line, answer in cases:
        c, got = json.loads(line), json.loads(answer)
        want = native[c["name"]]
        same = got.get("error") == want["error"] if "error" in want else got == want
        if not same:
            bad.append(f"{c['name']}: input {json.dumps(c['input'])}: native {want}, python {got}")
    assert not bad, f"{len(bad)} of {len(cases)} disagree:\n" + "\n".join(bad[:10])


@given(imf_date(), J_NOW)
@PROFILE
def test_imf_fixdates_are_the_time_until_that_instant(rp, date, now):
    text, at = date
    got = rp.parse_retry_after(text, now)
    if at is None:
        assert got is None
    else:
        assert got == min(max(0, at - now), 2**53 - 1)
