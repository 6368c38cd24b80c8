"""The component's main core module, extracted from the component binary.

A component binary is a preamble (``\\0asm``, version 0x0d, layer 1)
followed by sections ``id, size (LEB128 u32), payload``; a section of id 1
is a whole core module. The main one is the module that exports
``webhook:retry-policy/policy@0.1.0#decide-with`` and ``cabi_realloc``
(the others are the small shim/fixup modules wit-component generates for
lowered imports). Compiled once per process and binary.
"""

from __future__ import annotations

import threading

import wasmtime

from . import loader

COMPONENT_PREAMBLE = b"\x00asm\x0d\x00\x01\x00"
CORE_MODULE_SECTION = 1
DECIDE_WITH = "webhook:retry-policy/policy@0.1.0#decide-with"
POST_DECIDE_WITH = "cabi_post_webhook:retry-policy/policy@0.1.0#decide-with"
REALLOC = "cabi_realloc"

_lock = threading.Lock()
_modules: dict[bytes, wasmtime.Module] = {}


class ComponentFormatError(ValueError):
    """The binary is not a component with the expected main module."""


def _leb_u32(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 28:
            raise ComponentFormatError("truncated or overlong LEB128 size")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def core_modules(component: bytes) -> list[bytes]:
    """Every top-level core module (section id 1) of a component binary."""
    if not component.startswith(COMPONENT_PREAMBLE):
        raise ComponentFormatError("not a component binary (bad preamble)")
    pos, found = len(COMPONENT_PREAMBLE), []
    while pos < len(component):
        section_id = component[pos]
        size, pos = _leb_u32(component, pos + 1)
        if pos + size > len(component):
            raise ComponentFormatError(f"section {section_id} runs past the end of the binary")
        if section_id == CORE_MODULE_SECTION:
            found.append(component[pos : pos + size])
        pos += size
    return found


def main_module(wasm_path: str | None = None) -> wasmtime.Module:
    """The compiled main core module of the component."""
    data = loader.component_bytes(wasm_path)
    engine = loader.engine()
    with _lock:
        cached = _modules.get(data)
        if cached is not None:
            return cached
        for raw in core_modules(data):
            module = wasmtime.Module(engine, raw)
            names = {e.name for e in module.exports}
            if {DECIDE_WITH, POST_DECIDE_WITH, REALLOC, "memory"} <= names:
                _modules[data] = module
                return module
    raise ComponentFormatError(f"no core module exports {DECIDE_WITH} and {REALLOC}")
