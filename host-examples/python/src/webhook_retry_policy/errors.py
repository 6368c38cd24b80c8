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

__all__ = ["ARTIFACT_CODES", "ArtifactError", "CodedError", "ErrorCode", "PolicyError", "PolicyTrap"]


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


class CodedError(Exception):
    """A refusal with a snake_case ``code`` (one of the class's ``CODES`` when
    it names them) and a ``message``; shown ``code: message``, pickled whole."""

    CODES: tuple[str, ...] = ()
    KIND = ""

    def __init__(self, code: str, message: str) -> None:
        if self.CODES and code not in self.CODES:
            raise ValueError(f"unknown {self.KIND} error code {code!r}")
        self.code = code
        self.message = message
        super().__init__(code, message)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}" if self.message else self.code

    def __reduce__(self) -> tuple[type[CodedError], tuple[str, str]]:
        return (type(self), (self.code, self.message))


class ArtifactError(CodedError):
    """An artifact was refused: ``code`` (one of ``ARTIFACT_CODES``) and ``message``."""

    CODES, KIND = ARTIFACT_CODES, "artifact"
