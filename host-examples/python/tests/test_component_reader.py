"""The one container reader (docs/artifact.md step 3): the shipped component
parses to one main module; truncated, oversized, duplicate-section,
module-instead-of-component and main-less inputs are ``artifact_invalid``
with a byte offset; appending a custom section is its exact inverse."""

from __future__ import annotations

from pathlib import Path

import pytest
import wasmtime

from webhook_retry_policy.component_reader import (
    COMPONENT_HEADER,
    CORE_MODULE,
    _leb,
    append_custom_section,
    custom_section,
    read_component,
)
from webhook_retry_policy.errors import ArtifactError

SHIPPED = Path(__file__).resolve().parent.parent / "src" / "webhook_retry_policy" / "retry_policy.wasm"


@pytest.fixture(scope="module")
def shipped() -> bytes:
    return SHIPPED.read_bytes()


def section(sid: int, body: bytes) -> bytes:
    return bytes([sid]) + _leb(len(body)) + body


def module(wat: str) -> bytes:
    return wasmtime.wat2wasm(wat)


def invalid(data: bytes) -> str:
    with pytest.raises(ArtifactError) as e:
        read_component(data)
    assert e.value.code == "artifact_invalid"
    assert "at byte offset" in e.value.message
    return e.value.message


def test_the_shipped_component_has_one_main_module_with_the_policy_exports(shipped):
    c = read_component(shipped)
    assert c.main_module.startswith(b"\0asm\x01\x00\x00\x00")
    assert "cabi_realloc" in c.main_exports and "webhook:retry-policy/policy@1.0.0#decide" in c.main_exports
    assert "webhook-retry-policy:build" in c.custom
    wasmtime.Module(wasmtime.Engine(), c.main_module)  # a module wasmtime accepts


def test_every_truncation_of_the_component_is_refused_never_a_crash(shipped):
    cuts = sorted({1, 4, 7, 8, 9, 10, 11, 100, len(shipped) // 2, len(shipped) - 1} | set(range(8, 40)))
    for cut in cuts:
        invalid(shipped[:cut])


def test_a_section_size_past_the_end_of_the_file_is_refused_with_its_offset():
    msg = invalid(COMPONENT_HEADER + bytes([0]) + _leb(1000) + b"\x01a")
    assert "runs past the end" in msg and "offset 8" in msg


def test_a_leb128_size_longer_than_five_bytes_is_refused():
    assert "longer than 5 bytes" in invalid(COMPONENT_HEADER + bytes([0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]))


def test_two_custom_sections_of_the_same_name_are_refused(shipped):
    once = append_custom_section(shipped, "webhook-retry-policy:document", b"{}")
    read_component(once)
    msg = invalid(append_custom_section(once, "webhook-retry-policy:document", b"{}"))
    assert "a second custom section named 'webhook-retry-policy:document'" in msg


def test_a_component_without_a_main_module_is_refused():
    no_realloc = module('(module (func (export "f")))')
    msg = invalid(COMPONENT_HEADER + section(CORE_MODULE, no_realloc) + custom_section("x", b""))
    assert "no main module" in msg


def test_two_modules_exporting_cabi_realloc_are_refused():
    main = module('(module (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) i32.const 0))')
    assert "one main module expected" in invalid(COMPONENT_HEADER + section(CORE_MODULE, main) * 2)


def test_a_core_module_or_other_bytes_are_not_a_component():
    assert "a core module, not a component" in invalid(module("(module)"))
    assert "no \\0asm header" in invalid(b"PK\x03\x04 not wasm")
    assert "not a component header" in invalid(b"\0asm\x0e\x00\x01\x00")


def test_a_module_section_that_is_not_a_module_is_refused():
    assert "does not hold a core module" in invalid(COMPONENT_HEADER + section(CORE_MODULE, b"garbage!"))


def test_appending_a_custom_section_is_read_back_and_leaves_the_rest_as_it_was(shipped):
    c0 = read_component(shipped)
    c1 = read_component(append_custom_section(shipped, "extra", b"\x00\xff" * 300))
    assert c1.custom["extra"] == b"\x00\xff" * 300
    assert c1.main_module == c0.main_module and {k: v for k, v in c1.custom.items() if k != "extra"} == c0.custom
