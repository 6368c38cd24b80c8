"""The follower's two component calls (docs/rollout.md "The follower in the
component"): ``rollout-open`` and ``rollout-step``, JSON text across, on this
thread's instance of the ACTIVE artifact (``instance.current``): after a swap
the next step runs on the new artifact, the state text carrying over.

A refusal (``result`` error ``code: sentence``) is :class:`RolloutError`; an
answer that is not the documented JSON is :class:`PolicyTrap` (a bug).
"""

from __future__ import annotations

import json
from typing import Any

from .._generated.abi import GuestError
from ..errors import PolicyTrap
from ..instance import current
from .errors import ROLLOUT_CODES, RolloutError

__all__ = ["open_follower", "step"]

_dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


def _run(name: str, fields: set[str], *args: str) -> dict[str, Any]:
    """``name(*args)``'s answer: an object with exactly ``fields``, its ``state`` a string."""
    try:
        text = current().run(name, *args)
    except GuestError as e:
        code, _, message = str(e).partition(": ")
        if code not in ROLLOUT_CODES:
            raise PolicyTrap(f"`{name}` refused with an unknown code: {str(e)[:200]}") from None
        raise RolloutError(code, message) from None
    try:
        answer = json.loads(text)
    except ValueError as e:
        raise PolicyTrap(f"`{name}` answered text that is not JSON: {e}") from None
    if not isinstance(answer, dict) or set(answer) != fields or not isinstance(answer["state"], str):
        raise PolicyTrap(f"`{name}` answered {text[:200]}, not an object of {', '.join(sorted(fields))}")
    return answer


def open_follower(config: dict[str, Any]) -> tuple[str, list[str]]:
    """``rollout-open(config)``: the first state text and the trusted key ids."""
    answer = _run("rollout-open", {"state", "key_ids"}, _dumps(config))
    return answer["state"], list(answer["key_ids"])


def step(state: str, given: dict[str, Any]) -> dict[str, Any]:
    """``rollout-step(state, input)``: ``{"state", "call", "log", "refused", "swapped"}``."""
    return _run("rollout-step", {"state", "call", "log", "refused", "swapped"}, state, _dumps(given))
