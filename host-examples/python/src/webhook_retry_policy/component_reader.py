"""The one small reader of a component file (docs/artifact.md, step 3).

wasmtime-py cannot run a component, so this package reads the container
itself: the header must be a component's (``\\0asm``, version ``0d 00``,
layer ``01 00``); the top-level sections are walked to the end of the file
(id byte, LEB128 size, body), custom sections (id 0) are read by name (at
most one of each name), and exactly one core module section (id 1) must
export ``cabi_realloc``: the main module, which the host compiles and runs.
Anything else raises :class:`ArtifactError` ``artifact_invalid`` naming what
was wrong and at which byte offset. :func:`append_custom_section` is the
inverse for custom sections (tests, and a "different artifact" with the
same code).
"""

from __future__ import annotations

from typing import NamedTuple

from .errors import ArtifactError

COMPONENT_HEADER = b"\0asm\x0d\x00\x01\x00"
MODULE_HEADER = b"\0asm\x01\x00\x00\x00"
CUSTOM, CORE_MODULE = 0, 1
_EXPORT = 7  # a core module's export section


class Component(NamedTuple):
    """What the host needs from a component file."""

    main_module: bytes  # the core module that exports ``cabi_realloc``
    main_exports: tuple[str, ...]  # the main module's export names
    custom: dict[str, bytes]  # top-level custom sections: name -> content


def _invalid(message: str, offset: int) -> ArtifactError:
    return ArtifactError("artifact_invalid", f"{message} at byte offset {offset}")


def _leb_u32(data: bytes | memoryview, at: int, end: int) -> tuple[int, int]:
    """An unsigned LEB128 u32 at ``at`` (at most 5 bytes): (value, next offset)."""
    value = shift = 0
    start = at
    while True:
        if at >= end:
            raise _invalid("truncated LEB128 number", start)
        b = data[at]
        at += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            break
        shift += 7
        if shift >= 35:
            raise _invalid("LEB128 number longer than 5 bytes", start)
    if value > 0xFFFF_FFFF:
        raise _invalid("LEB128 number past 32 bits", start)
    return value, at


def _name(data: bytes | memoryview, at: int, end: int) -> tuple[str, int]:
    n, p = _leb_u32(data, at, end)
    if p + n > end:
        raise _invalid(f"name of {n} bytes runs past its section", at)
    try:
        return bytes(data[p:p + n]).decode("utf-8"), p + n
    except UnicodeDecodeError:
        raise _invalid("name is not UTF-8", p) from None


def sections(data: bytes | memoryview, start: int, end: int) -> list[tuple[int, int, int]]:
    """(id, body offset, body end) of every section from ``start`` to ``end``."""
    out = []
    at = start
    while at < end:
        sid = data[at]
        size, body = _leb_u32(data, at + 1, end)
        if body + size > end:
            raise _invalid(f"section {sid} of {size} bytes runs past the end ({end - body} left)", at)
        out.append((sid, body, body + size))
        at = body + size
    return out


def module_exports(data: bytes | memoryview, start: int, end: int) -> list[str]:
    """The export names of the core module at ``data[start:end]``."""
    if bytes(data[start:start + 8]) != MODULE_HEADER:
        raise _invalid("core module section does not hold a core module", start)
    names: list[str] = []
    for sid, body, stop in sections(data, start + 8, end):
        if sid != _EXPORT:
            continue
        count, at = _leb_u32(data, body, stop)
        for _ in range(count):
            name, at = _name(data, at, stop)
            if at >= stop:
                raise _invalid("truncated export entry", at)
            _, at = _leb_u32(data, at + 1, stop)  # kind byte, then the index
            names.append(name)
    return names


def read_component(data: bytes) -> Component:
    """Walk a component file; raise ``artifact_invalid`` at the first problem."""
    view = memoryview(data)
    if len(data) < 8 or bytes(view[:4]) != b"\0asm":
        raise _invalid("not a WebAssembly file (no \\0asm header)", 0)
    if bytes(view[:8]) != COMPONENT_HEADER:
        if bytes(view[:8]) == MODULE_HEADER:
            raise _invalid("a core module, not a component (version 01 00 00 00)", 4)
        raise _invalid(f"not a component header (version/layer {bytes(view[4:8]).hex(' ')})", 4)
    custom: dict[str, bytes] = {}
    mains: list[tuple[int, int, list[str]]] = []
    for sid, body, end in sections(view, 8, len(data)):
        if sid == CUSTOM:
            name, at = _name(view, body, end)
            if name in custom:
                raise _invalid(f"a second custom section named {name!r}", body)
            custom[name] = bytes(view[at:end])
        elif sid == CORE_MODULE:
            exports = module_exports(view, body, end)
            if "cabi_realloc" in exports:
                mains.append((body, end, exports))
    if not mains:
        raise _invalid("no core module exports cabi_realloc (no main module)", len(data))
    if len(mains) > 1:
        raise _invalid(f"{len(mains)} core modules export cabi_realloc (one main module expected)", mains[1][0])
    body, end, exports = mains[0]
    return Component(bytes(view[body:end]), tuple(exports), custom)


def _leb(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def custom_section(name: str, content: bytes) -> bytes:
    """A custom section (id 0) holding ``content`` under ``name``."""
    raw = name.encode("utf-8")
    body = _leb(len(raw)) + raw + content
    return bytes([CUSTOM]) + _leb(len(body)) + body


def append_custom_section(data: bytes, name: str, content: bytes) -> bytes:
    """``data`` with one more top-level custom section (still a valid component)."""
    return data + custom_section(name, content)
