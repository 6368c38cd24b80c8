"""Step 1 of docs/artifact.md: the pin's form, then the artifact's bytes, bounded.

Only a regular file is read (opened non-blocking, so a fifo never blocks
the open, then judged by ``fstat``): ``/dev/zero``, a fifo, a directory or
a socket is ``artifact_unreadable`` without a byte read. A regular file
longer than :data:`MAX_ARTIFACT_BYTES` is ``artifact_too_large`` from its
size alone, and the read stops at the cap + 1 byte, so a file that grows
while it is read (or whose size ``stat`` does not know) is refused the same
way.
"""

from __future__ import annotations

import os
import re
import stat

from .errors import ArtifactError

MAX_ARTIFACT_BYTES = 4 * 1024 * 1024
"""The most bytes an artifact may have: 4 MiB, the same in every host (tests/vectors-artifact)."""

SHA256_ENV = "RETRY_POLICY_ARTIFACT_SHA256"
_PIN = re.compile(r"[0-9a-fA-F]{64}")


def _too_large(source: str, size: int | None) -> ArtifactError:
    what = f"has more than {MAX_ARTIFACT_BYTES}" if size is None else f"is {size}"
    return ArtifactError("artifact_too_large",
                         f"{source} {what} bytes; an artifact is at most {MAX_ARTIFACT_BYTES} bytes (4 MiB)")


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a fifo"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"


def read_artifact_file(path: str) -> bytes:
    """The bytes of the artifact file at ``path``, at most :data:`MAX_ARTIFACT_BYTES`."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as e:
        raise ArtifactError("artifact_unreadable", f"cannot read {path}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ArtifactError("artifact_unreadable", f"cannot read {path}: not a regular file ({_kind(st.st_mode)})")
        if st.st_size > MAX_ARTIFACT_BYTES:
            raise _too_large(path, st.st_size)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_ARTIFACT_BYTES + 1)  # to the end, or to the cap + 1 byte (a file that grew)
        if len(data) > MAX_ARTIFACT_BYTES:
            raise _too_large(path, None)
        return data
    except OSError as e:
        raise ArtifactError("artifact_unreadable", f"cannot read {path}: {e.strerror or e}") from None
    finally:
        os.close(fd)


def check_size(data: bytes, source: str) -> None:
    """``artifact_too_large`` when ``data`` (from ``source``) exceeds the cap."""
    if len(data) > MAX_ARTIFACT_BYTES:
        raise _too_large(source, len(data))


def pin_of(expected: str | None) -> str | None:
    """The pin: the caller's when given and not empty, else ``RETRY_POLICY_ARTIFACT_SHA256`` when set and
    not empty, else None. It must be 64 hex digits, either case (``artifact_pin_invalid``); returned lower case."""
    given = expected if expected else (os.environ.get(SHA256_ENV) or None)
    if given is None:
        return None
    if not isinstance(given, str) or _PIN.fullmatch(given) is None:
        raise ArtifactError("artifact_pin_invalid",
                            f"the pin {str(given)[:80]!r} is not a sha256: expected 64 hex digits (either case)")
    return given.lower()
