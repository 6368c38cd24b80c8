"""The rollout's optional dependency (the ``rollout`` extra: ``cryptography``
for Ed25519), checked before :mod:`.trust` imports it, so that a missing one
is ONE line naming the extra rather than a ``ModuleNotFoundError`` traceback.

Run as a program the line goes to stderr and the exit status is 2 (the
replica turns it into its usage error); imported as a library, it is a
``ModuleNotFoundError`` carrying the same message.
"""

from __future__ import annotations

import importlib.util
import sys

INSTALL = "pip install 'webhook-retry-policy[rollout]'"
MODULES = ("cryptography",)


def missing_modules() -> list[str]:
    """The extra's modules that cannot be imported here."""
    return [m for m in MODULES if importlib.util.find_spec(m) is None]


def missing_message() -> str | None:
    """The one line naming the extra, or None when it is installed."""
    missing = missing_modules()
    if not missing:
        return None
    return (f"webhook_retry_policy.rollout needs the 'rollout' extra (missing: {', '.join(missing)}): "
            f"{INSTALL}")


def require_rollout_extra() -> None:
    message = missing_message()
    if message is None:
        return
    if sys.argv[:1] == ["-m"]:  # `python -m ...` is locating its module: a program is being run
        print(message, file=sys.stderr)
        raise SystemExit(2)
    raise ModuleNotFoundError(message, name=MODULES[0])
