# GENERATED - DO NOT EDIT. From fleet/transport-kinds.json by fleet/gen-transport-kinds (run it to regenerate).
"""Every transport error kind a dispatcher of this project reports, as
constants (fleet/transport-kinds.json, docs/contract.md "Transport error
kinds"). Code that names a kind uses :class:`TransportKind`, so a misspelt
kind is a mypy error instead of an unknown kind the policy would silently
treat as terminal; ``tests/test_transport_kinds.py`` fails when the
component's ``classify_error`` gives a kind another class than
:data:`KIND_CLASS`."""

from __future__ import annotations

from enum import StrEnum
from typing import Final, Literal


class TransportKind(StrEnum):
    """A transport error kind, spelled as the contract spells it (a ``str``)."""

    CONNECT_TIMEOUT = "connect_timeout"
    READ_TIMEOUT = "read_timeout"
    WRITE_TIMEOUT = "write_timeout"
    POOL_TIMEOUT = "pool_timeout"
    CONNECT_ERROR = "connect_error"
    REMOTE_PROTOCOL_ERROR = "remote_protocol_error"
    UNSUPPORTED_PROTOCOL = "unsupported_protocol"
    INVALID_URL = "invalid_url"
    TOO_MANY_REDIRECTS = "too_many_redirects"
    DESTINATION_REFUSED = "destination_refused"
    UNEXPECTED_STATUS = "unexpected_status"
    LOCAL_PROTOCOL_ERROR = "local_protocol_error"
    TLS_CERTIFICATE = "tls_certificate"
    CREDENTIALS_UNAVAILABLE = "credentials_unavailable"


KindClass = Literal["retryable", "terminal"]

# the class the policy's classify_error gives each kind (the policy decides; this is checked against it)
KIND_CLASS: Final[dict[TransportKind, KindClass]] = {
    TransportKind.CONNECT_TIMEOUT: "retryable",
    TransportKind.READ_TIMEOUT: "retryable",
    TransportKind.WRITE_TIMEOUT: "retryable",
    TransportKind.POOL_TIMEOUT: "retryable",
    TransportKind.CONNECT_ERROR: "retryable",
    TransportKind.REMOTE_PROTOCOL_ERROR: "retryable",
    TransportKind.UNSUPPORTED_PROTOCOL: "terminal",
    TransportKind.INVALID_URL: "terminal",
    TransportKind.TOO_MANY_REDIRECTS: "terminal",
    TransportKind.DESTINATION_REFUSED: "terminal",
    TransportKind.UNEXPECTED_STATUS: "terminal",
    TransportKind.LOCAL_PROTOCOL_ERROR: "terminal",
    TransportKind.TLS_CERTIFICATE: "terminal",
    TransportKind.CREDENTIALS_UNAVAILABLE: "terminal",
}

ALL_KINDS: Final[tuple[TransportKind, ...]] = tuple(TransportKind)


def zero_counts() -> dict[str, int]:
    """``{kind: 0}`` for every kind, in the table's order (the summary's ``transport_errors``)."""
    return {k.value: 0 for k in ALL_KINDS}
