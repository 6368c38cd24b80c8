"""The host side of the component's imports (``clock.now-ms``,
``budget-store.call``) for one instance: the generated glue
(``abi.IMPORTS``) around :class:`Imports`, as raw host functions
(``_raw.HostFunc``: the arguments and the result in one raw value array, the
guest's memory and ``cabi_realloc`` through the caller's context).

The clock and the store are those of the ``decide`` in progress
(``instance.decide`` sets them for one call). Each callback holds its
:class:`Imports` weakly: wasmtime keeps a host function's callback until
its Store is dropped, and the Store belongs to the instance that holds this
object, so a strong reference would keep every instance alive.
"""

from __future__ import annotations

import ctypes
import struct
import weakref
from typing import Any

import wasmtime

from ._generated import abi
from ._raw import MEMORY_SIZE, HostFunc, call_realloc
from .errors import PolicyTrap

_RAW = {"i32": "i12x", "i64": "q8x", "f32": "f12x", "f64": "d8x"}  # one 16-byte wasmtime_val_raw_t each
_PUT: dict[str, Any] = {"i32": ctypes.c_int32, "i64": ctypes.c_int64, "f32": ctypes.c_float, "f64": ctypes.c_double}
_VALTYPE = {"i32": wasmtime.ValType.i32, "i64": wasmtime.ValType.i64, "f32": wasmtime.ValType.f32,
            "f64": wasmtime.ValType.f64}


class Imports:
    """The host side of the world's imports for one instance (``abi.Host``):
    the clock and store of the ``decide`` in progress, and the guest memory
    and ``cabi_realloc`` the generated glue writes the store's answer with
    (through the caller's context: :class:`_raw.HostFunc`)."""

    def __init__(self, inst: Any) -> None:
        self.inst = inst
        self.clock: Any = None
        self.store: Any = None
        self.ctx = 0
        self.funcs: list[HostFunc] = []  # the callbacks live as long as the instance

    def clock_now_ms(self) -> int:
        if self.clock is None:
            raise PolicyTrap("the component asked for the clock outside `decide`")
        return int(self.clock.now_ms())

    def budget_store_call(self, request: Any, budget: Any, now_ms: int) -> Any:
        if self.store is None:
            raise ConnectionError("no budget store: the component asked for one outside `decide`")
        return self.store.call(request, budget, now_ms)

    def view(self) -> memoryview:
        """All of guest memory (refreshed on entry to an import and after an alloc)."""
        mem: memoryview = self.inst.mem
        return mem

    def _sync(self) -> None:
        inst = self.inst
        size = MEMORY_SIZE(self.ctx, ctypes.addressof(inst.memory._memory))
        if size != len(inst.mem):
            inst.refresh_to(size)

    def alloc(self, size: int, align: int) -> int:
        ptr = call_realloc(self.ctx, self.inst.realloc, size, align)
        if ptr == 0 and size:
            raise PolicyTrap("cabi_realloc returned null for an import's result")
        self._sync()  # the allocation may have grown memory
        return ptr

    def func(self, store: wasmtime.Store, imp: abi.Import) -> wasmtime.Func:
        ty = wasmtime.FuncType([_VALTYPE[t]() for t in imp.params], [_VALTYPE[t]() for t in imp.results])
        glue = imp.glue
        unpack = struct.Struct("<" + "".join(_RAW[t] for t in imp.params)).unpack_from
        nbytes = 16 * len(imp.params)
        put = _PUT[imp.results[0]] if imp.results else None
        # the callback holds this object weakly: it lives in the Store, which the instance holds
        me = weakref.ref(self)

        def host(ctx: int, raw: int) -> None:
            imports = me()
            if imports is None:
                raise PolicyTrap("the instance of this import is gone")
            if nbytes:
                imports.ctx = ctx
                imports._sync()
                v = glue(imports, imports, *unpack(ctypes.string_at(raw, nbytes)))
            else:
                v = glue(imports, imports)
            if put is not None:
                put.from_address(raw).value = v

        f = HostFunc(store, ty, host)
        self.funcs.append(f)
        return f.func
