"""``decide-with`` in ONE core-wasm call per decision.

wasmtime-py lowers component values in pure Python (hundreds of µs for a
decision). This path runs the component's own main core module (extracted
from the same ``retry_policy.wasm``, ``corewasm.py``) through wasmtime's
core API, plus a tiny adapter module (``fastpath_adapter.wat``) that does
the caller's canonical-ABI duties inside wasm. Per decision the host:

1. type-checks the arguments (same checks as the component API);
2. writes the params record image (canonical-ABI layout, below) and the
   string bytes into a scratch block of guest memory (``struct.pack_into``
   on a memoryview; the policy part is packed once per ``Policy`` object);
3. makes ONE raw call (``wasmtime_func_call_unchecked`` with a
   preallocated ``wasmtime_val_raw_t``) into the adapter, which allocates
   the params record and strings with ``cabi_realloc`` (the guest frees
   them), calls decide-with, copies the result out, calls ``cabi_post``;
4. unpacks the result from the scratch block.

Same decisions as the component API: the conformance runner runs every
decide vector through both. One instance per thread (``threading.local``);
a trap drops the thread's instance and raises :class:`PolicyTrap`.
"""

from __future__ import annotations

import ctypes
import dataclasses
import struct
import threading
from importlib import resources
from typing import Any, Optional

import wasmtime
import wasmtime._func as _wfunc
from wasmtime import _bindings as ffi

from . import corewasm, loader
from ._args import check_decide_with_args
from .errors import ErrorCode, PolicyError, PolicyTrap
from .types import (
    AttemptOutcome,
    BudgetCounts,
    DeadLetter,
    Decision,
    DeliveryState,
    HttpResponse,
    Policy,
    Retry,
    Stop,
    StopReason,
    TransportError,
)

# Canonical-ABI layout of decide-with's params record (size 200, align 8):
#   0 policy.backoff {base u64, factor f64, cap u64, jitter u8}  32 window u64
#  40 hard-cap u32  48 budget {ratio f64, window u64, min-sample u64, sliding u8}
#  80 state {event-id (ptr,len), endpoint-id (ptr,len), attempt u32,
#     max-attempts u32, first-attempted-at u64 @104, credentials-refreshed u8 @112}
# 120 outcome variant: disc u8; payload @128: response {status u16,
#     retry-after option<u64> (disc @136, value @144)} | transport-error (ptr,len)
# 152 now-ms u64   160 option<budget-counts>: disc u8, counts @168 (4 x u64)
_POLICY = struct.Struct("<QdQB7xQI4xdQQB7x")  # offset 0, 80 bytes
_TAIL_RESPONSE = struct.Struct("<IIIIIIQ?7x" "B7xH6x?7xQ" "Q" "B7xQQQQ")  # offset 80
_TAIL_TRANSPORT = struct.Struct("<IIIIIIQ?7x" "B7xII16x" "Q" "B7xQQQQ")  # offset 80
_JITTER = {"none": 0, "full": 1, "equal": 2}
_STOP_REASONS = tuple(StopReason)  # WIT declaration order
_ERROR_CODES = tuple(ErrorCode)  # WIT declaration order
_U64, _PTR_LEN, _ATTEMPTS_ELAPSED = struct.Struct("<Q"), struct.Struct("<II"), struct.Struct("<I4xQ")
_OUTCOMES = (HttpResponse, TransportError)

# Scratch block: params image, out-area header (cap, address), result copy,
# the out area for the result's strings, then the input strings.
_OUT_HEADER, _RESULT, _OUT_AREA = 200, 208, 288
_MIN_OUT = 4096
_INITIAL_SCRATCH = 16384

# wasmtime_func_call_unchecked(context, func, args_and_results, len, trap_out)
# with every pointer passed as a plain int: half the ctypes cost of the
# typed binding (measured by the benchmark).
_RAW_CALL = ctypes.CFUNCTYPE(
    ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p
)(ctypes.cast(ffi._wasmtime_func_call_unchecked, ctypes.c_void_p).value)
_U64_MAX = 0xFFFF_FFFF_FFFF_FFFF


