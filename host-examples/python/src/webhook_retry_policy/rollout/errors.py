"""The rollout's error codes (docs/rollout.md): one typed error, :class:`RolloutError`.

The host raises two of them: ``rollout_trust_invalid`` (the ``--trust-key``
file cannot be read, or the component's ``rollout-open`` refuses its text:
a setup error) and ``rollout_input_invalid`` (the component refused an input
or a state text: a host bug, reported, the state kept). The others are the
follower's refusals of a record or an artifact, reported as data
(:class:`~webhook_retry_policy.rollout.Refusal`), like the artifact codes of
docs/artifact.md a refusal may also carry.
"""

from __future__ import annotations

from ..errors import CodedError

__all__ = ["ROLLOUT_CODES", "RolloutError"]

ROLLOUT_CODES = (
    "rollout_record_invalid",
    "rollout_trust_invalid",
    "rollout_key_unknown",
    "rollout_signature_invalid",
    "rollout_artifact_missing",
    "rollout_input_invalid",
)


class RolloutError(CodedError):
    """A rollout error: ``code`` (one of :data:`ROLLOUT_CODES`) and ``message``."""

    CODES, KIND = ROLLOUT_CODES, "rollout"
