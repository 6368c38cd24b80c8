"""The command line of ``replica`` and ``replica replay`` (docs/replica.md
"Flags", docs/health-dispatch.md section 4), judged once, by the artifact's
``replica-args`` (``..replica_args``; policy-core's ``replica_args``): the
flags, their values, defaults, ranges and the rules across them are the
component's; this module keeps only what needs the host.

:func:`run` is both commands' entry: ``--help`` / ``-h`` and ``--version``
print on stdout and exit 0, and a ``--flag`` neither command has exits 2,
all before the artifact loads (the GENERATED usage texts and flag names);
then the artifact loads (``--artifact``, else ``$RETRY_POLICY_ARTIFACT``,
else the package's copy; refused: exit 2) and judges the arguments: its
line, or the command's body on every setting resolved (an attribute per
flag, ``metrics_addr`` a ``(host, port)``). A body's :class:`UsageError`
(an unreadable file a flag names, a setup step refused) also exits 2 with
one line; its result is the one JSON line on stdout.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from types import SimpleNamespace
from typing import Any

from .._generated.usage import FLAG_NAMES, REPLAY_USAGE, REPLICA_USAGE
from ..artifact import ARTIFACT_ENV, current_artifact, swap_artifact
from ..errors import ArtifactError
from ..redact import redact
from ..replica_args import ReplicaArgsRefused, replica_args
from .tally import HOST

EXTRAS: tuple[str, ...] = ()
"""The language extras (policy-core's flag table) this replica honours: none; the component refuses each, naming it."""


class UsageError(Exception):
    """Bad arguments or setup of ``replica`` / ``replica replay``: one line on stderr, exit 2."""


def version_line() -> str:
    """``replica (python) <the installed distribution's version, else pyproject.toml's, else unknown>``."""
    from importlib import metadata

    with suppress(metadata.PackageNotFoundError):
        return f"replica ({HOST}) {metadata.version('webhook-retry-policy')}"
    import tomllib
    from pathlib import Path

    try:
        pyproject = Path(__file__).resolve().parents[3] / "pyproject.toml"
        return f"replica ({HOST}) {tomllib.loads(pyproject.read_text('utf-8'))['project']['version']}"
    except (OSError, KeyError, ValueError):
        return f"replica ({HOST}) unknown"


def early(command: str, argv: Sequence[str]) -> str | None:
    """What ``argv`` prints on stdout before anything loads (the usage of ``command``, the version line), else
    None; a ``--flag`` no command has is a :class:`UsageError`, the component's line."""
    if "--help" in argv or "-h" in argv:
        return REPLAY_USAGE if command == "replay" else REPLICA_USAGE
    if "--version" in argv:
        return version_line() + "\n"
    for arg in argv:
        if arg.startswith("--") and arg.partition("=")[0] not in FLAG_NAMES:
            raise UsageError(f"unknown argument {json.dumps(arg, ensure_ascii=False)}")
    return None


def _artifact_arg(argv: Sequence[str]) -> str | None:
    """The ``--artifact`` value in ``argv`` (``--artifact PATH`` or ``--artifact=PATH``), before the judgement."""
    for i, arg in enumerate(argv):
        if arg == "--artifact":
            return argv[i + 1] if i + 1 < len(argv) else None
        if arg.startswith("--artifact="):
            return arg.removeprefix("--artifact=") or None
    return None


def settings(command: str, argv: Sequence[str]) -> SimpleNamespace:
    """Load the artifact, then let it judge ``argv``: every setting of ``command`` resolved."""
    try:
        path = _artifact_arg(argv)
        if path is not None:
            swap_artifact(path)
        current_artifact()
    except ArtifactError as e:
        raise UsageError(f"policy artifact refused: {e}") from None
    request = {"command": command, "args": list(argv), "extras": list(EXTRAS),
               "replica_id": f"{HOST}-{socket.gethostname()}-{os.getpid()}",
               "artifact_env": os.environ.get(ARTIFACT_ENV) or None}
    try:
        answer = replica_args(request)
    except ReplicaArgsRefused as e:
        raise UsageError(str(e)) from None
    answer.pop("command")
    if isinstance(answer.get("metrics_addr"), dict):
        answer["metrics_addr"] = (answer["metrics_addr"]["host"], answer["metrics_addr"]["port"])
    return SimpleNamespace(**answer)


def run(command: str, argv: Sequence[str], body: Callable[[SimpleNamespace], dict[str, Any]]) -> int:
    """``command``'s exit code: 0 after printing ``body``'s one JSON line (or the help or version), 2 after one
    line on stderr naming what is wrong (redacted)."""
    name = "replica replay" if command == "replay" else "replica"
    try:
        text = early(command, argv)
        if text is None:
            text = json.dumps(body(settings(command, argv)), separators=(",", ":")) + "\n"
    except UsageError as e:
        print(f"{name}: {redact(str(e))} ({name} --help lists the flags)", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0
