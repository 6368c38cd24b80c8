"""The rollout record and the canary rule (docs/rollout.md "The rollout
record", "Which artifact a replica runs").

:func:`read_record` parses the record's text with :mod:`json`, checks every
rule, writes the canonical text of what it read (:func:`canonical_text`)
and refuses the record unless the two are byte-equal: an unknown or missing
field, a wrong type, ``1.0`` for ``1``, a duplicate key, whitespace, another
key order or a bad digest are all ``rollout_record_invalid``, and so is a
newer publisher's ``"v":2`` (never half-read).

:func:`bucket` is sha256 of the replica id's UTF-8, its first four bytes
big-endian, modulo 100; :func:`desired` is the canary's sha256 when the
record has a canary and the bucket is below its percent, else ``stable``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from .errors import RolloutError

__all__ = ["MAX_PREVIOUS", "MAX_RECORD_BYTES", "MAX_EPOCH", "Canary", "RolloutRecord", "bucket", "canonical_text",
           "desired", "read_record"]

MAX_RECORD_BYTES = 4096
MAX_EPOCH = 2**53 - 1
MAX_PREVIOUS = 5
_SHA256 = re.compile(r"[0-9a-f]{64}")
_FIELDS = ("v", "epoch", "stable", "canary", "previous")
_CANARY_FIELDS = ("sha256", "percent")


@dataclass(frozen=True)
class Canary:
    """The artifact a share of the fleet runs: replicas whose bucket is below ``percent``."""

    sha256: str
    percent: int


@dataclass(frozen=True)
class RolloutRecord:
    """A checked rollout record (``v`` is always 1)."""

    epoch: int
    stable: str
    canary: Canary | None
    previous: tuple[str, ...]


def bucket(replica_id: str) -> int:
    """The replica's bucket, 0..99: the first 4 bytes of sha256(UTF-8 of ``replica_id``), big-endian, mod 100."""
    return int.from_bytes(hashlib.sha256(replica_id.encode("utf-8")).digest()[:4], "big") % 100


def desired(record: RolloutRecord, replica_id: str) -> str:
    """The sha256 the replica ``replica_id`` should run under ``record``."""
    if record.canary is not None and bucket(replica_id) < record.canary.percent:
        return record.canary.sha256
    return record.stable


def canonical_text(record: RolloutRecord) -> str:
    """The record's one canonical text: the fields in order, no whitespace, plain decimal integers."""
    canary = None if record.canary is None else {"sha256": record.canary.sha256, "percent": record.canary.percent}
    return json.dumps({"v": 1, "epoch": record.epoch, "stable": record.stable, "canary": canary,
                       "previous": list(record.previous)}, separators=(",", ":"))


def _invalid(why: str) -> RolloutError:
    return RolloutError("rollout_record_invalid", why)


def _int(value: Any, name: str, low: int, high: int) -> int:
    if type(value) is not int:  # bool is an int in Python, 1.0 a float: both refused here
        raise _invalid(f"{name} must be an integer, not {json.dumps(value)[:40]}")
    if not low <= value <= high:
        raise _invalid(f"{name} must be in {low}..{high}, not {value}")
    return value


def _sha(value: Any, name: str) -> str:
    if not isinstance(value, str) or _SHA256.fullmatch(value) is None:
        raise _invalid(f"{name} must be a sha256 (64 lowercase hex digits), not {json.dumps(value)[:80]}")
    return value


def _fields(value: Any, name: str, fields: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _invalid(f"{name} must be an object")
    if tuple(value) != fields:
        raise _invalid(f"{name} must have exactly the fields {', '.join(fields)} in that order, "
                       f"not {', '.join(value)[:200] or 'none'}")
    return value


def _checked(value: Any) -> RolloutRecord:
    obj = _fields(value, "the record", _FIELDS)
    _int(obj["v"], "v", 1, 1)
    epoch = _int(obj["epoch"], "epoch", 1, MAX_EPOCH)
    stable = _sha(obj["stable"], "stable")
    canary: Canary | None = None
    if obj["canary"] is not None:
        c = _fields(obj["canary"], "canary", _CANARY_FIELDS)
        canary = Canary(_sha(c["sha256"], "canary.sha256"), _int(c["percent"], "canary.percent", 1, 100))
        if canary.sha256 == stable:
            raise _invalid("canary.sha256 must differ from stable")
    if not isinstance(obj["previous"], list):
        raise _invalid("previous must be an array")
    if len(obj["previous"]) > MAX_PREVIOUS:
        raise _invalid(f"previous holds at most {MAX_PREVIOUS} sha256s, not {len(obj['previous'])}")
    previous = tuple(_sha(p, f"previous[{i}]") for i, p in enumerate(obj["previous"]))
    if stable in previous:
        raise _invalid("previous must not name stable")
    return RolloutRecord(epoch, stable, canary, previous)


def read_record(text: str | bytes) -> RolloutRecord:
    """The record in ``text`` (as stored under ``retry-policy:{rollout}:state``), or
    :class:`RolloutError` ``rollout_record_invalid`` naming the first rule it breaks."""
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    if len(data) > MAX_RECORD_BYTES:
        raise _invalid(f"the record is {len(data)} bytes; at most {MAX_RECORD_BYTES}")
    try:
        decoded = data.decode("utf-8")
        value = json.loads(decoded)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise _invalid(f"the record is not JSON: {e}") from None
    record = _checked(value)
    if canonical_text(record) != decoded:
        raise _invalid("the record is not in its canonical text (no whitespace, no duplicate keys, "
                       "plain decimal integers, the fields in order)")
    return record
