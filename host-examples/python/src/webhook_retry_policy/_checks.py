"""Host-side TYPE/SHAPE checks, called by the generated types and ABI.

Each failure raises ``PolicyError("invalid_input", field, ...)``. Ranges the
contract gives meaning to (``base_ms >= 1``, ``ratio <= 1`` ...) are NOT
checked here: the component checks them, so every host reports the same
code. The only range checks are the WIT widths (``u16``, ``u32``, ``u64``)
a value must fit to be passed at all, and two places where a WIT type is
narrower than the contract (the contract's codec reports those with a
policy code, ``NARROWER``): an unknown jitter name and a status above 65535.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, TypeVar

from ._generated.errors import PolicyError

E = TypeVar("E", bound=Enum)
U64_MAX = 0xFFFF_FFFF_FFFF_FFFF

# field path -> the contract's code for a value the WIT type cannot hold
NARROWER = {"backoff.jitter": "invalid_backoff", "http_response.status": "invalid_status"}


def _error(field: str, message: str, code: str = "invalid_input") -> PolicyError:
    return PolicyError(code, field, message)


def _kind(value: Any) -> str:
    return "None" if value is None else type(value).__name__


SHOWN = 80  # characters of a refused value quoted in a message


def show(value: Any) -> str:
    """``repr(value)``, cut to ``SHOWN`` characters: a message never carries a
    megabyte of the input (a 1 MiB NUL string is a 4 MiB repr), and an int
    past Python's 4300-digit ``str`` limit is described, not converted (that
    conversion raises ``ValueError``, not ``PolicyError``)."""
    if isinstance(value, int) and value.bit_length() > 4 * SHOWN:
        return f"{'a negative' if value < 0 else 'an'} integer of {value.bit_length()} bits"
    long = isinstance(value, (str, bytes, bytearray)) and len(value) > SHOWN
    try:
        text = repr(value[:SHOWN] if long else value)
    except Exception:  # a hostile __repr__: the message names the type only
        return f"<{_kind(value)}>"
    if len(text) > SHOWN or long:
        text = f"{text[:SHOWN]}..."
    return f"{text} ({len(value)} {'characters' if isinstance(value, str) else 'bytes'})" if long else text


def wrong_type(field: str, value: Any, expected: str) -> PolicyError:
    return _error(field, f"expected {expected}, got {_kind(value)}")


def uint(field: str, value: Any, max_value: int = U64_MAX) -> int:
    """A non-negative ``int`` (never ``bool``) that fits ``max_value``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise _error(field, f"expected a non-negative integer, got {_kind(value)} {show(value)}")
    if value < 0:
        raise _error(field, f"expected a non-negative integer, got {show(value)}")
    if value > max_value:
        raise _error(field, f"{show(value)} does not fit in {max_value.bit_length()} bits", NARROWER.get(field, "invalid_input"))
    return int(value)


def number(field: str, value: Any) -> float:
    """A float (an int converted exactly); never ``bool``. NaN and infinities
    pass: whether they are valid is the policy's call (SPEC: "finite")."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _error(field, f"expected a number, got {_kind(value)} {show(value)}")
    if isinstance(value, int) and abs(value) > 2**53:
        raise _error(field, f"{show(value)} is not exactly representable as a double")
    return float(value)


def boolean(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _error(field, f"expected a boolean, got {_kind(value)} {show(value)}")
    return value


def text(field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _error(field, f"expected a string, got {_kind(value)} {show(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _error(field, "not encodable as UTF-8 (lone surrogate)") from None
    return value


def instance(field: str, value: Any, cls: type | tuple[type, ...]) -> Any:
    if not isinstance(value, cls):
        names = " or ".join(c.__name__ for c in (cls if isinstance(cls, tuple) else (cls,)))
        raise wrong_type(field, value, names)
    return value


def sequence(field: str, value: Any) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
        raise wrong_type(field, value, "a tuple or list")
    return tuple(value)


def enum_member(field: str, value: Any, cls: type[E]) -> E:
    """A member of ``cls`` (or its ``str`` value)."""
    if isinstance(value, cls):
        return value
    if isinstance(value, str):
        try:
            return cls(value)
        except ValueError:
            pass
    names = ", ".join(str(m.value) for m in cls)
    code = NARROWER.get(field, "invalid_input") if isinstance(value, str) else "invalid_input"
    raise _error(field, f"expected one of {names}, got {show(value)}", code)
