"""Standard Webhooks signatures (https://www.standardwebhooks.com), sender
and receiver side, with the standard library's ``hmac`` / ``hashlib`` /
``base64``.

A delivery carries ``webhook-id``, ``webhook-timestamp`` (Unix seconds) and
``webhook-signature``: ``v1,`` + base64(HMAC-SHA256(secret, f"{id}.{ts}.{body}")),
one per secret, space-separated, so a receiver that knows either the old or
the new secret accepts it during a rotation. Secrets are ``whsec_`` + base64
key bytes (the prefix is optional on input).

:func:`verify` is the receiver's check: every header present, the timestamp
within ``tolerance_s`` of now (both directions: replays and clock games),
and at least one ``v1`` signature equal, compared in constant time
(``hmac.compare_digest``). Its errors never echo a secret or a signature.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

SECRET_PREFIX = "whsec_"
DEFAULT_TOLERANCE_S = 5 * 60


class SignatureError(ValueError):
    """A delivery that does not verify (the message says which check failed)."""


@dataclass(frozen=True)
class Secret:
    """One signing key; ``repr`` never shows it."""

    key: bytes

    @classmethod
    def parse(cls, text: str) -> Secret:
        raw = text[len(SECRET_PREFIX):] if text.startswith(SECRET_PREFIX) else text
        try:
            key = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            raise SignatureError("a signing secret must be whsec_ followed by base64") from None
        if not key:
            raise SignatureError("a signing secret must not be empty")
        return cls(key)

    def __repr__(self) -> str:
        return "Secret(<redacted>)"


def _secrets(secrets: Secret | str | Iterable[Secret | str]) -> list[Secret]:
    many = [secrets] if isinstance(secrets, (Secret, str)) else list(secrets)
    return [s if isinstance(s, Secret) else Secret.parse(s) for s in many]


def _mac(secret: Secret, msg_id: str, timestamp: int, body: bytes) -> bytes:
    signed = f"{msg_id}.{timestamp}.".encode() + body
    return hmac.new(secret.key, signed, hashlib.sha256).digest()


def sign(secrets: Secret | str | Iterable[Secret | str], msg_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` value: one ``v1,<base64>`` per secret."""
    keys = _secrets(secrets)
    if not keys:
        raise SignatureError("no signing secret")
    return " ".join("v1," + base64.b64encode(_mac(s, msg_id, timestamp, body)).decode() for s in keys)


def signed_headers(secrets: Secret | str | Iterable[Secret | str], msg_id: str, body: bytes,
                   timestamp: int | None = None) -> dict[str, str]:
    """The three Standard Webhooks headers for one delivery."""
    ts = int(time.time()) if timestamp is None else timestamp
    return {"webhook-id": msg_id, "webhook-timestamp": str(ts), "webhook-signature": sign(secrets, msg_id, ts, body)}


def verify(secrets: Secret | str | Iterable[Secret | str], headers: Mapping[str, str], body: bytes, *,
           tolerance_s: int = DEFAULT_TOLERANCE_S, now_s: int | None = None) -> None:
    """Raise :class:`SignatureError` unless ``headers`` carry a valid
    signature of ``body`` by one of ``secrets``, timestamped within
    ``tolerance_s`` of ``now_s``."""
    lower = {k.lower(): v for k, v in headers.items()}
    msg_id, ts_text, sig_header = (lower.get(h) for h in ("webhook-id", "webhook-timestamp", "webhook-signature"))
    if not msg_id or not ts_text or not sig_header:
        raise SignatureError("missing webhook-id, webhook-timestamp or webhook-signature")
    if not (ts_text.isascii() and ts_text.isdigit()) or len(ts_text) > 12:
        raise SignatureError("webhook-timestamp is not Unix seconds")
    ts = int(ts_text)
    now = int(time.time()) if now_s is None else now_s
    if abs(now - ts) > tolerance_s:
        raise SignatureError("webhook-timestamp outside the tolerance window")
    expected = [_mac(s, msg_id, ts, body) for s in _secrets(secrets)]
    for candidate in sig_header.split(" "):
        version, _, b64 = candidate.partition(",")
        if version != "v1":
            continue
        try:
            given = base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError):
            continue
        if any(hmac.compare_digest(given, e) for e in expected):
            return
    raise SignatureError("no matching signature")
