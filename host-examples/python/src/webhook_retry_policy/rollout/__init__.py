"""Following a fleet rollout (docs/rollout.md): the follower lives in the
component (``rollout-open`` / ``rollout-step``: the record, the canary rule,
the trusted keys, Ed25519, the tick's steps, the status record, the log
lines); this package is its driver, doing only I/O.

* :func:`read_trust_file`: the ``--trust-key`` file's text (a regular file
  of at most 1 MiB, else ``rollout_trust_invalid``);
* :class:`Follower`: a replica's tick on a blocking redis-py client
  (``redis_store.sync_client``) or any :class:`RolloutStore`; ``tick()``
  once, ``start(interval_ms)`` on a daemon thread; what the steps say
  reaches ``on_event`` as :class:`FollowEvent` (log lines, a
  :class:`Refusal`, a swap).

Errors the host raises are :class:`RolloutError` (``rollout_trust_invalid``,
``rollout_input_invalid``); a refused record or artifact is data, a
:class:`Refusal`. No extra is needed beyond ``redis`` for the client.
"""

from __future__ import annotations

from .errors import ROLLOUT_CODES, RolloutError
from .follower import Follower, FollowEvent, Refusal
from .store import REPLICAS_KEY, STATE_KEY, RedisRolloutStore, RolloutStore
from .trust_file import MAX_TRUST_BYTES, read_trust_file

__all__ = [
    "MAX_TRUST_BYTES", "REPLICAS_KEY", "ROLLOUT_CODES", "STATE_KEY", "FollowEvent", "Follower", "RedisRolloutStore",
    "Refusal", "RolloutError", "RolloutStore", "read_trust_file",
]
