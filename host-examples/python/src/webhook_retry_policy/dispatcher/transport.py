"""One delivery attempt over httpx, and what it ended with as the policy's
``AttemptOutcome`` (the outcome table, README "Hostile endpoints").

* :func:`make_client`: an ``httpx.AsyncClient`` that never follows
  redirects, ignores proxy environment variables (a proxy would bypass the
  destination check), has per-phase ``httpx.Timeout`` s no longer than the
  attempt deadline, and connects through :class:`GuardedBackend` (one
  resolution, checked addresses, response heads capped at 16 KiB).
* :func:`attempt`: POST under ONE overall deadline (``asyncio.timeout``,
  default 30 s: a drip cannot hold a worker), the response streamed, at most
  ``MAX_BODY_BYTES`` of body read and discarded.

Naming only here: the status code; the Retry-After header through the
component's parser (garbage such as ``²`` is simply not usable); an
exception as a transport-error kind. Whether any of them is retryable is
decided by the component (unknown kinds are terminal there).
"""

from __future__ import annotations

import asyncio
import re
import ssl
from collections.abc import Mapping
from contextlib import suppress

import httpcore
import httpx

from ..ops import PolicyOps
from ..redact import install_log_redaction
from ..transport_kinds import TransportKind
from ..types import AttemptOutcome, HttpResponse, TransportError
from .destination import DestinationRefused, GuardedBackend
from .tls import client_ssl_context, is_certificate_failure

DEFAULT_ATTEMPT_DEADLINE_MS = 30_000
MAX_BODY_BYTES = 64 * 1024

# h11's words for a status line below 100 (it parses 100-999 itself)
_BAD_STATUS = re.compile(r"status_code should be in range")


