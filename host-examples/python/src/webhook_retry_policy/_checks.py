"""Host-side TYPE/SHAPE checks: the only checks Python makes itself.

Each raises ``PolicyError("invalid_input", field, ...)``. Ranges that the
contract gives meaning to (``base_ms >= 1``, ``ratio <= 1``, ...) are NOT
checked here: the component checks them, so every host reports the same
code. The only range checks here are the WIT integer widths (``u16``,
``u32``, ``u64``) a value must fit to be passed to the component at all.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, TypeVar

from .errors import invalid_input

U16_MAX = 0xFFFF
U32_MAX = 0xFFFF_FFFF
U64_MAX = 0xFFFF_FFFF_FFFF_FFFF

E = TypeVar("E", bound=Enum)


def _kind(value: Any) -> str:
    return "None" if value is None else type(value).__name__


def uint(field: str, value: Any, max_value: int = U64_MAX) -> int:
    """A non-negative ``int`` (never ``bool``, never a float, not NaN) that
    fits ``max_value``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise invalid_input(field, f"expected a non-negative integer, got {_kind(value)} {value!r}")
    if value < 0:
        raise invalid_input(field, f"expected a non-negative integer, got {value}")
    if value > max_value:
        raise invalid_input(field, f"{value} does not fit in {max_value.bit_length()} bits")
    return int(value)


def number(field: str, value: Any) -> float:
    """A float (or an int, converted exactly); never ``bool`` or ``None``.
    Non-finite values pass through: whether they are valid is the policy's
    call (SPEC: a factor must be finite, else ``invalid_backoff``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise invalid_input(field, f"expected a number, got {_kind(value)} {value!r}")
    if isinstance(value, int):
        if abs(value) > 2**53:
            raise invalid_input(field, f"{value} is not exactly representable as a double")
        return float(value)
    return value


def boolean(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise invalid_input(field, f"expected a boolean, got {_kind(value)} {value!r}")
    return value


def text(field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise invalid_input(field, f"expected a string, got {_kind(value)} {value!r}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise invalid_input(field, "not encodable as UTF-8 (lone surrogate)") from None
    return value


def instance(field: str, value: Any, cls: type, what: str) -> Any:
    if not isinstance(value, cls):
        raise invalid_input(field, f"expected {what}, got {_kind(value)}")
    return value


def enum_member(field: str, value: Any, cls: type[E]) -> E:
    """A member of ``cls`` (or its ``str`` value)."""
    if isinstance(value, cls):
        return value
    if isinstance(value, str):
        try:
            return cls(value)
        except ValueError:
            pass
    names = ", ".join(m.value for m in cls)  # type: ignore[attr-defined]
    raise invalid_input(field, f"expected one of {names}, got {value!r}")