def _builder(cls: type) -> Any:
    """A constructor for a frozen slots dataclass that sets its slots
    directly: the same instances as ``cls(...)``, built in half the time
    (the benchmark counts every µs; the values come from the component)."""
    new = object.__new__
    sets = [cls.__dict__[f.name].__set__ for f in dataclasses.fields(cls)]
    if len(sets) == 2:
        s0, s1 = sets

        def build2(a: Any, b: Any) -> Any:
            o = new(cls)
            s0(o, a), s1(o, b)
            return o

        return build2
    if len(sets) == 3:
        s0, s1, s2 = sets

        def build3(a: Any, b: Any, c: Any) -> Any:
            o = new(cls)
            s0(o, a), s1(o, b), s2(o, c)
            return o

        return build3
    s0, s1, s2, s3, s4 = sets

    def build5(a: Any, b: Any, c: Any, d: Any, e: Any) -> Any:
        o = new(cls)
        s0(o, a), s1(o, b), s2(o, c), s3(o, d), s4(o, e)
        return o

    return build5


_new_retry, _new_stop, _new_dead_letter = _builder(Retry), _builder(Stop), _builder(DeadLetter)

_adapter_lock = threading.Lock()
_adapter_module: Optional[wasmtime.Module] = None


def _adapter() -> wasmtime.Module:
    global _adapter_module
    with _adapter_lock:
        if _adapter_module is None:
            wat = resources.files(__package__).joinpath("fastpath_adapter.wat").read_text("utf-8")
            _adapter_module = wasmtime.Module(loader.engine(), wat)
        return _adapter_module


def _unavailable_import(*_args: Any) -> Any:
    raise wasmtime.Trap("host import called from the fast path (decide-with imports nothing)")


class _Instance:
    """One thread's store, instances, scratch block and raw-call buffers."""

    def __init__(self, module: wasmtime.Module) -> None:
        self.store = store = wasmtime.Store(loader.engine())
        imports = [wasmtime.Func(store, imp.type, _unavailable_import) for imp in module.imports]  # type: ignore[arg-type]
        main = wasmtime.Instance(store, module, imports)
        exports = main.exports(store)
        self.memory: wasmtime.Memory = exports["memory"]  # type: ignore[assignment]
        self.realloc: wasmtime.Func = exports[corewasm.REALLOC]  # type: ignore[assignment]
        self.post: wasmtime.Func = exports[corewasm.POST_DECIDE_WITH]  # type: ignore[assignment]
        adapter = wasmtime.Instance(
            store, _adapter(), [self.memory, self.realloc, exports[corewasm.DECIDE_WITH], self.post]
        )
        decide = adapter.exports(store)["decide"]
        assert isinstance(decide, wasmtime.Func)
        self.decide = decide  # keeps the func struct alive for the raw call
        self.ctx = store._context()
        self.vals = (ffi.wasmtime_val_raw_t * 1)()
        self.trap = ctypes.POINTER(ffi.wasm_trap_t)()
        self.raw_args = (
            ctypes.cast(self.ctx, ctypes.c_void_p).value,
            ctypes.addressof(decide._func),
            ctypes.addressof(self.vals),
            1,
            ctypes.addressof(self.trap),
        )
        self.base = ctypes.cast(self.memory.data_ptr(store), ctypes.c_void_p).value or 0
        self.scratch = 0
        self.cap = 0
        self.out_cap = 0
        self.view = memoryview(b"")
        self.policy_cache: dict[int, tuple[Policy, bytes]] = {}
        self._grow(_INITIAL_SCRATCH)

    def _grow(self, cap: int) -> None:
        """(Re)allocate the scratch block (host-owned, never freed by the guest)."""
        self.scratch = self.realloc(self.store, self.scratch, self.cap, 8, cap)  # type: ignore[assignment]
        if not self.scratch:
            raise PolicyTrap("cabi_realloc returned null for the scratch block")
        self.cap = cap
        # memory_may_move=False: the base stays put, so this view stays valid.
        self.view = memoryview((ctypes.c_ubyte * cap).from_address(self.base + self.scratch)).cast("B")

    def ensure(self, in_len: int) -> int:
        """Room for ``in_len`` input bytes (and the result strings they may
        come back as); returns the offset where the inputs go. The out area
        sits at ``_OUT_AREA`` and the inputs after it; both grow rarely."""
        out_cap = max(_MIN_OUT, 2 * in_len + 1024)
        if out_cap > self.out_cap or _OUT_AREA + self.out_cap + in_len > self.cap:
            out_cap = max(out_cap, self.out_cap)
            need = _OUT_AREA + out_cap + in_len
            if need > self.cap:
                self._grow(1 << (need - 1).bit_length())
            self.out_cap = out_cap
            struct.pack_into("<II", self.view, _OUT_HEADER, out_cap, self.scratch + _OUT_AREA)
        return _OUT_AREA + self.out_cap

    def policy_image(self, policy: Policy) -> bytes:
        hit = self.policy_cache.get(id(policy))
        if hit is not None and hit[0] is policy:
            return hit[1]
        b, bud = policy.backoff, policy.budget
        img = _POLICY.pack(
            b.base_ms, b.factor, b.cap_ms, _JITTER[b.jitter.value], policy.window_ms, policy.hard_cap,
            bud.ratio, bud.window_ms, bud.min_sample, 1 if bud.sliding else 0,
        )
        if len(self.policy_cache) >= 256:
            self.policy_cache.clear()
        self.policy_cache[id(policy)] = (policy, img)
        return img


