"""The wasmtime-py internals the one fast path uses, checked at import.

A typed call through wasmtime-py converts every value in Python; instead
each operation is ONE raw ``wasmtime_func_call_unchecked`` into a
zero-argument adapter function (``_generated/adapter.wat``), with every
pointer passed as a plain int. That needs three private pieces of
wasmtime-py: the ctypes binding of ``wasmtime_func_call_unchecked``
(``_bindings``), a store's ``_context()`` and a func's ``_func`` struct.

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


def wasmtime_version() -> str:
    """The installed wasmtime-py version, from its dist-info beside the package
    (``importlib.metadata`` costs ~20 ms of imports at cold start)."""
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
    for owner, attr in ((wasmtime.Store, "_context"), (wasmtime.Trap, "_from_ptr"), (wasmtime.WasmtimeError, "_from_ptr")):
        if not callable(getattr(owner, attr, None)):
            raise ImportError(f"wasmtime {version}: {owner.__name__}.{attr} is missing")


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
