"""The fleet-wide budget store in Redis (``fleet/budget.lua``, copied into
the package by ``setup``), sync (``redis.Redis``) and asyncio
(``redis.asyncio.Redis``).

Each store request is ONE command: ``EVAL`` with the script until Redis
has run it once, then ``EVALSHA`` (on ``NOSCRIPT``, after a ``SCRIPT
FLUSH`` or a restart, nothing ran, so only that command is sent again, as
``EVAL``):
``KEYS[1]`` = the component's ``store_key(request)``; ``ARGV`` = op,
bucket, window_ms, now_ms, ratio (``repr`` of the double), min_sample,
sliding (``1``/``0``), skew check (``1`` on by default: the script refuses
a caller whose clock is more than a quarter window from Redis ``TIME``).
Reply ``[reserved, cur_total, cur_retries, prev_total, prev_retries]``.
``eval_argv(key, argv)`` runs one engine ``store_call`` (docs/engine.md
section 6: the engine builds the 8 or 18 arguments) with the same one command.
Every error, timeout or malformed reply raises, which the policy settles
as ``Unavailable()`` (fails closed). ``from_url`` builds a client with a
timeout on every call (default 250 ms) and no client-side retries.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
from typing import Any, Self

from .loader import package_data
from .ops import PolicyOps
from .redact import redact
from .types import BucketCounts, Budget, BudgetCounts, Reservation, StoreRequest

SCRIPT_ENV = "WEBHOOK_RETRY_POLICY_BUDGET_LUA"
DEFAULT_TIMEOUT_S = 0.25
log = logging.getLogger(__name__)


def eviction_warning(policy: str) -> str | None:
    """Why ``maxmemory-policy`` ``policy`` endangers the budget, or None.
    Under any policy but ``noeviction`` Redis may evict budget hashes when
    memory is full: counts silently reset and retries are silently allowed
    (fleet/README.md: use ``noeviction`` for the budget database)."""
    if policy == "noeviction":
        return None
    return (f"Redis maxmemory-policy is {policy!r}: budget keys can be evicted, which silently resets "
            "the counts and allows retries; use maxmemory-policy noeviction for the budget database")


def _policy_of(reply: Any) -> str | None:
    """``CONFIG GET maxmemory-policy`` as a list ``[name, value]`` or a dict."""
    if isinstance(reply, dict):
        reply = [x for kv in reply.items() for x in kv]
    if isinstance(reply, (list, tuple)) and len(reply) == 2:
        v = reply[1]
        return v.decode() if isinstance(v, bytes) else str(v)
    return None


def budget_script() -> str:
    """``fleet/budget.lua`` as shipped in the package (or ``$WEBHOOK_RETRY_POLICY_BUDGET_LUA``)."""
    path = os.environ.get(SCRIPT_ENV)
    if path:
        with open(path, encoding="utf-8") as f:
            return f.read()
    try:
        return package_data("budget.lua").decode("utf-8")
    except FileNotFoundError:
        raise FileNotFoundError("budget.lua is not in the package: run host-examples/python/setup") from None


def script_args(request: StoreRequest, budget: Budget, now_ms: int, skew_check: bool) -> list[str]:
    return [request.op.value, str(request.bucket), str(request.window_ms), str(now_ms), repr(float(budget.ratio)),
            str(budget.min_sample), "1" if budget.sliding else "0", "1" if skew_check else "0"]


def reservation(reply: Any) -> Reservation:
    """The script's reply as a :class:`Reservation` (ValueError if malformed)."""
    if not isinstance(reply, (list, tuple)) or len(reply) != 5:
        raise ValueError(f"budget.lua replied {reply!r}, not 5 integers")
    reserved, ct, cr, pt, pr = (int(x) for x in reply)
    if reserved not in (0, 1):
        raise ValueError(f"budget.lua replied reserved={reserved}")
    return Reservation(reserved == 1, BudgetCounts(BucketCounts(ct, cr), BucketCounts(pt, pr)))


