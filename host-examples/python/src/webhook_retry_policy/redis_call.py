"""A whole ABI 0.3 ``StoreCall`` as one ``fleet/budget.lua`` command, and
its reply (docs/health.md section 3, "Redis encoding"):

* a format-2 call (no ``health``): the 8 arguments of ``redis_store``
  (op, bucket, window_ms, now_ms, ratio, min_sample, sliding, skew check),
  reply 5 integers;
* a health call: those 8 and ten more, 18 in all: outcome, pause_until_ms,
  probe (``1``/``0``), circuit (``1``, or ``0`` and six ``0`` s for a null
  circuit), failure_ratio (``repr``: the shortest round-trip decimal),
  min_sample, cooldown_ms, cooldown_max_ms, probes, probe_interval_ms;
  reply 11 integers: the format-2 five (``reserved`` -1 for ``report`` and
  ``probe``: no reservation), ``granted`` (0/1 for ``probe``, else -1) and
  the view ``paused_until_ms, opened_at_ms, cooldown_ms, closed_at_ms,
  as_of_ms``.

The key is the call's own (computed by the policy). A malformed reply is a
ValueError (the caller's store failed: ``Unavailable``).
"""

from __future__ import annotations

from typing import Any

from .types import BucketCounts, BudgetCounts, CallOp, CallReply, HealthView, Reservation, StoreCall


def call_args(call: StoreCall, now_ms: int, skew_check: bool) -> list[str]:
    b = call.budget
    args = [call.op.value, str(call.bucket), str(b.window_ms), str(now_ms), repr(float(b.ratio)), str(b.min_sample),
            "1" if b.sliding else "0", "1" if skew_check else "0"]
    h = call.health
    if h is None:
        return args
    args += [h.outcome.value, str(h.pause_until_ms), "1" if h.probe else "0"]
    c = h.circuit
    if c is None:
        return args + ["0"] * 7
    return args + ["1", repr(float(c.failure_ratio)), str(c.min_sample), str(c.cooldown_ms), str(c.cooldown_max_ms),
                   str(c.probes), str(c.probe_interval_ms)]


def _ints(reply: Any, n: int) -> list[int]:
    if not isinstance(reply, (list, tuple)) or len(reply) != n:
        raise ValueError(f"budget.lua replied {reply!r}, not {n} integers")
    out = []
    for x in reply:
        if isinstance(x, bool) or not isinstance(x, (int, bytes, str)):
            raise ValueError(f"budget.lua replied {reply!r}, not {n} integers")
        out.append(int(x))
    return out


def call_reply(reply: Any, call: StoreCall) -> CallReply:
    """The script's reply to ``call`` as the component's ``call-reply``."""
    health = call.health is not None
    v = _ints(reply, 11 if health else 5)
    reserved = v[0]
    counts = BudgetCounts(BucketCounts(v[1], v[2]), BucketCounts(v[3], v[4]))
    if call.op in (CallOp.REPORT, CallOp.PROBE):
        if reserved != -1:
            raise ValueError(f"budget.lua replied reserved={reserved} to `{call.op.value}`")
        reservation = None
    elif reserved not in (0, 1):
        raise ValueError(f"budget.lua replied reserved={reserved}")
    else:
        reservation = Reservation(reserved == 1, counts)
    if not health:
        return CallReply(reservation, None, None)
    granted = v[5]
    if call.op is CallOp.PROBE:
        if granted not in (0, 1):
            raise ValueError(f"budget.lua replied granted={granted} to `probe`")
        got: bool | None = granted == 1
    elif granted != -1:
        raise ValueError(f"budget.lua replied granted={granted} to `{call.op.value}`")
    else:
        got = None
    if min(v[6:]) < 0:
        raise ValueError(f"budget.lua replied a negative view {v[6:]!r}")
    return CallReply(reservation, got, HealthView(*v[6:]))
