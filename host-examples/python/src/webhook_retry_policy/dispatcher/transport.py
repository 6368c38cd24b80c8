"""What an httpx attempt ended with, as the policy's ``AttemptOutcome``.

Only naming here: the status code; the Retry-After header through the
component's parser (``parse_retry_after``: garbage such as ``²`` is simply
not usable); and the httpx exception as a transport-error kind. A status
outside 100-599 is the kind ``unexpected_status``; a reset or malformed
response is ``remote_protocol_error``. Whether any of them is retryable is
decided by the component (unknown kinds are terminal there).
"""

from __future__ import annotations

import re

import httpx

from ..ops import PolicyOps
from ..types import AttemptOutcome, HttpResponse, TransportError

_KINDS = {
    "ReadError": "remote_protocol_error",
    "WriteError": "remote_protocol_error",
    "CloseError": "remote_protocol_error",
    "LocalProtocolError": "remote_protocol_error",
}


def outcome_from_response(response: httpx.Response, policy: PolicyOps, now_ms: int) -> AttemptOutcome:
    status = response.status_code
    if not 100 <= status <= 599:
        return TransportError("unexpected_status")
    header = response.headers.get("retry-after")
    retry_after = None
    if header is not None:
        try:
            retry_after = policy.parse_retry_after(header, now_ms)
        except Exception:  # a header that is not text (never a crash)
            retry_after = None
    return HttpResponse(status, retry_after)


def error_kind(exc: BaseException) -> str:
    """``ConnectTimeout`` -> ``connect_timeout``; resets -> ``remote_protocol_error``."""
    name = type(exc).__name__
    return _KINDS.get(name) or re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def outcome_from_exception(exc: BaseException) -> AttemptOutcome:
    return TransportError(error_kind(exc))
