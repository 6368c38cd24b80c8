"""The package's errors.

* :class:`PolicyError` — a refused input, carrying the SPEC code (snake_case),
  the dotted path of the offending field and a sentence for humans. Semantic
  codes (``invalid_backoff`` ...) come from the component; the host raises
  only ``invalid_input`` (wrong type/shape) itself, plus the two places where
  a WIT type is narrower than the contract (see ``types.py``).
* :class:`PolicyTrap` — the component trapped or a host import failed in a
  way the WIT cannot express. The instance that trapped is discarded; the
  next call gets a fresh one. It is a ``RuntimeError``, never a crash.
"""

from __future__ import annotations

from enum import Enum


class ErrorCode(str, Enum):
    """Why an input was refused (SPEC codes, snake_case)."""

    INVALID_BACKOFF = "invalid_backoff"
    INVALID_HARD_CAP = "invalid_hard_cap"
    INVALID_WINDOW = "invalid_window"
    INVALID_BUDGET = "invalid_budget"
    INVALID_STATE = "invalid_state"
    INVALID_STATUS = "invalid_status"
    INVALID_INPUT = "invalid_input"
    INVALID_DOCUMENT = "invalid_document"
    UNKNOWN_EVENT_CLASS = "unknown_event_class"

    @classmethod
    def from_wit(cls, kebab: str) -> "ErrorCode":
        """The WIT `error-code` case (kebab-case) as the SPEC code."""
        return cls(kebab.replace("-", "_"))


class PolicyError(ValueError):
    """A refused input: ``code`` (:class:`ErrorCode`), ``field`` (dotted path,
    empty when the whole value is at fault) and ``message``."""

    def __init__(self, code: ErrorCode | str, field: str, message: str) -> None:
        self.code = ErrorCode(code)
        self.field = field
        self.message = message
        where = f" at `{field}`" if field else ""
        super().__init__(f"{self.code.value}{where}: {message}")

    def within(self, outer: str) -> "PolicyError":
        """The same error with ``outer`` prefixed to its field path."""
        field = outer if not self.field else f"{outer}.{self.field}"
        return PolicyError(self.code, field, self.message)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, PolicyError)
            and (self.code, self.field, self.message) == (other.code, other.field, other.message)
        )

    def __hash__(self) -> int:
        return hash((self.code, self.field, self.message))

    def __reduce__(self):  # picklable across processes
        return (PolicyError, (self.code, self.field, self.message))


def invalid_input(field: str, message: str) -> PolicyError:
    return PolicyError(ErrorCode.INVALID_INPUT, field, message)


class PolicyTrap(RuntimeError):
    """The component trapped (a bug in the policy, or a host import that
    raised where the WIT allows no error, e.g. the clock). The instance is
    discarded; retrying the call uses a fresh one."""
