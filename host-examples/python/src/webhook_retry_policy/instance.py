"""The policy's core module instances: one per thread and artifact, rebuilt after a trap.

A wasmtime ``Store`` must not be used by two threads at once, so each
thread gets its own store with the artifact's main core module and the
generated adapter (``_generated/adapter.wat``), sharing the process-wide
compiled modules. Asyncio tasks on one thread share its instance: a call
never awaits, so tasks cannot interleave inside one.

Every operation is :meth:`Instance.run`: the generated ``lower_F`` writes
the arguments into the scratch block (a host-owned block of guest memory,
grown and re-lowered when too small), ONE raw call runs the adapter
function ``F`` (the previous result's deferred ``cabi_post``, ownership
copies, the core export), and the generated ``lift_F`` reads the result
while it is still allocated (its ``cabi_post`` runs at the start of the
next call on this instance).

The world's imports (``clock.now-ms``, ``budget-store.call``) are the
generated glue (``abi.IMPORTS``) around ``host_imports.Imports``: the clock
and store of the imports-driven ``decide`` in progress (:func:`decide`).
While one runs, this thread's later calls (a store that itself calls the
component, like the in-memory store's ``store-apply``) go to another
instance (:func:`current`): a component instance is never re-entered.

:func:`current` answers this thread's instance of the ACTIVE artifact
(:func:`activate`, called by ``artifact.swap_artifact``): a call that began
on the old artifact's instance finishes there; the next call builds one on
the new artifact.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import wasmtime

from . import loader
from ._checks import SHOWN, show
from ._generated import abi
from ._generated.errors import PolicyError
from ._raw import RawCaller
from .errors import ArtifactError, PolicyTrap
from .host_imports import Imports

_INITIAL_SCRATCH = 16 * 1024
_U32 = struct.Struct("<I")
_BAD_INPUT = (struct.error, TypeError, AttributeError, KeyError, OverflowError, UnicodeEncodeError, ValueError)
_BAD_OUTPUT = (abi.Malformed, struct.error, IndexError, KeyError, UnicodeDecodeError, ValueError)
Call = Callable[[], "int | None"]
Entry = tuple[Callable[..., None], Callable[[memoryview, int], Any], Call, bool]


def _reason(e: BaseException) -> str:
    """Why a value could not be lowered, in at most ~SHOWN characters: a
    ``KeyError`` quotes its key (a 1 MiB string, or an int whose ``str()``
    raises ``ValueError`` past 4300 digits) through ``_checks.show``."""
    if isinstance(e, KeyError) and len(e.args) == 1:
        return f"no such value: {show(e.args[0])}"
    try:
        text = str(e)
    except Exception:
        text = type(e).__name__
    return text if len(text) <= SHOWN else f"{text[:SHOWN]}..."


T = TypeVar("T")


def _as(value: object, cls: type[T]) -> T:
    if not isinstance(value, cls):
        raise PolicyTrap(f"expected a {cls.__name__} export, got {type(value).__name__}")
    return value


class Instance:
    """One thread's store, instances, scratch block and raw-call entries."""

    def __init__(self, artifact: Any) -> None:
        self.artifact = artifact  # None once a call failed: current() then builds a fresh instance
        core, adapter = artifact.core, loader.adapter()
        self.store = store = wasmtime.Store(loader.engine())
        self.imports = Imports(self)
        known = {(i.module, i.name): i for i in abi.IMPORTS}
        funcs = []
        for imp in core.imports:
            spec = known.get((imp.module, imp.name or ""))
            if spec is None:
                raise ArtifactError("artifact_abi_mismatch", f"the main module imports {imp.module}#{imp.name}, which "
                                    f"this host does not supply (it supplies {', '.join(sorted(m + '#' + n for m, n in known))})")
            funcs.append(self.imports.func(store, spec))
        try:
            main = wasmtime.Instance(store, core, funcs).exports(store)
        except wasmtime.WasmtimeError as e:  # a signature or another link error
            raise ArtifactError("artifact_invalid", f"the main module does not instantiate: {e}") from None
        missing = [imp.name or "" for imp in adapter.imports if imp.name not in main]
        if missing:
            raise ArtifactError("artifact_abi_mismatch", f"the main module does not export {', '.join(missing[:4])}"
                                f"{' ...' if len(missing) > 4 else ''}")
        links = [main[imp.name] for imp in adapter.imports]  # type: ignore[index]
        self.memory: wasmtime.Memory = main["memory"]  # type: ignore[assignment]
        self.realloc: wasmtime.Func = main["cabi_realloc"]  # type: ignore[assignment]
        exports = wasmtime.Instance(store, adapter, links).exports(store)
        self.raw = raw = RawCaller(store)
        self.entries: dict[str, Entry] = {}
        for name, fn in abi.FUNCTIONS.items():
            self.entries[name] = (fn.lower, fn.lift, raw.caller(_as(exports[name], wasmtime.Func)), fn.retptr)
        self._flush = raw.caller(_as(exports["flush"], wasmtime.Func))
        self._funcs = exports  # keeps the func structs alive for the raw calls
        self._scratch_global: wasmtime.Global = exports["scratch"]  # type: ignore[assignment]
        self.base = ctypes.cast(self.memory.data_ptr(store), ctypes.c_void_p).value or 0
        self.mem = memoryview(b"")
        self.scratch = self.limit = self.cap = self.result_at = 0
        self.grow(_INITIAL_SCRATCH)
        self._probe(raw.caller(_as(exports["probe"], wasmtime.Func)))

    def refresh(self) -> None:
        """A view of all of guest memory (memories never move; they only grow)."""
        self.refresh_to(self.memory.data_len(self.store))

    def refresh_to(self, size: int) -> None:
        self.mem = memoryview((ctypes.c_ubyte * size).from_address(self.base)).cast("B")

    def grow(self, need: int) -> None:
        """(Re)allocate the scratch block to hold ``need - scratch`` bytes."""
        cap = max(_INITIAL_SCRATCH, 1 << max(0, need - self.scratch - 1).bit_length())
        if cap <= self.cap:
            cap = 2 * self.cap
        if self.cap:  # the last result's cabi_post first: the guest sees post-return before anything else
            err = self._flush()
            if err or self.raw.trap:
                self._failed(err, "flush")
        ptr = self.realloc(self.store, self.scratch, self.cap, 8, cap)
        if not isinstance(ptr, int) or ptr == 0:
            raise PolicyTrap("cabi_realloc returned null for the scratch block")
        self.scratch, self.cap, self.limit, self.result_at = ptr, cap, ptr + cap, ptr + abi.RESULT
        self._scratch_global.set_value(self.store, wasmtime.Val.i32(ptr))
        self.refresh()

    def _probe(self, probe: Call) -> None:
        err = probe()
        if err or self.raw.trap:
            self._failed(err, "probe")
        if _U32.unpack_from(self.mem, self.scratch + abi.RESULT)[0] != 0x5EED:
            raise PolicyTrap("raw-call self-test failed: the adapter's probe did not run")

    def run(self, name: str, *args: Any) -> Any:
        lower, lift, call, retptr = self.entries[name]
        while True:  # again after growing the scratch block for a big input
            try:
                lower(self, *args)
                break
            except abi.Grow as g:
                self.grow(g.need)
            except PolicyError:
                raise
            except _BAD_INPUT as e:
                raise PolicyError("invalid_input", "", f"{name}: not a value of the WIT type: {_reason(e)}") from None
        err = call()
        if err or self.raw.trap:
            self._failed(err, name)
        mem = self.mem
        r = _U32.unpack_from(mem, self.result_at)[0] if retptr else self.result_at
        try:
            return lift(mem, r)
        except PolicyError:
            raise
        except _BAD_OUTPUT:
            return self._lift_again(name, lift, r)

    def _lift_again(self, name: str, lift: Callable[[memoryview, int], Any], r: int) -> Any:
        self.refresh()  # the call grew guest memory past this view
        try:
            return lift(self.mem, r)
        except PolicyError:
            raise
        except _BAD_OUTPUT as e:
            self.artifact = None
            raise PolicyTrap(f"`{name}` returned a malformed result: {e!r}") from None

    def _failed(self, err: int | None, name: str) -> None:
        self.artifact = None  # the guest heap may be inconsistent: the next call builds a fresh instance
        raise PolicyTrap(f"`{name}` trapped: {self.raw.failure(err or 0)}")


