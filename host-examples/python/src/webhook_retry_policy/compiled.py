"""A compiled policy (ABI 0.3): the component validates a policy and its
``health`` section ONCE (``compile``) and names them by a ``u32`` handle,
so a step lowers only the event's state, the outcome, the time and the
store's reply.

A handle lives in the component instance that compiled it, and this
package runs one instance per thread and artifact (``instance.py``, rebuilt
after a trap or an artifact swap). So a :class:`CompiledPolicy` holds one
handle per instance, compiled lazily on the first call a thread makes
through it; a thread on a new instance (a swap, a trap) compiles anew and
never uses a handle of the old one.

Releasing (at most 65535 live handles per instance): :meth:`close` (or
leaving its ``with`` block) discards the calling thread's handle at once;
another thread's handle is queued on its instance and discarded by that
thread before its next compile (an instance is never called from two
threads). If the object is garbage-collected unclosed, a
``weakref.finalize`` queues every handle the same way (a finalizer may run
in the middle of a call, so it never calls into an instance itself). A
handle dies with its instance anyway. After ``close`` every call raises
``PolicyError(invalid_input)``, as the component does for a stale handle.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, cast

from .errors import PolicyError, PolicyTrap
from .instance import Instance, current, this_thread_instance
from .types import (
    Admission,
    AdvanceResult,
    AttemptOutcome,
    CallOp,
    DeliveryState,
    Finished,
    GateAnswer,
    GateEvent,
    Health,
    HealthDocument,
    HealthView,
    Pacer,
    Policy,
    PolicyDocument,
    StoreCall,
    StoreReply,
    Wake,
    WakeVerdict,
)

if TYPE_CHECKING:
    from types import TracebackType


class _Handles:
    """One compiled policy's handles, per instance (shared with its finalizer)."""

    __slots__ = ("policy", "health", "instances", "closed", "__weakref__")

    def __init__(self, policy: Policy, health: Health | None) -> None:
        self.policy, self.health = policy, health
        self.instances: weakref.WeakSet[Instance] = weakref.WeakSet()
        self.closed = False

    def compile_in(self, inst: Instance) -> int:
        if self.closed:
            raise PolicyError("invalid_input", "handle", "this compiled policy is closed")
        inst.discard_doomed()
        handle = cast(int, inst.run("compile", self.policy, self.health))
        inst.handles[self] = handle
        self.instances.add(inst)
        return handle

    def release(self, now: bool) -> None:
        """Forget every handle: ``now`` discards this thread's at once; the others are queued."""
        self.closed = True
        mine = this_thread_instance() if now else None
        for inst in list(self.instances):
            handle = inst.handles.pop(self, None)
            if handle is None:
                continue
            if inst is mine:
                try:
                    inst.run("discard", handle)
                except PolicyTrap:
                    pass  # the instance is dropped, and its handles with it
            else:
                inst.doomed.append(handle)
        self.instances = weakref.WeakSet()


def _finalize(handles: _Handles) -> None:
    handles.release(now=False)


class CompiledPolicy:
    """A policy (and its format-3 ``health`` section, if any) compiled in
    the component. Build it once per policy value, or per class of a loaded
    document (:meth:`for_class`), and reuse it for every step; ``close()``
    it (or use ``with``) when the policy is swapped out.

    Compiling validates: an invalid policy or section raises
    :class:`PolicyError` here, on the calling thread's instance."""

    __slots__ = ("_h", "_finalizer", "__weakref__")

    def __init__(self, policy: Policy, health: Health | None = None) -> None:
        self._h = _Handles(policy, health)
        self._h.compile_in(current())
        self._finalizer = weakref.finalize(self, _finalize, self._h)

    @classmethod
    def for_class(cls, document: PolicyDocument | HealthDocument, event_class: str) -> CompiledPolicy:
        """The class's policy, with its effective ``health`` section when
        ``document`` came from ``load_health_document`` (format 3)."""
        for c in document.classes:
            if c.name == event_class:
                return cls(c.policy, getattr(c, "health", None))
        names = ", ".join(c.name for c in document.classes)
        raise PolicyError("unknown_event_class", "class", f"no event class `{event_class}` (defined: {names})")

    @property
    def policy(self) -> Policy:
        return self._h.policy

    @property
    def health(self) -> Health | None:
        return self._h.health

    @property
    def closed(self) -> bool:
        return self._h.closed

    def handle(self, inst: Instance | None = None) -> int:
        """This thread's handle (compiled on first use in its instance)."""
        inst = inst or current()
        h = inst.handles.get(self._h)
        return h if h is not None else self._h.compile_in(inst)

    def _run(self, name: str, *args: Any) -> Any:
        inst = current()
        h = inst.handles.get(self._h)
        if h is None:
            h = self._h.compile_in(inst)
        return inst.run(name, h, *args)

    def admit(self, event_class: str, policy_version: str, now_ms: int) -> Admission:
        """The schedule a new event is admitted under (the hash covers the section)."""
        return cast(Admission, self._run("admit-compiled", event_class, policy_version, now_ms))

    def advance(self, state: DeliveryState, outcome: AttemptOutcome, now_ms: int, probe: bool = False) -> AdvanceResult:
        """After an attempt: ``Decided(decision, call)`` (make ``call``, if
        any, without waiting on it) or the ``StoreCall`` to make before
        :meth:`finish`. ``probe``: the attempt was sent as a granted probe."""
        inst = current()  # _run inlined: the step's hot path
        h = inst.handles.get(self._h)
        if h is None:
            h = self._h.compile_in(inst)
        return cast(AdvanceResult, inst.run("advance", h, state, outcome, probe, now_ms))

    def finish(self, state: DeliveryState, outcome: AttemptOutcome, now_ms: int, reply: StoreReply) -> Finished:
        """The verdict once the store answered :meth:`advance`'s call (``Reservation`` or ``Unavailable()``)."""
        inst = current()
        h = inst.handles.get(self._h)
        if h is None:
            h = self._h.compile_in(inst)
        return cast(Finished, inst.run("finish", h, state, outcome, now_ms, reply))

    def gate(self, event: GateEvent, view: HealthView | None, pacer: Pacer, now_ms: int) -> GateAnswer:
        """The gate before every send: send, probe, hold or stop, and the pacer to keep."""
        return cast(GateAnswer, self._run("gate", event, view, pacer, now_ms))

    def after_probe(self, event: GateEvent, granted: bool, view: HealthView, pacer: Pacer, now_ms: int) -> GateAnswer:
        """The gate once the ``probe`` call answered."""
        return cast(GateAnswer, self._run("after-probe", event, granted, view, pacer, now_ms))

    def settle_wake(self, wake: Wake, reply: StoreReply, now_ms: int) -> WakeVerdict:
        """A budget-held retry's wake, once its ``reserve`` call answered."""
        return cast(WakeVerdict, self._run("settle-wake", wake, reply, now_ms))

    def call_for(self, op: CallOp, endpoint_id: str, now_ms: int) -> StoreCall:
        """A call not tied to an attempt: ``reserve`` (a wake) or ``probe`` (the gate asked)."""
        return cast(StoreCall, self._run("call-for", op, endpoint_id, now_ms))

    def close(self) -> None:
        """Discard the handles (this thread's now, other threads' at their next compile). Idempotent."""
        if self._finalizer.detach() is not None:
            self._h.release(now=True)

    def __enter__(self) -> CompiledPolicy:
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"CompiledPolicy({self._h.policy!r}, {self._h.health!r}{', closed' if self._h.closed else ''})"