def _tls_kwargs(url: str, ca_pem: str | None) -> dict[str, Any]:
    """For a ``rediss://`` URL: verify the server (certificate required, host
    name checked) against the platform's trust store plus ``ca_pem`` (the
    ``--ca-file`` PEM text): redis-py's context is ``create_default_context()``
    (the platform's certificates) to which ``ssl_ca_data`` is added. Nothing
    for ``redis://`` (its connection class takes no TLS arguments)."""
    if not url.startswith("rediss://"):
        return {}
    tls: dict[str, Any] = {"ssl_cert_reqs": "required", "ssl_check_hostname": True}
    if ca_pem is not None:
        tls["ssl_ca_data"] = ca_pem
    return tls


def _client(url: str, *, cluster: bool, timeout_s: float, ca_pem: str | None, aio: bool) -> Any:
    """A redis-py client (``redis.asyncio``'s when ``aio``) with the store's connection options: ``timeout_s``
    on connect and on every reply, no client-side retries, TLS as :func:`_tls_kwargs` says; a Redis Cluster
    client from one seed node's URL when ``cluster``."""
    from importlib import import_module

    from redis.backoff import NoBackoff

    api = import_module("redis.asyncio" if aio else "redis")
    options = {"retry": import_module(f"{api.__name__}.retry").Retry(NoBackoff(), 0), "socket_timeout": timeout_s,
               "socket_connect_timeout": timeout_s, **_tls_kwargs(url, ca_pem)}
    try:
        if cluster:
            return api.RedisCluster.from_url(url, **options)
        return api.Redis.from_url(url, retry_on_timeout=False, **options)
    except (ValueError, TypeError) as e:  # a bad Redis URL's error, without the URL's password
        raise ValueError(redact(str(e))) from None


def sync_client(url: str, *, cluster: bool = False, timeout_s: float = DEFAULT_TIMEOUT_S,
                ca_pem: str | None = None) -> Any:
    """A blocking client (``redis.Redis`` for ``redis://``/``rediss://``/``unix://`` URLs,
    ``redis.cluster.RedisCluster`` when ``cluster``) with the store's options: the rollout
    follower's client (docs/rollout.md)."""
    return _client(url, cluster=cluster, timeout_s=timeout_s, ca_pem=ca_pem, aio=False)


