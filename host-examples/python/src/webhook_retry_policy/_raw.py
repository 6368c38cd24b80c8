"""The wasmtime-py internals the one fast path uses, checked at import.

A typed call through wasmtime-py converts every value in Python; instead
each operation is ONE raw ``wasmtime_func_call_unchecked`` into a
zero-argument adapter function (``_generated/adapter.wat``), with every
pointer passed as a plain int. That needs three private pieces of
wasmtime-py: the ctypes binding of ``wasmtime_func_call_unchecked``
(``_bindings``), a store's ``_context()`` and a func's ``_func`` struct.
The world's imports are host functions made the same way
(:class:`HostFunc`: ``wasmtime_func_new_unchecked``, the arguments and
result in one raw array, the caller's context for memory and
``cabi_realloc``), not wasmtime-py's typed trampoline (~3x the cost).

``wasmtime`` is pinned to the tested major (pyproject.toml), and
:func:`self_test` runs at import: the version, the C signature of the
binding and the presence of the private attributes. Any mismatch raises
``ImportError`` with what to do, never undefined behaviour. The first call
on every new instance is a probe (``Instance.__init__``).
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import wasmtime
from wasmtime import _bindings as ffi

TESTED_MAJOR = 50


@functools.cache
def wasmtime_version() -> str:
    """The installed wasmtime-py version, from its dist-info beside the package
    (``importlib.metadata`` costs ~20 ms of imports at cold start); looked up
    once per process (the glob is ~0.2 ms, and every compile's cache key needs it)."""
    site = Path(wasmtime.__file__).resolve().parent.parent
    for info in site.glob("wasmtime-*.dist-info"):
        return info.name[len("wasmtime-"):-len(".dist-info")]
    from importlib import metadata

    return metadata.version("wasmtime")


def self_test() -> None:
    version = wasmtime_version()
    if int(version.split(".")[0]) != TESTED_MAJOR:
        raise ImportError(
            f"webhook-retry-policy was tested with wasmtime {TESTED_MAJOR}.x and uses its private raw-call "
            f"binding; found wasmtime {version}: install 'wasmtime>={TESTED_MAJOR},<{TESTED_MAJOR + 1}'"
        )
    f = getattr(ffi, "_wasmtime_func_call_unchecked", None)
    expected = [
        ctypes.POINTER(ffi.wasmtime_context_t), ctypes.POINTER(ffi.wasmtime_func_t),
        ctypes.POINTER(ffi.wasmtime_val_raw_t), ctypes.c_size_t, ctypes.POINTER(ctypes.POINTER(ffi.wasm_trap_t)),
    ]
    if f is None or list(f.argtypes) != expected or f.restype != ctypes.POINTER(ffi.wasmtime_error_t):
        raise ImportError(f"wasmtime {version}: wasmtime_func_call_unchecked has an unexpected signature")
    for owner, attr in ((wasmtime.Store, "_context"), (wasmtime.Trap, "_from_ptr"), (wasmtime.WasmtimeError, "_from_ptr"),
                        (wasmtime.Func, "_from_raw")):
        if not callable(getattr(owner, attr, None)):
            raise ImportError(f"wasmtime {version}: {owner.__name__}.{attr} is missing")
    if "_memory" not in getattr(wasmtime.Memory, "__annotations__", {}):
        raise ImportError(f"wasmtime {version}: Memory._memory is missing")
    for name in ("_wasmtime_func_new_unchecked", "_wasmtime_caller_context", "_wasmtime_memory_data_size",
                 "_wasmtime_trap_new"):
        if getattr(ffi, name, None) is None:
            raise ImportError(f"wasmtime {version}: the C binding {name} is missing")


self_test()

# wasmtime_func_call_unchecked(context, func, args_and_results, len, trap_out): the same C function the
# checked binding above calls, typed so that prebuilt c_void_p/c_size_t arguments pass without conversion.
_ADDRESS = ctypes.cast(ffi._wasmtime_func_call_unchecked, ctypes.c_void_p).value or 0
RAW_CALL = ctypes.CFUNCTYPE(
    ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p
)(_ADDRESS)


class RawCaller:
    """Raw zero-argument calls into one store (a trap or error is reported, not raised)."""

    def __init__(self, store: wasmtime.Store) -> None:
        self.store = store
        self.ctx = ctypes.cast(store._context(), ctypes.c_void_p).value
        self.vals = (ffi.wasmtime_val_raw_t * 1)()
        self.trap = ctypes.POINTER(ffi.wasm_trap_t)()
        self.vals_at = ctypes.addressof(self.vals)
        self.trap_at = ctypes.addressof(self.trap)

    def caller(self, func: wasmtime.Func) -> Callable[[], int | None]:
        """A zero-argument raw call of ``func`` (returns the error pointer, or None)."""
        internal: Any = func._func
        args = (ctypes.c_void_p(self.ctx), ctypes.c_void_p(ctypes.addressof(internal)), ctypes.c_void_p(self.vals_at),
                ctypes.c_size_t(1), ctypes.c_void_p(self.trap_at))
        return functools.partial(RAW_CALL, *args)

    def failure(self, err: int) -> str:
        """The message of a failed raw call."""
        if err:
            return str(wasmtime.WasmtimeError._from_ptr(ctypes.cast(err, ctypes.POINTER(ffi.wasmtime_error_t))))
        return str(wasmtime.Trap._from_ptr(self.trap))  # the instance is dropped after any failure


def _fn(name: str, restype: Any, *argtypes: Any) -> Any:
    return ctypes.CFUNCTYPE(restype, *argtypes)(ctypes.cast(getattr(ffi, name), ctypes.c_void_p).value or 0)


# wasm_trap_t *(*)(void *env, wasmtime_caller_t *caller, wasmtime_val_raw_t *args_and_results, size_t n)
UNCHECKED_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
_NEW_UNCHECKED = _fn("_wasmtime_func_new_unchecked", None, ctypes.c_void_p, ctypes.c_void_p, UNCHECKED_CALLBACK,
                     ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
CALLER_CONTEXT = _fn("_wasmtime_caller_context", ctypes.c_void_p, ctypes.c_void_p)
MEMORY_SIZE = _fn("_wasmtime_memory_data_size", ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p)
_TRAP_NEW = _fn("_wasmtime_trap_new", ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t)


class HostFunc:
    """A host function over the raw value array: ``fn(context, raw_address)``
    reads its arguments from and writes its result to ``raw_address``;
    any exception it raises becomes a trap carrying its message. Keep the
    object alive as long as the store (it holds the ctypes callback)."""

    def __init__(self, store: wasmtime.Store, ty: wasmtime.FuncType, fn: Callable[[int, int], None]) -> None:
        def callback(_env: Any, caller: Any, raw: Any, _n: int) -> Any:
            try:
                fn(CALLER_CONTEXT(caller), raw)
                return None
            except BaseException as e:  # never across the C boundary: a trap with the reason
                try:
                    text = f"{type(e).__name__}: {e}"
                except Exception:
                    text = type(e).__name__
                msg = text[:500].encode("utf-8", "replace")
                return _TRAP_NEW(msg, len(msg))

        self.callback = UNCHECKED_CALLBACK(callback)
        self.raw = ffi.wasmtime_func_t()
        ctx = ctypes.cast(store._context(), ctypes.c_void_p).value
        _NEW_UNCHECKED(ctx, ctypes.cast(ty.ptr(), ctypes.c_void_p).value, self.callback, None, None,
                       ctypes.addressof(self.raw))
        self.func = wasmtime.Func._from_raw(self.raw)


def call_realloc(ctx: int, realloc: wasmtime.Func, size: int, align: int) -> int:
    """``cabi_realloc(0, 0, align, size)`` through the caller's context (inside a host function)."""
    vals = (ffi.wasmtime_val_raw_t * 4)()
    vals[0].i32, vals[1].i32, vals[2].i32, vals[3].i32 = 0, 0, align, size
    trap = ctypes.POINTER(ffi.wasm_trap_t)()
    internal: Any = realloc._func
    err = RAW_CALL(ctx, ctypes.addressof(internal), ctypes.addressof(vals), 4, ctypes.addressof(trap))
    if err:
        raise RuntimeError(str(wasmtime.WasmtimeError._from_ptr(ctypes.cast(err, ctypes.POINTER(ffi.wasmtime_error_t)))))
    if trap:
        raise RuntimeError(str(wasmtime.Trap._from_ptr(trap)))
    return int(vals[0].i32) & 0xFFFFFFFF
