"""The fleet-wide budget counter in Redis (``fleet/README.md``), sync and
async, with the shared script ``fleet/budget.lua`` (copied into the
package by ``setup``; EVALSHA with EVAL fallback via ``register_script``).

Keys: ``rb:{<endpoint_id>}:<window_ms>:<bucket>`` (hash ``t``, ``r``).

* :class:`RedisBudgetCounter` (``redis.Redis``) plugs into the WIT
  ``decide`` as its ``budget-counter`` import: ``read`` then, for a
  scheduled retry, ``record-attempt`` (two round trips, not atomic across
  replicas).
* :class:`AsyncRedisBudgetCounter` (``redis.asyncio.Redis``) also offers
  ``reserve``: the script checks the budget and counts the retry in one
  atomic step and returns the counts it judged; :class:`AsyncRetryPolicy`
  hands those counts to ``decide-with``, so one round trip decides and
  replicas racing on one endpoint cannot overshoot the ratio.
"""

from __future__ import annotations

import os
from importlib import resources
from typing import Any, Optional

from .types import BucketCounts, Budget, BudgetCounts

SCRIPT_ENV = "WEBHOOK_RETRY_POLICY_BUDGET_LUA"


def budget_script() -> str:
    """``fleet/budget.lua`` as shipped in the package (or ``$WEBHOOK_RETRY_POLICY_BUDGET_LUA``)."""
    path = os.environ.get(SCRIPT_ENV)
    if path:
        with open(path, encoding="utf-8") as f:
            return f.read()
    res = resources.files(__package__).joinpath("budget.lua")
    if not res.is_file():
        raise FileNotFoundError("budget.lua is not in the package: run host-examples/python/setup")
    return res.read_text("utf-8")


def bucket_key(endpoint_id: str, window_ms: int, bucket: int) -> str:
    return f"rb:{{{endpoint_id}}}:{window_ms}:{bucket}"


def _keys(endpoint_id: str, window_ms: int, bucket: int) -> list[str]:
    return [bucket_key(endpoint_id, window_ms, bucket), bucket_key(endpoint_id, window_ms, bucket - 1)]


def _args(mode: str, window_ms: int, is_retry: bool = False, now_ms: int = 0, budget: Optional[Budget] = None) -> list[Any]:
    if budget is None:
        return [mode, "1" if is_retry else "0", str(now_ms), str(window_ms), "0", "0", "0"]
    return [mode, "0", str(now_ms), str(window_ms), repr(budget.ratio), str(budget.min_sample), "1" if budget.sliding else "0"]


def _counts(reply: Any) -> tuple[BudgetCounts, bool]:
    ct, cr, pt, pr, reserved = (int(x) for x in reply)
    return BudgetCounts(BucketCounts(ct, cr), BucketCounts(pt, pr)), reserved == 1


class RedisBudgetCounter:
    """Sync counter (``redis.Redis``) for the WIT ``decide``."""

    def __init__(self, client: Any, script: Optional[str] = None) -> None:
        self.client = client
        self._script = client.register_script(script or budget_script())

    def read(self, endpoint_id: str, window_ms: int, bucket: int) -> BudgetCounts:
        return _counts(self._script(keys=_keys(endpoint_id, window_ms, bucket), args=_args("read", window_ms)))[0]

    def record_attempt(self, endpoint_id: str, window_ms: int, bucket: int, is_retry: bool) -> None:
        self._script(keys=_keys(endpoint_id, window_ms, bucket), args=_args("record", window_ms, is_retry))


class AsyncRedisBudgetCounter:
    """Async counter (``redis.asyncio.Redis``) for :class:`AsyncRetryPolicy`."""

    def __init__(self, client: Any, script: Optional[str] = None) -> None:
        self.client = client
        self._script = client.register_script(script or budget_script())

    async def read(self, endpoint_id: str, window_ms: int, bucket: int) -> BudgetCounts:
        reply = await self._script(keys=_keys(endpoint_id, window_ms, bucket), args=_args("read", window_ms))
        return _counts(reply)[0]

    async def record_attempt(self, endpoint_id: str, window_ms: int, bucket: int, is_retry: bool) -> None:
        await self._script(keys=_keys(endpoint_id, window_ms, bucket), args=_args("record", window_ms, is_retry))

    async def reserve(self, endpoint_id: str, budget: Budget, now_ms: int, bucket: int) -> tuple[BudgetCounts, bool]:
        """Atomically: the counts before, and whether a retry was counted."""
        reply = await self._script(
            keys=_keys(endpoint_id, budget.window_ms, bucket),
            args=_args("reserve", budget.window_ms, now_ms=now_ms, budget=budget),
        )
        return _counts(reply)
