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
"""

from __future__ import annotations

from ._generated.types import ErrorCode, PolicyError

__all__ = ["ErrorCode", "PolicyError", "PolicyTrap"]


class PolicyTrap(RuntimeError):
    """The component trapped; the instance was replaced."""
