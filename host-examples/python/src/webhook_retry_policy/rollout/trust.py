"""Trusted keys and the artifact signature (docs/rollout.md "The signature", "Trust").

A trust file holds one or more PEM blocks ``-----BEGIN PUBLIC KEY-----``
(SubjectPublicKeyInfo, Ed25519, as ``openssl pkey -pubout`` writes); text
between blocks is ignored. No such block, a block that is not an Ed25519
public key, a PEM block of another kind (a private key, a certificate) or a
block without its END line is ``rollout_trust_invalid``. A key's id is the first 16
lowercase hex digits of sha256 of its raw 32 bytes.

:func:`verify` checks ``signature`` (standard base64 with padding of 64
bytes: exactly 88 characters) by the trusted key ``key_id`` over
``webhook-retry-policy artifact v1\\n<sha256 hex>`` (pure Ed25519, RFC 8032)
with the ``cryptography`` package (the ``rollout`` extra).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import stat
from collections.abc import Iterator, Mapping

from .._extras import require_extra

require_extra("rollout", ("cryptography",))

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey  # noqa: E402
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_pem_public_key  # noqa: E402

from .errors import RolloutError  # noqa: E402

__all__ = ["SIGNED_MESSAGE_PREFIX", "TrustedKeys", "key_id_of", "read_trust", "read_trust_file", "signed_message",
           "verify"]

SIGNED_MESSAGE_PREFIX = b"webhook-retry-policy artifact v1\n"
_BLOCK = re.compile(r"-----BEGIN PUBLIC KEY-----.*?-----END PUBLIC KEY-----", re.DOTALL)
_BEGIN = re.compile(r"-----BEGIN ([^\n]*?)-----")
_SHA256 = re.compile(r"[0-9a-f]{64}")
SIGNATURE_CHARS = 88
MAX_TRUST_BYTES = 1 << 20
"""A trust file larger than 1 MiB is refused (``rollout_trust_invalid``), never read whole."""


class TrustedKeys(Mapping[str, Ed25519PublicKey]):
    """The trusted Ed25519 public keys by key id, in the file's order (a key given twice counts once)."""

    def __init__(self, keys: Mapping[str, Ed25519PublicKey]) -> None:
        self._keys = dict(keys)

    def __getitem__(self, key_id: str) -> Ed25519PublicKey:
        return self._keys[key_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"TrustedKeys({list(self._keys)})"


def key_id_of(key: Ed25519PublicKey) -> str:
    """The key's id: the first 16 lowercase hex digits of sha256 of its raw 32 bytes."""
    return hashlib.sha256(key.public_bytes(Encoding.Raw, PublicFormat.Raw)).hexdigest()[:16]


def read_trust(text: str, source: str = "the trust file") -> TrustedKeys:
    """The Ed25519 public keys of a trust file's ``text``, or ``rollout_trust_invalid``."""
    blocks = _BLOCK.findall(text)
    if not blocks:
        raise RolloutError("rollout_trust_invalid", f"{source} holds no -----BEGIN PUBLIC KEY----- block")
    labels = _BEGIN.findall(text)
    other = [label for label in labels if label != "PUBLIC KEY"]
    if other:  # a private key or a certificate is never trusted by mistake, nor silently skipped
        raise RolloutError("rollout_trust_invalid", f"{source} holds a {other[0][:40]} block; a trust file holds "
                           "only PUBLIC KEY blocks")
    if len(labels) != len(blocks):
        raise RolloutError("rollout_trust_invalid", f"{source} holds a PUBLIC KEY block without its END line")
    keys: dict[str, Ed25519PublicKey] = {}
    for n, block in enumerate(blocks, 1):
        try:
            key = load_pem_public_key(block.encode("ascii"))
        except (ValueError, UnsupportedAlgorithm, UnicodeEncodeError) as e:
            raise RolloutError("rollout_trust_invalid", f"{source}: public key {n} cannot be read: {e}") from None
        if not isinstance(key, Ed25519PublicKey):
            raise RolloutError("rollout_trust_invalid",
                               f"{source}: public key {n} is not an Ed25519 key ({type(key).__name__})")
        keys.setdefault(key_id_of(key), key)
    return TrustedKeys(keys)


def read_trust_file(path: str) -> TrustedKeys:
    """:func:`read_trust` of the file at ``path`` (unreadable, not UTF-8, over 1 MiB: ``rollout_trust_invalid``)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a fifo never blocks the open
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise RolloutError("rollout_trust_invalid", f"cannot read {path}: not a regular file")
            data = os.read(fd, MAX_TRUST_BYTES + 1)
        finally:
            os.close(fd)
        if len(data) > MAX_TRUST_BYTES:
            raise RolloutError("rollout_trust_invalid", f"{path} is larger than {MAX_TRUST_BYTES} bytes")
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise RolloutError("rollout_trust_invalid", f"cannot read {path}: {e}") from None
    return read_trust(text, path)


def signed_message(artifact_sha256: str) -> bytes:
    """The 97 bytes the publisher signs: the prefix line, then the digest's 64 lowercase hex digits."""
    return SIGNED_MESSAGE_PREFIX + artifact_sha256.encode("ascii")


def _signature_bytes(signature_b64: str) -> bytes:
    if len(signature_b64) != SIGNATURE_CHARS:
        raise RolloutError("rollout_signature_invalid",
                           f"the signature is {len(signature_b64)} characters; standard base64 of 64 bytes is "
                           f"{SIGNATURE_CHARS}")
    try:
        raw = base64.b64decode(signature_b64, validate=True)
    except (binascii.Error, ValueError) as e:
        raise RolloutError("rollout_signature_invalid", f"the signature is not standard base64: {e}") from None
    if len(raw) != 64 or base64.b64encode(raw).decode("ascii") != signature_b64:
        raise RolloutError("rollout_signature_invalid",
                           f"the signature is not the canonical standard base64 of 64 bytes ({len(raw)} bytes)")
    return raw


def verify(trusted: Mapping[str, Ed25519PublicKey], key_id: str, signature_b64: str, artifact_sha256: str) -> None:
    """Return when ``signature_b64`` is ``key_id``'s valid signature of the artifact whose sha256 is
    ``artifact_sha256``; else :class:`RolloutError` ``rollout_key_unknown`` or ``rollout_signature_invalid``."""
    key = trusted.get(key_id)
    if key is None:
        raise RolloutError("rollout_key_unknown", f"key_id {key_id[:40]!r} is not a trusted key "
                           f"(trusted: {', '.join(trusted) or 'none'})")
    raw = _signature_bytes(signature_b64)
    if _SHA256.fullmatch(artifact_sha256) is None:
        raise RolloutError("rollout_signature_invalid", "the artifact digest is not 64 lowercase hex digits")
    try:
        key.verify(raw, signed_message(artifact_sha256))
    except InvalidSignature:
        raise RolloutError("rollout_signature_invalid",
                           f"the signature does not verify with key {key_id} over sha256 {artifact_sha256}") from None
