"""The package's errors.

* :class:`PolicyError` (generated from the WIT record ``policy-error``) — a
  refused input: ``code`` (:class:`ErrorCode`, the SPEC's snake_case code),
  ``field`` (dotted path, empty when the whole value is at fault) and
  ``message``. Semantic codes come from the component; the host raises only
  ``invalid_input`` itself, plus the two codes where a WIT type is narrower
  than the contract (``_checks.NARROWER``).
* :class:`PolicyTrap` — the component trapped or returned bytes that are
  not a value of the result type (a bug). This thread's instance is
  discarded; the next call builds a fresh one. A ``RuntimeError``, never a
  crash.
* :class:`ArtifactError` — an artifact (the component file) was refused
  when loading or swapping (docs/artifact.md "Error codes"): ``code`` is
  one of :data:`ARTIFACT_CODES`, ``message`` names what was expected and
  what was found. A refused swap keeps the artifact already running.
"""

from __future__ import annotations

from ._generated.errors import ErrorCode, PolicyError

__all__ = ["ARTIFACT_CODES", "ArtifactError", "ErrorCode", "PolicyError", "PolicyTrap"]


class PolicyTrap(RuntimeError):
    """The component trapped; the instance was replaced."""


ARTIFACT_CODES = (
    "artifact_pin_invalid",
    "artifact_unreadable",
    "artifact_too_large",
    "artifact_sha256_mismatch",
    "artifact_invalid",
    "artifact_abi_mismatch",
    "artifact_self_test_failed",
    "artifact_document_invalid",
)


class ArtifactError(Exception):
    """An artifact was refused: ``code`` (one of ``ARTIFACT_CODES``) and ``message``."""

    def __init__(self, code: str, message: str) -> None:
        if code not in ARTIFACT_CODES:
            raise ValueError(f"unknown artifact error code {code!r}")
        self.code = code
        self.message = message
        super().__init__(code, message)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def __reduce__(self) -> tuple[type[ArtifactError], tuple[str, str]]:
        return (ArtifactError, (self.code, self.message))
