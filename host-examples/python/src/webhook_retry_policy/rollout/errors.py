"""The rollout's error codes (docs/rollout.md): one typed error, :class:`RolloutError`.

``code`` is one of :data:`ROLLOUT_CODES`; ``message`` says what was
expected and what was found. A follower's refusal may also carry one of
the artifact codes of docs/artifact.md (``artifact_too_large``,
``artifact_sha256_mismatch``, the load checks): those stay
:class:`~webhook_retry_policy.errors.ArtifactError`.
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
)


class RolloutError(CodedError):
    """A refused rollout input: ``code`` (one of :data:`ROLLOUT_CODES`) and ``message``."""

    CODES, KIND = ROLLOUT_CODES, "rollout"
