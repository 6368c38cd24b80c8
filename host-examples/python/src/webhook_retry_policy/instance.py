"""Component instances: one per thread, created lazily, rebuilt after a trap.

Thread and task safety: a wasmtime ``Store`` must not be used by two
threads at once, so each thread gets its own ``Store`` + instance (a
``threading.local``), all sharing the process-wide compiled component.
Asyncio tasks on one thread cannot interleave inside a call (a call never
awaits), so they share the thread's instance safely. A call made from
inside a host import (re-entrancy) is refused with :class:`PolicyTrap`.

The host imports are wired here: ``clock.now-ms`` reads the policy's
clock; ``budget-counter.read``/``record-attempt`` call its counter, and
any exception from the counter becomes the WIT error string (the decision
is then ``budget_unavailable``). A failing clock has no WIT error, so it
traps the call, which surfaces as :class:`PolicyTrap`.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Optional

from wasmtime import Store, WasmtimeError
from wasmtime.component import Linker

from . import _checks, loader, wit
from .clock import Clock
from .counters import BudgetCounter
from .errors import PolicyError, PolicyTrap
from .types import BudgetCounts

WIT_PACKAGE = "webhook:retry-policy"
WIT_VERSION = "0.1.0"
POLICY_INTERFACE = f"{WIT_PACKAGE}/policy@{WIT_VERSION}"
CLOCK_INTERFACE = f"{WIT_PACKAGE}/clock@{WIT_VERSION}"
COUNTER_INTERFACE = f"{WIT_PACKAGE}/budget-counter@{WIT_VERSION}"

EXPORTS = (
    "abi-version", "plan", "delay", "classify-status", "classify-error", "budget-allows",
    "load-document", "admit", "decide", "decide-with",
)


class _ThreadInstance:
    __slots__ = ("store", "funcs", "busy")

    def __init__(self, store: Store, funcs: dict[str, Any]) -> None:
        self.store = store
        self.funcs = funcs
        self.busy = False


class ComponentHost:
    """The component with this host's clock and counter plugged in."""

    def __init__(self, clock: Clock, counter: BudgetCounter, wasm_path: Optional[str] = None) -> None:
        self.clock = clock
        self.counter = counter
        self._component = loader.component(wasm_path)
        self._engine = loader.engine()
        self._linker = self._build_linker()
        self._linker_lock = threading.Lock()
        self._local = threading.local()

    # --- host imports ------------------------------------------------------

    def _build_linker(self) -> Linker:
        linker = Linker(self._engine)
        with linker.root() as root:
            with root.add_instance(CLOCK_INTERFACE) as clock:
                clock.add_func("now-ms", self._now_ms)
            with root.add_instance(COUNTER_INTERFACE) as counter:
                counter.add_func("read", self._read)
                counter.add_func("record-attempt", self._record_attempt)
        return linker

    def _now_ms(self, _store: Any) -> int:
        try:
            return _checks.uint("clock.now_ms", self.clock.now_ms())
        except BaseException as e:  # no WIT error for a clock: trap, report it after the call
            self._local.import_failure = e
            raise WasmtimeError(f"host clock failed: {e!r}") from None

    def _read(self, _store: Any, endpoint_id: str, window_ms: int, bucket: int) -> Any:
        try:
            counts = self.counter.read(endpoint_id, window_ms, bucket)
            if not isinstance(counts, BudgetCounts):
                return f"counter returned {type(counts).__name__}, not BudgetCounts"
            return wit.counts(counts)
        except Exception as e:
            return f"budget store unreadable: {e!r}"

    def _record_attempt(self, _store: Any, endpoint_id: str, window_ms: int, bucket: int, is_retry: bool) -> Any:
        try:
            self.counter.record_attempt(endpoint_id, window_ms, bucket, is_retry)
            return None
        except Exception as e:
            return f"budget store write failed: {e!r}"

    # --- instances ---------------------------------------------------------

    def _instance(self) -> _ThreadInstance:
        inst: Optional[_ThreadInstance] = getattr(self._local, "instance", None)
        if inst is not None:
            return inst
        store = Store(self._engine)
        with self._linker_lock:
            instance = self._linker.instantiate(store, self._component)
        iface = instance.get_export_index(store, POLICY_INTERFACE)
        if iface is None:
            raise PolicyTrap(f"the component does not export {POLICY_INTERFACE}")
        funcs = {}
        for name in EXPORTS:
            idx = instance.get_export_index(store, name, iface)
            func = instance.get_func(store, idx) if idx is not None else None
            if func is None:
                raise PolicyTrap(f"the component does not export {POLICY_INTERFACE}#{name}")
            funcs[name] = func
        inst = _ThreadInstance(store, funcs)
        self._local.instance = inst
        return inst

    def call(self, name: str, *args: Any, lift: Callable[[Any], Any] = wit.unwrap) -> Any:
        """Call export ``name``; the result goes through ``lift`` (which
        raises the WIT ``policy-error`` as :class:`PolicyError`)."""
        inst = self._instance()
        if inst.busy:
            raise PolicyTrap(f"re-entrant call of `{name}` from inside a host import on the same thread")
        inst.busy = True
        self._local.import_failure = None
        try:
            raw = inst.funcs[name](inst.store, *args)
        except BaseException as e:
            # A trap (or a host import that trapped it): this instance may be
            # inconsistent, so it is dropped; the next call makes a new one.
            self._local.instance = None
            cause = self._local.import_failure or e
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            raise PolicyTrap(f"`{name}` trapped: {cause!r}") from cause
        finally:
            inst.busy = False
        try:
            return lift(raw)
        except PolicyError:
            raise
        except Exception as e:
            raise PolicyTrap(f"`{name}` returned an unexpected value: {e!r}") from e