class _GuardedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport with its connection pool on :class:`GuardedBackend`."""

    def __init__(self, *, allow_private: bool, limits: httpx.Limits, ssl_context: ssl.SSLContext) -> None:
        super().__init__(limits=limits, http1=True, http2=False, retries=0, verify=ssl_context)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context, max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections, keepalive_expiry=limits.keepalive_expiry,
            http1=True, http2=False, retries=0, network_backend=GuardedBackend(allow_private=allow_private),
        )


def make_client(*, concurrency: int = 16, attempt_deadline_ms: int = DEFAULT_ATTEMPT_DEADLINE_MS,
                allow_private_targets: bool = False, ca_pem: str | None = None) -> httpx.AsyncClient:
    """The client every attempt of the example dispatcher and replica uses
    (httpx's own request log, which names the full URL, is redacted).
    ``https://`` targets are verified against the platform's trust store
    plus ``ca_pem`` (the PEM text of ``--ca-file``); never skipped."""
    install_log_redaction("httpx", "httpcore")
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    phase = min(10.0, attempt_deadline_ms / 1000)
    return httpx.AsyncClient(
        transport=_GuardedTransport(allow_private=allow_private_targets, limits=limits,
                                    ssl_context=client_ssl_context(ca_pem)),
        timeout=httpx.Timeout(phase, connect=min(5.0, phase)), follow_redirects=False, trust_env=False,
    )


async def attempt(client: httpx.AsyncClient, url: str, *, content: bytes, headers: Mapping[str, str],
                  policy: PolicyOps, now_ms: int, deadline_ms: int = DEFAULT_ATTEMPT_DEADLINE_MS) -> AttemptOutcome:
    """:func:`post` as the per-attempt step's ``AttemptOutcome`` (for a caller
    that keeps its own loop): the Retry-After header read by the component."""
    r = await post(client, url, content=content, headers=headers, deadline_ms=deadline_ms)
    if "error_kind" in r:
        return TransportError(TransportKind(str(r["error_kind"])))
    header, retry_after_ms = r.get("retry_after"), None
    if header is not None:
        with suppress(Exception):  # a header that is not text (never a crash)
            retry_after_ms = policy.parse_retry_after(str(header), now_ms)
    return HttpResponse(int(str(r["status"])), retry_after_ms)


async def post(client: httpx.AsyncClient, url: str, *, content: bytes, headers: Mapping[str, str],
               deadline_ms: int = DEFAULT_ATTEMPT_DEADLINE_MS) -> dict[str, object]:
    """POST ``content`` to ``url`` under one deadline, as the engine's
    ``result`` fields (docs/engine.md section 2): ``{"status", "retry_after"?}``
    (the raw header: the engine parses it) or ``{"error_kind"}``. Never raises
    for anything the endpoint does; the body (at most 64 KiB) is read only to
    let the endpoint finish."""
    try:
        async with asyncio.timeout(deadline_ms / 1000):
            async with client.stream("POST", url, content=content, headers=dict(headers)) as response:
                status = response.status_code
                if not 100 <= status <= 599:
                    return {"error_kind": TransportKind.UNEXPECTED_STATUS.value}
                result: dict[str, object] = {"status": status}
                header = response.headers.get("retry-after")
                if header is not None:
                    result["retry_after"] = header
                read = 0
                with suppress(httpx.HTTPError):  # a reset while the body is discarded: the status stands
                    async for chunk in response.aiter_raw():
                        read += len(chunk)
                        if read >= MAX_BODY_BYTES:
                            break
                return result
    except (httpx.HTTPError, httpx.InvalidURL, DestinationRefused, TimeoutError) as exc:
        return {"error_kind": error_kind(exc).value}
    except (ValueError, TypeError, UnicodeError):  # a header httpx will not send as built
        return {"error_kind": TransportKind.LOCAL_PROTOCOL_ERROR.value}


# httpx's exceptions as the contract's kinds, the most specific class first
_BY_CLASS: tuple[tuple[type[BaseException], TransportKind], ...] = (
    (DestinationRefused, TransportKind.DESTINATION_REFUSED),  # terminal: nothing was sent
    (TimeoutError, TransportKind.READ_TIMEOUT),  # the attempt's overall deadline passed
    (httpx.ConnectTimeout, TransportKind.CONNECT_TIMEOUT),
    (httpx.ReadTimeout, TransportKind.READ_TIMEOUT),
    (httpx.WriteTimeout, TransportKind.WRITE_TIMEOUT),
    (httpx.PoolTimeout, TransportKind.POOL_TIMEOUT),
    (httpx.TimeoutException, TransportKind.READ_TIMEOUT),
    (httpx.ConnectError, TransportKind.CONNECT_ERROR),
    (httpx.ReadError, TransportKind.REMOTE_PROTOCOL_ERROR),  # a reset or EOF mid-response
    (httpx.WriteError, TransportKind.REMOTE_PROTOCOL_ERROR),
    (httpx.CloseError, TransportKind.REMOTE_PROTOCOL_ERROR),
    (httpx.RemoteProtocolError, TransportKind.REMOTE_PROTOCOL_ERROR),
    (httpx.LocalProtocolError, TransportKind.LOCAL_PROTOCOL_ERROR),  # our request could not be sent (terminal)
    (httpx.UnsupportedProtocol, TransportKind.UNSUPPORTED_PROTOCOL),
    (httpx.InvalidURL, TransportKind.INVALID_URL),
    (httpx.TooManyRedirects, TransportKind.TOO_MANY_REDIRECTS),
    (httpx.NetworkError, TransportKind.CONNECT_ERROR),
)


def error_kind(exc: BaseException) -> TransportKind:
    """``ConnectTimeout`` -> ``connect_timeout``; resets -> ``remote_protocol_error``;
    a status line below 100 -> ``unexpected_status``; a server certificate
    that fails verification -> ``tls_certificate`` (any other handshake
    failure stays ``connect_error`` / ``connect_timeout``). Anything else
    that broke the exchange (a proxy or decoding error, never expected here)
    is ``remote_protocol_error``: retryable, and counted under a known kind."""
    if is_certificate_failure(exc):
        return TransportKind.TLS_CERTIFICATE
    if isinstance(exc, httpx.RemoteProtocolError) and _BAD_STATUS.search(str(exc)):
        return TransportKind.UNEXPECTED_STATUS
    for cls, kind in _BY_CLASS:
        if isinstance(exc, cls):
            return kind
    return TransportKind.REMOTE_PROTOCOL_ERROR
