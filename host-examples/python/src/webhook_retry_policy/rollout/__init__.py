"""Shipping a policy to the fleet (docs/rollout.md): the record, the canary
rule, the trusted keys, the signature check and the follower.

* :func:`bucket` (``replica_id`` -> 0..99), :func:`read_record` (text ->
  :class:`RolloutRecord` or ``rollout_record_invalid``), :func:`desired`
  (record, replica id -> sha256), :func:`canonical_text`;
* :func:`read_trust` / :func:`read_trust_file` (PEM text -> :class:`TrustedKeys`,
  by key id, or ``rollout_trust_invalid``), :func:`verify` (returns, or
  ``rollout_key_unknown`` / ``rollout_signature_invalid``), :func:`key_id_of`,
  :func:`signed_message`;
* :class:`Follower`: a replica's tick (status record, record, fetch, verify,
  load, swap) on a blocking redis-py client (``redis_store.sync_client``).

Every refusal is a :class:`RolloutError` whose ``code`` is one of
:data:`ROLLOUT_CODES` (the artifact's own codes stay
:class:`~webhook_retry_policy.errors.ArtifactError`). Ed25519 comes from
``cryptography``: ``pip install 'webhook-retry-policy[rollout]'`` (without
it, importing this package is ONE error naming the extra).
"""

from __future__ import annotations

from .errors import ROLLOUT_CODES, RolloutError
from .follower import REPLICAS_KEY, STATE_KEY, Follower, FollowEvent, Refusal, artifact_key
from .record import MAX_EPOCH, MAX_PREVIOUS, MAX_RECORD_BYTES, Canary, RolloutRecord, bucket, canonical_text, desired, read_record
from .trust import SIGNED_MESSAGE_PREFIX, TrustedKeys, key_id_of, read_trust, read_trust_file, signed_message, verify

__all__ = [
    "MAX_EPOCH", "MAX_PREVIOUS", "MAX_RECORD_BYTES", "REPLICAS_KEY", "ROLLOUT_CODES", "SIGNED_MESSAGE_PREFIX",
    "STATE_KEY", "Canary", "FollowEvent", "Follower", "Refusal", "RolloutError", "RolloutRecord", "TrustedKeys",
    "artifact_key", "bucket", "canonical_text", "desired", "key_id_of", "read_record", "read_trust",
    "read_trust_file", "signed_message", "verify",
]
