"""Keep secrets out of logs, dead letters, metrics and error messages.

* :func:`redact_url`: ``scheme://host[:port]/path``: no user or password,
  no query string, no fragment (webhook URLs carry tokens there; Redis URLs
  carry passwords in the userinfo).
* :func:`redact`: the same for every URL inside free text, plus
  ``whsec_`` secrets and ``Authorization``/``Bearer`` values.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import urlsplit

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")
_SECRET = re.compile(r"whsec_[A-Za-z0-9+/=]+")
_AUTH = re.compile(r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?(?:(?:bearer|basic|token)\s+)?|bearer\s+|basic\s+)[^\s'\",}]+")


def redact_url(url: str) -> str:
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return "<unparsable url>"
    if ":" in host:
        host = f"[{host}]"
    userinfo = "<redacted>@" if parts.username is not None or parts.password is not None else ""
    query = "?<redacted>" if parts.query else ""
    return f"{parts.scheme}://{userinfo}{host}{port}{parts.path}{query}"


def redact(text: str) -> str:
    text = _URL.sub(lambda m: redact_url(m.group(0)), text)
    text = _SECRET.sub("whsec_<redacted>", text)
    return _AUTH.sub(lambda m: m.group(1) + "<redacted>", text)


class RedactingFilter:
    """A ``logging`` filter that redacts every record's message (installed
    on the ``httpx`` logger, which logs full request URLs at INFO)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, ()
        return True


_FILTER = RedactingFilter()


def install_log_redaction(*names: str) -> None:
    """Redact the records of the named loggers (idempotent)."""
    for name in names:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
