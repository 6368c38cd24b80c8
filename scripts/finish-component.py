#!/usr/bin/env python3
"""Turn the compiler's component into the shipped artifact (docs/artifact.md).

1. Drop the top-level `component-name` custom section: names only help
   debuggers, and custom sections carry no semantics, so the component stays
   valid.
2. Append the provenance section `webhook-retry-policy:build`: JSON with the
   policy-core version, the WIT package, and `source_digest`, the sha256 of
   the sources that go into the build (path, NUL, bytes, NUL for every file
   `git ls-files` lists under SOURCES, sorted by path). No time, host name or
   absolute path goes in, so two clean builds give one sha256.
3. Write the result to every OUT path (dist/ and the package copies).

Usage: finish-component.py IN OUT [OUT ...]
"""
import hashlib
import json
import pathlib
import re
import subprocess
import sys

# The component's own crates and the WIT (not Cargo.lock: host-only crates change it).
SOURCES = ["policy-core/src", "policy-core/Cargo.toml", "wasm/component", "wasm/alloc-classes/src",
           "wasm/alloc-classes/Cargo.toml", "wit"]
BUILD_SECTION = "webhook-retry-policy:build"
WIT_PACKAGE = "webhook:retry-policy@1.0.0"


def leb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def uleb(n):
    out = bytearray()
    while True:
        x, n = n & 0x7F, n >> 7
        out.append(x | (0x80 if n else 0))
        if not n:
            return bytes(out)


def custom_section(name, payload):
    body = uleb(len(name.encode())) + name.encode() + payload
    return b"\x00" + uleb(len(body)) + body


def source_digest(root):
    files = subprocess.run(["git", "ls-files", "-z", "--", *SOURCES], cwd=root, check=True,
                           capture_output=True).stdout.split(b"\0")
    untracked = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "--", *SOURCES], cwd=root,
                               check=True, capture_output=True, text=True).stdout.split()
    if untracked:
        # Built into the component but not in the digest: a commit of this
        # artifact would not be what a clean build of the commit gives.
        print(f"finish-component: warning: untracked sources are built but not digested: {' '.join(untracked)}; "
              "git add them and rebuild before committing the artifact (tests/artifact/reproducible)", file=sys.stderr)
    h = hashlib.sha256()
    for f in sorted(p for p in files if p):
        h.update(f + b"\0" + (root / f.decode()).read_bytes() + b"\0")
    return "sha256:" + h.hexdigest()


def core_version(root):
    text = (root / "Cargo.toml").read_text()
    m = re.search(r'^\[workspace\.package\][^\[]*?^version\s*=\s*"([^"]+)"', text, re.M | re.S)
    return m.group(1) if m else "unknown"


def main(src, outs):
    root = pathlib.Path(__file__).resolve().parent.parent
    data = open(src, "rb").read()
    if data[:4] != b"\0asm" or data[4:8] != b"\x0d\x00\x01\x00":
        sys.exit(f"{src}: not a component")
    out, i = bytearray(data[:8]), 8
    while i < len(data):
        start, sid = i, data[i]
        size, body = leb(data, i + 1)
        i = body + size
        if sid == 0:
            n, j = leb(data, body)
            if data[j : j + n] in (b"component-name", BUILD_SECTION.encode()):
                continue
        out += data[start:i]
    build = {"policy_core_version": core_version(root), "wit_package": WIT_PACKAGE,
             "source_digest": source_digest(root)}
    out += custom_section(BUILD_SECTION, json.dumps(build, separators=(",", ":"), sort_keys=True).encode())
    for dst in outs:
        pathlib.Path(dst).parent.mkdir(parents=True, exist_ok=True)
        open(dst, "wb").write(out)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