class FastDecider:
    """The pure ``decide-with`` through one core call per decision."""

    def __init__(self, wasm_path: Optional[str] = None) -> None:
        self._module = corewasm.main_module(wasm_path)
        _adapter()
        self._local = threading.local()

    def _instance(self) -> _Instance:
        inst = getattr(self._local, "instance", None)
        if inst is None:
            inst = _Instance(self._module)
            self._local.instance = inst
        return inst

    def decide_with(
        self,
        policy: Policy,
        state: DeliveryState,
        outcome: AttemptOutcome,
        now_ms: int,
        budget_counts: Optional[BudgetCounts],
    ) -> Decision:
        if not (
            type(policy) is Policy and type(state) is DeliveryState and type(outcome) in _OUTCOMES
            and type(now_ms) is int and 0 <= now_ms <= _U64_MAX
            and (budget_counts is None or type(budget_counts) is BudgetCounts)
        ):
            check_decide_with_args(policy, state, outcome, now_ms, budget_counts)  # subclasses, or raises
        inst = getattr(self._local, "instance", None) or self._instance()
        ev, ep = state.event_id.encode(), state.endpoint_id.encode()
        response = type(outcome) is HttpResponse or isinstance(outcome, HttpResponse)
        blob = ev + ep if response else ev + ep + outcome.kind.encode()  # type: ignore[union-attr]
        n = len(blob)
        at = _OUT_AREA + inst.out_cap
        if at + n > inst.cap or 2 * n + 1024 > inst.out_cap:
            at = inst.ensure(n)
        view, s = inst.view, inst.scratch
        view[at:at + n] = blob
        hit = inst.policy_cache.get(id(policy))
        view[0:80] = hit[1] if hit is not None and hit[0] is policy else inst.policy_image(policy)
        ev_at = s + at
        ep_at = ev_at + len(ev)
        k = budget_counts
        if k is None:
            has, ct, cr, pt, pr = 0, 0, 0, 0, 0
        else:
            cur, prev = k.current, k.previous
            has, ct, cr, pt, pr = 1, cur.total, cur.retries, prev.total, prev.retries
        if response:
            ra = outcome.retry_after_ms  # type: ignore[union-attr]
            _TAIL_RESPONSE.pack_into(
                view, 80, ev_at, len(ev), ep_at, len(ep), state.attempt, state.max_attempts,
                state.first_attempted_at_ms, state.credentials_refreshed, 0, outcome.status,  # type: ignore[union-attr]
                ra is not None, ra or 0, now_ms, has, ct, cr, pt, pr)
        else:
            _TAIL_TRANSPORT.pack_into(
                view, 80, ev_at, len(ev), ep_at, len(ep), state.attempt, state.max_attempts,
                state.first_attempted_at_ms, state.credentials_refreshed, 1, ep_at + len(ep), n - len(ev) - len(ep),
                now_ms, has, ct, cr, pt, pr)
        inst.vals[0].i32 = s
        err = _RAW_CALL(*inst.raw_args)
        if err or inst.trap:
            self._fail(inst, err)
        ret = inst.vals[0].i32 & 0xFFFF_FFFF
        try:
            if ret == 0:
                return _read_result(view, _RESULT, s)
            return self._read_fallback(inst, ret)
        except (IndexError, ValueError, struct.error) as e:
            if isinstance(e, PolicyError):
                raise
            raise PolicyTrap(f"decide-with returned a malformed result: {e!r}") from e

    def _read_fallback(self, inst: _Instance, ret: int) -> Decision:
        """The result's strings did not fit the out area: read them in place,
        then call post-return ourselves."""
        size = ffi.wasmtime_memory_data_size(inst.ctx, ctypes.byref(inst.memory._memory))
        whole = memoryview((ctypes.c_ubyte * size).from_address(inst.base)).cast("B")
        try:
            if ret + 72 > size:
                raise PolicyTrap("decide-with returned an out-of-bounds result pointer")
            return _read_result(whole, ret, 0)
        finally:
            try:
                inst.post(inst.store, ret)
            except Exception as e:
                self._local.instance = None
                raise PolicyTrap(f"cabi_post for decide-with trapped: {e!r}") from e

    def _fail(self, inst: _Instance, err: Any) -> None:
        self._local.instance = None  # the guest heap may be inconsistent: start afresh
        _wfunc.LAST_EXCEPTION = None
        if err:
            message = str(wasmtime.WasmtimeError._from_ptr(ctypes.cast(err, ctypes.POINTER(ffi.wasmtime_error_t))))
        else:
            message = str(wasmtime.Trap._from_ptr(inst.trap))
        raise PolicyTrap(f"decide-with trapped: {message}")


