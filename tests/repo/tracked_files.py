"""Build outputs never go into git: the check behind tests/repo/tracked-files.

A tracked file fails when it is an executable binary (ELF, Mach-O, PE) or
larger than 1 MB, unless its path is on the short allow-list below. The
check reads the blobs of the git index (what a commit would carry), not the
working tree.

    python3 tests/repo/tracked_files.py [REPO]     exit 1 on any failure
"""

from __future__ import annotations

import fnmatch
import subprocess
import sys
import threading
from pathlib import Path
from typing import Iterator, List, Tuple

LIMIT_BYTES = 1_000_000

# Large files that belong in git, by path or glob. Keep it short: the four
# committed artifact copies (each package ships the component; today
# 166 KB each) and the shared conformance vectors (today at most 163 KB).
ALLOWED_LARGE = (
    "host-examples/rust/artifact/retry_policy.wasm",
    "host-examples/node/lib/retry_policy.wasm",
    "host-examples/python/src/webhook_retry_policy/retry_policy.wasm",
    "host-examples/go/retrypolicy/retry_policy.wasm",
    "tests/vectors*/*.json",
)

HEAD_BYTES = 4096


def executable_format(head: bytes) -> str | None:
    """The executable format a file's first bytes announce, or None."""
    if head.startswith(b"\x7fELF"):
        return "ELF"
    if head[:4] in (b"\xfe\xed\xfa\xce", b"\xce\xfa\xed\xfe", b"\xfe\xed\xfa\xcf", b"\xcf\xfa\xed\xfe"):
        return "Mach-O"
    # A universal (fat) Mach-O starts 0xcafebabe, as a Java class file does;
    # a fat header's next word is a small architecture count, a class
    # file's is its version (>= 45), so the count tells them apart.
    if head[:4] == b"\xca\xfe\xba\xbe" and len(head) >= 8 and 0 < int.from_bytes(head[4:8], "big") < 45:
        return "Mach-O (universal)"
    if head[:2] == b"MZ" and len(head) >= 0x40:
        pe = int.from_bytes(head[0x3C:0x40], "little")
        if pe + 4 <= len(head) and head[pe : pe + 4] == b"PE\x00\x00":
            return "PE"
    return None


def allowed_large(path: str) -> bool:
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in ALLOWED_LARGE)


def tracked_blobs(repo: Path) -> Iterator[Tuple[str, int, bytes]]:
    """(path, size, first bytes) of every file in the git index."""
    listing = subprocess.run(
        ["git", "-C", str(repo), "ls-files", "-s", "-z"], check=True, capture_output=True
    ).stdout
    entries: List[Tuple[str, str]] = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, path = record.split(b"\t", 1)
        mode, oid, _stage = meta.split(b" ")
        if mode == b"160000":  # a submodule: a commit, not a file
            continue
        entries.append((path.decode("utf-8", "surrogateescape"), oid.decode()))
    if not entries:
        return
    request = "".join(oid + "\n" for _, oid in entries).encode()
    with subprocess.Popen(
        ["git", "-C", str(repo), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as batch:
        assert batch.stdin is not None and batch.stdout is not None
        # Written from a thread: git answers while it reads, and a large
        # request could fill both pipes.
        writer = threading.Thread(target=lambda: (batch.stdin.write(request), batch.stdin.close()))
        writer.start()
        for path, oid in entries:
            header = batch.stdout.readline().split()
            if len(header) != 3:
                raise RuntimeError(f"git cat-file: no blob {oid} for {path}")
            size = int(header[2])
            body = batch.stdout.read(size + 1)[:size]  # the blob, then a newline
            yield path, size, body[:HEAD_BYTES]
        writer.join()
    if batch.returncode != 0:
        raise RuntimeError("git cat-file --batch failed")


def problems(repo: Path) -> Tuple[List[str], int, int]:
    """(one line per offending file, files checked, bytes tracked)."""
    found: List[str] = []
    files = total = 0
    for path, size, head in tracked_blobs(repo):
        files += 1
        total += size
        kind = executable_format(head)
        if kind is not None:
            found.append(f"{path}: an executable binary ({kind}, {size} bytes): build outputs never go into git")
        elif size > LIMIT_BYTES and not allowed_large(path):
            found.append(f"{path}: {size} bytes, over the {LIMIT_BYTES}-byte limit and not on the allow-list")
    return found, files, total


def main(argv: List[str]) -> int:
    repo = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[2]
    found, files, total = problems(repo)
    for line in found:
        print(f"FAIL {line}")
    print(f"tracked files: {files} files, {total} bytes, {len(found)} refused")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
