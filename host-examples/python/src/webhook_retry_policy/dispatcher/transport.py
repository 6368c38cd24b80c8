"""What an httpx attempt ended with, as the policy's ``AttemptOutcome``.

Only naming and units here: the status code, the Retry-After header in
milliseconds, and the httpx exception as a transport-error kind
(``httpx.ConnectTimeout`` -> ``connect_timeout``). Whether any of them is
retryable is decided by the component (unknown kinds are terminal there).
"""

from __future__ import annotations

import email.utils
import re
from typing import Optional

import httpx

from ..types import AttemptOutcome, HttpResponse, TransportError

_MAX_RETRY_AFTER_MS = 2**63


def retry_after_ms(header: Optional[str], now_ms: int) -> Optional[int]:
    """Retry-After as milliseconds: delta-seconds or an HTTP-date; None when
    absent or unparseable (a malformed header is ignored, not trusted)."""
    if header is None:
        return None
    value = header.strip()
    if value.isdigit():
        return min(int(value) * 1000, _MAX_RETRY_AFTER_MS)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0, int(when.timestamp() * 1000) - now_ms)


def outcome_from_response(response: httpx.Response, now_ms: int) -> HttpResponse:
    return HttpResponse(response.status_code, retry_after_ms(response.headers.get("retry-after"), now_ms))


def error_kind(exc: BaseException) -> str:
    """``ConnectTimeout`` -> ``connect_timeout``; any exception class works."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(exc).__name__).lower()


def outcome_from_exception(exc: BaseException) -> AttemptOutcome:
    return TransportError(error_kind(exc))
