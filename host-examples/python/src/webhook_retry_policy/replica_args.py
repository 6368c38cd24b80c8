"""The component's ``replica-args`` (wit/retry-policy.wit; policy-core's
``replica_args``): a replica's command line judged inside the artifact, on
this thread's instance of the ACTIVE artifact (``instance.current``).

The request and the answer are JSON text (the request as ASCII JSON: an
argument that is not UTF-8 reaches the component as an escape it refuses,
never a crash here). The component's refusal, the one line a replica prints
before it exits 2, is :class:`ReplicaArgsRefused`; an answer that is not a
JSON object with a ``command`` is :class:`PolicyTrap` (a bug).
"""

from __future__ import annotations

import json
from typing import Any

from ._generated.abi import GuestError
from .errors import PolicyTrap
from .instance import current

__all__ = ["ReplicaArgsRefused", "replica_args"]


class ReplicaArgsRefused(ValueError):
    """The component's one line naming what is wrong with the arguments."""


def replica_args(request: dict[str, Any]) -> dict[str, Any]:
    """``replica-args(request)``: ``{"command": "help" | "version"}`` or every setting of the command resolved."""
    try:
        text = current().run("replica-args", json.dumps(request, allow_nan=False, separators=(",", ":")))
    except GuestError as e:
        raise ReplicaArgsRefused(str(e)) from None
    try:
        answer = json.loads(text)
    except ValueError as e:
        raise PolicyTrap(f"`replica-args` answered text that is not JSON: {e}") from None
    if not isinstance(answer, dict) or not isinstance(answer.get("command"), str):
        raise PolicyTrap(f"`replica-args` answered {text[:200]}, not an object with a command")
    return answer