_local = threading.local()
_active: Any = None  # the artifact new calls run on (artifact.py sets it)
_default: Callable[[], Any] | None = None  # loads the default artifact (artifact.py registers it)
_lock = threading.Lock()


def activate(artifact: Any) -> None:
    """Make ``artifact`` the one later calls run on (already checked). Under
    the lock a first default load holds, so that load cannot overwrite it."""
    global _active
    with _lock:
        _active = artifact


def active() -> Any:
    """The active artifact, loading the default one on first use."""
    global _active
    a = _active
    if a is None:
        with _lock:
            if _active is None:
                if _default is None:
                    raise PolicyTrap("no artifact loader registered (import webhook_retry_policy first)")
                _active = _default()
            a = _active
    return a


def offer(inst: Instance) -> None:
    """Keep a checked artifact's self-test instance as this thread's spare
    (the first call after a load or swap need not build another)."""
    _local.spare = inst


def register_default(loader_fn: Callable[[], Any]) -> None:
    global _default
    _default = loader_fn


def current() -> Instance:
    """This thread's instance of the active artifact (created on first use).
    While this thread's instance runs an imports-driven ``decide``, another
    one (the thread's spare) answers: an instance is never re-entered."""
    inst: Instance | None = getattr(_local, "instance", None)
    a = _active
    if inst is not None and inst.artifact is a and a is not None:
        return inst
    a = active()
    spare: Instance | None = getattr(_local, "spare", None)
    if spare is not None and spare.artifact is a:
        _local.spare = None
        inst = spare
    else:
        inst = Instance(a)
    _local.instance = inst
    return inst


def of(artifact: Any) -> Instance:
    """An instance of ``artifact``: this thread's (:func:`current`) when it is the active one, else a new one."""
    inst = current() if artifact is _active else None
    return inst if inst is not None and inst.artifact is artifact else Instance(artifact)


def decide(clock: Any, store: Any, *args: Any) -> Any:
    """The imports-driven ``decide`` on this thread's instance: ONE call into
    the component, which asks ``clock`` once and ``store`` at most once
    through the imports."""
    inst = current()
    _local.instance = None  # calls made by the store meanwhile go to another instance
    imports = inst.imports
    imports.clock, imports.store = clock, store
    try:
        return inst.run("decide", *args)
    finally:
        imports.clock = imports.store = None
        nested = _local.instance
        _local.instance = inst
        if nested is not None:
            _local.spare = nested
