"""Components that parse and link but lie: the shipped main module's export
names and signatures, renamed to another WIT package version, every function
answering zeros (``abi-version`` answers ``abi_version``). Used by the
artifact tests here and by tests/fleet/test_rollout.py (a published artifact
of another ABI), so both build it one way. Needs only wasmtime and the
package's container reader."""

from __future__ import annotations

import wasmtime

from webhook_retry_policy.component_reader import COMPONENT_HEADER, CORE_MODULE, _leb, read_component


def fake_component(shipped: bytes, version: str = "1.0.0", abi_version: int = 5, extra_import: str = "") -> bytes:
    """A component whose main module has the shipped one's export names and
    signatures (renamed to ``version``) and answers zeros: links, runs, lies."""
    main = wasmtime.Module(wasmtime.Engine(), read_component(shipped).main_module)
    funcs = []
    for e in main.exports:
        if not isinstance(e.type, wasmtime.FuncType) or e.name == "cabi_realloc":
            continue
        params = " ".join(str(p) for p in e.type.params)
        results = [str(r) for r in e.type.results]
        body = " ".join(f"({r}.const {abi_version if e.name.endswith('#abi-version') else 0})" for r in results)
        name = e.name.replace("@1.0.0", f"@{version}")
        param_decl = f"(param {params})" if params else ""
        result_decl = "(result " + " ".join(results) + ")" if results else ""
        funcs.append(f'(func (export "{name}") {param_decl} {result_decl} {body})')
    wat = ('(module ' + extra_import + ' (memory (export "memory") 17) (global $p (mut i32) (i32.const 4096))'
           '(func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) (local $r i32)'
           ' (local.set $r (global.get $p)) (global.set $p (i32.add (global.get $p) (i32.add (local.get 3) (i32.const 8))))'
           ' (local.get $r))' + "".join(funcs) + ")")
    body = wasmtime.wat2wasm(wat)
    return COMPONENT_HEADER + bytes([CORE_MODULE]) + _leb(len(body)) + body
