"""TLS trust of the dispatcher (docs/replica.md "HTTPS"): the platform's
trust store PLUS the CAs of ``--ca-file`` (both, never either), for
``https://`` targets and ``rediss://`` stores alike; verification is never
turned off (there is no way to ask for it).

* :func:`read_ca_file`: the PEM text of a CA file, or :class:`CaFileError`
  naming the file (unreadable, or no PEM certificate in it: exit 2).
* :func:`client_ssl_context`: an ``ssl.SSLContext`` with the platform's
  certificates (``load_default_certs``) and the extra CAs, host names
  checked.
* :func:`is_certificate_failure`: whether an exception (or anything it was
  raised from) is a certificate that failed verification (untrusted issuer,
  name mismatch, expired, not yet valid): the transport kind
  ``tls_certificate``; any other handshake failure is not.
"""

from __future__ import annotations

import ssl

PEM_CERTIFICATE = "-----BEGIN CERTIFICATE-----"


class CaFileError(Exception):
    """A ``--ca-file`` that cannot be used; the message names the file."""


def read_ca_file(path: str) -> str:
    """The PEM text of ``path``, checked: readable, UTF-8/ASCII, at least one
    PEM certificate that the TLS library accepts."""
    try:
        with open(path, encoding="ascii") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise CaFileError(f"--ca-file {path}: cannot be read ({e})") from None
    if PEM_CERTIFICATE not in text:
        raise CaFileError(f"--ca-file {path}: holds no PEM certificate")
    try:
        ssl.create_default_context().load_verify_locations(cadata=text)
    except (ssl.SSLError, ValueError) as e:
        raise CaFileError(f"--ca-file {path}: not a usable PEM certificate ({e})") from None
    return text


def client_ssl_context(ca_pem: str | None = None) -> ssl.SSLContext:
    """A verifying client context: the platform trust store, plus ``ca_pem``."""
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)  # it loads the defaults (load_default_certs)
    if ca_pem is not None:
        context.load_verify_locations(cadata=ca_pem)
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    return context


def is_certificate_failure(exc: BaseException) -> bool:
    """True when ``exc`` or an exception in its cause/context chain is
    ``ssl.SSLCertVerificationError`` (httpx wraps it twice in ConnectError)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ssl.SSLCertVerificationError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False
