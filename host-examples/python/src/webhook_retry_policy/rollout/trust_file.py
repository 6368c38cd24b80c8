"""The ``--trust-key`` file (docs/rollout.md "Trust"): read here, judged by
the component. A regular file of at most 1 MiB of UTF-8; anything else
(missing, a directory, a fifo, a device, larger, not UTF-8) is
``rollout_trust_invalid`` naming the file, refused without reading it whole
and without blocking. What its text holds (PEM blocks, Ed25519 public keys)
is ``rollout-open``'s to read (:class:`~.follower.Follower`).
"""

from __future__ import annotations

import os
import stat

from .errors import RolloutError

__all__ = ["MAX_TRUST_BYTES", "read_trust_file"]

MAX_TRUST_BYTES = 1 << 20
"""A trust file larger than 1 MiB is refused (``rollout_trust_invalid``), never read whole."""


def read_trust_file(path: str) -> str:
    """The text of the trust file at ``path``, or :class:`RolloutError` ``rollout_trust_invalid``."""
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
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise RolloutError("rollout_trust_invalid", f"cannot read {path}: {e}") from None