def _string(view: memoryview, slot: int, origin: int) -> str:
    ptr, n = _PTR_LEN.unpack_from(view, slot)
    off = ptr - origin
    if off < 0 or off + n > len(view):
        raise PolicyTrap("decide-with returned a string outside guest memory")
    return str(view[off:off + n], "utf-8")


def _read_result(view: memoryview, r: int, origin: int) -> Decision:
    """Lift ``result<decision, policy-error>`` at offset ``r`` of ``view``;
    string pointers are guest addresses, ``origin`` is the view's address."""
    if view[r + 8] == 0 and view[r] == 0:
        return _new_retry(_U64.unpack_from(view, r + 16)[0], view[r + 24] == 1)
    if view[r] == 1:
        code = view[r + 8]
        if code >= len(_ERROR_CODES):
            raise PolicyTrap(f"decide-with returned unknown error code {code}")
        raise PolicyError(_ERROR_CODES[code], _string(view, r + 12, origin), _string(view, r + 20, origin))
    reason = _STOP_REASONS[view[r + 16]]
    dead_letter = None
    if view[r + 24] == 1:
        attempts, elapsed_ms = _ATTEMPTS_ELAPSED.unpack_from(view, r + 48)
        dead_letter = _new_dead_letter(_string(view, r + 32, origin), _string(view, r + 40, origin), attempts,
                                       elapsed_ms, _STOP_REASONS[view[r + 64]])
    return _new_stop(reason, view[r + 17] == 1, dead_letter)
