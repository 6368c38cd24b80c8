"""The optional dependencies of a subpackage (its extra: ``dispatcher``:
httpx, which brings httpcore, and prometheus-client), checked before any of
its modules imports them, so that a missing one is ONE line naming the extra rather than a
``ModuleNotFoundError`` traceback from deep inside.

Run as a program (``python -m webhook_retry_policy.dispatcher.demo`` or
``.replica``) the line goes to stderr and the exit status is 2; imported as a library, it is a
``ModuleNotFoundError`` carrying the same message.
"""

from __future__ import annotations

import importlib.util
import sys


def require_extra(extra: str, modules: tuple[str, ...]) -> None:
    """Return when every module of ``extra`` (also the subpackage's name) can be imported here."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if not missing:
        return
    message = (f"webhook_retry_policy.{extra} needs the '{extra}' extra (missing: {', '.join(missing)}): "
               f"pip install 'webhook-retry-policy[{extra}]'")
    # While `python -m PACKAGE.MODULE` locates its module (importing the
    # parent packages, this one included), sys.argv[0] is "-m" (the
    # interpreter's documented behaviour): a program is being run.
    if sys.argv[:1] == ["-m"]:
        print(message, file=sys.stderr)
        raise SystemExit(2)
    raise ModuleNotFoundError(message, name=missing[0])