class _Script:
    AIO = False  # the client is redis.asyncio's

    def __init__(self, client: Any, *, script: str | None = None, skew_check: bool = True,
                 timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.client = client
        self.timeout_s = timeout_s
        self.script = script if script is not None else budget_script()
        self.sha = hashlib.sha1(self.script.encode()).hexdigest()
        self.skew_check = skew_check
        self.ops = PolicyOps()
        self.commands = 0  # Redis commands sent (one per request; two after a NOSCRIPT)
        # EVAL until Redis has run the script once (no NOSCRIPT round trip at start), then EVALSHA
        self.loaded = False

    @classmethod
    def from_url(cls, url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S, skew_check: bool = True,
                 ca_pem: str | None = None) -> Self:
        """``redis://[USER[:PASSWORD]@]HOST:PORT[/DB]`` (an ACL user: ``AUTH
        USER PASSWORD``) or ``rediss://...`` (TLS, see :func:`_tls_kwargs`)."""
        client = _client(url, cluster=False, timeout_s=timeout_s, ca_pem=ca_pem, aio=cls.AIO)
        return cls(client, skew_check=skew_check, timeout_s=timeout_s)

    @classmethod
    def from_cluster_url(cls, url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S, skew_check: bool = True,
                         ca_pem: str | None = None) -> Self:
        """A Redis Cluster client from one seed node's URL: each request's one
        key (``store_key``) routes the command to its slot's master."""
        client = _client(url, cluster=True, timeout_s=timeout_s, ca_pem=ca_pem, aio=cls.AIO)
        return cls(client, skew_check=skew_check, timeout_s=timeout_s)

    def command(self, request: StoreRequest, budget: Budget, now_ms: int) -> tuple[str, list[str]]:
        """The key (the component's ``store_key``) and ``ARGV`` of ``request``."""
        return self.ops.store_key(request), script_args(request, budget, now_ms, self.skew_check)

    def _first(self, key: str, args: list[str]) -> tuple[Any, ...]:
        """The command to send: ``EVAL`` until Redis has run the script once, then ``EVALSHA``."""
        self.commands += 1
        return ("EVALSHA", self.sha, 1, key, *args) if self.loaded else ("EVAL", self.script, 1, key, *args)

    def _again(self, e: Exception, key: str, args: list[str]) -> tuple[Any, ...]:
        """After a failed command: ``EVAL`` once more on ``NOSCRIPT`` (nothing ran), else ``e`` is raised."""
        if not self.loaded or not (type(e).__name__ == "NoScriptError" or str(e).startswith("NOSCRIPT")):
            raise e
        self.commands += 1
        return ("EVAL", self.script, 1, key, *args)


class RedisBudgetStore(_Script):
    """Sync store for :class:`RetryPolicy` (``redis.Redis``)."""

    def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation:
        key, args = self.command(request, budget, now_ms)
        return reservation(self._eval(key, args))

    def _eval(self, key: str, args: list[str]) -> Any:
        try:
            reply = self.client.execute_command(*self._first(key, args))
        except Exception as e:
            reply = self.client.execute_command(*self._again(e, key, args))
        self.loaded = True
        return reply


class AsyncRedisBudgetStore(_Script):
    """Async store for :class:`AsyncRetryPolicy` (``redis.asyncio.Redis``);
    every call is also bounded by ``timeout_s`` on the event loop."""

    AIO = True

    async def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation:
        key, args = self.command(request, budget, now_ms)
        return reservation(await self._eval(key, args))

    async def eval_argv(self, key: str, argv: list[str]) -> Any:
        """One engine ``store_call`` (docs/engine.md section 6): the script with ``key`` and ``argv`` as given."""
        return await self._eval(key, list(argv))

    async def _eval(self, key: str, args: list[str]) -> Any:
        try:
            reply = await asyncio.wait_for(self.client.execute_command(*self._first(key, args)), self.timeout_s)
        except Exception as e:
            reply = await asyncio.wait_for(self.client.execute_command(*self._again(e, key, args)), self.timeout_s)
        self.loaded = True
        return reply

    async def check_eviction(self) -> str | None:
        """Warn (log and return why) when Redis may evict budget keys. Once,
        at start; a Redis that refuses ``CONFIG`` (managed services) is not
        an error: nothing is known, nothing is said."""
        try:
            reply = await asyncio.wait_for(self.client.execute_command("CONFIG", "GET", "maxmemory-policy"),
                                           self.timeout_s)
        except Exception:
            return None
        policy = _policy_of(reply)
        warning = eviction_warning(policy) if policy is not None else None
        if warning:
            log.warning(warning)
        return warning

    async def warm_up(self, connections: int) -> int:
        """Open up to ``connections`` pooled connections before the first
        event (concurrent ``PING`` s, each bounded by the store timeout), so
        that a TLS handshake and ``AUTH`` are not paid inside the first
        budget calls' timeout. Returns how many answered; a failure is only
        logged (the calls will fail closed as usual). Not counted as store
        calls."""
        async def ping() -> bool:
            try:
                await asyncio.wait_for(self.client.execute_command("PING"), max(self.timeout_s, 1.0))
                return True
            except Exception as e:
                log.warning("budget store not reachable at start: %s", redact(repr(e)))
                return False

        answered = await asyncio.gather(*(ping() for _ in range(max(1, connections))))
        return sum(answered)

    async def aclose(self) -> None:
        await self.client.aclose()
