"""The dispatcher's optional dependencies (the ``dispatcher`` extra: httpx,
which brings httpcore, and prometheus-client), checked before any of its
modules imports them, so that a missing one is ONE line naming the extra
rather than a ``ModuleNotFoundError`` traceback from deep inside.

Importing this module runs the check. Run as a program (``python -m webhook_retry_policy.dispatcher.demo`` or
``.replica``) the line goes to stderr and the exit status is 2; imported as
a library, it is a ``ModuleNotFoundError`` carrying the same message.
"""

from __future__ import annotations

import importlib.util
import sys

INSTALL = "pip install 'webhook-retry-policy[dispatcher]'"
MODULES = ("httpx", "httpcore", "prometheus_client")


def missing_modules() -> list[str]:
    """The extra's modules that cannot be imported here."""
    return [m for m in MODULES if importlib.util.find_spec(m) is None]


def require_dispatcher_extra() -> None:
    missing = missing_modules()
    if not missing:
        return
    message = (f"webhook_retry_policy.dispatcher needs the 'dispatcher' extra (missing: {', '.join(missing)}): "
               f"{INSTALL}")
    # While `python -m PACKAGE.MODULE` locates its module (importing the
    # parent packages, this one included), sys.argv[0] is "-m" (the
    # interpreter's documented behaviour): the dispatcher is being run.
    if sys.argv[:1] == ["-m"]:
        print(message, file=sys.stderr)
        raise SystemExit(2)
    raise ModuleNotFoundError(message, name=missing[0])


require_dispatcher_extra()
