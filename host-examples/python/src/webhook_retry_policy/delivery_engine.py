"""The delivery engine (docs/engine.md): a thin driver over the component's
``engine-open`` / ``engine-feed`` / ``engine-resume`` / ``engine-close``.

The engine decides everything (sends, store calls, journal lines, holds,
decisions, timeouts); this class only moves JSON text across, ONE
component call per batch, and parses the answer. It runs on this thread's
instance of the active artifact (``instance.py``: the same pinned,
self-tested artifact every other call uses, so ``RETRY_POLICY_ARTIFACT``
applies).

An engine lives inside the instance that opened it: use a
:class:`DeliveryEngine` on the thread that opened it. An artifact swap does
not move it (it keeps running on the artifact it was opened on); a trap
loses it (the instance is dropped, :class:`PolicyTrap`). ``close()`` it, or
use ``with``: an instance holds at most 64 live engines.

Errors: a refused *input* of a batch is data, an entry of the answer's
``errors`` (``{"index", "error", "message"}``), and the rest of the batch
goes on. A refused *call* (a config the engine refuses, a batch that is not
a JSON array, a stale handle, a value that cannot become JSON) raises
:class:`EngineError` with the engine's ``code`` and ``message``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from ._generated import abi
from .errors import CodedError, PolicyError, PolicyTrap
from .instance import Instance, current

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ["DeliveryEngine", "EngineAnswer", "EngineError"]

_dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


class EngineError(CodedError, ValueError):
    """The engine refused a call: ``code`` (snake_case, docs/engine.md
    section 2, e.g. ``invalid_input`` or a policy document's code) and
    ``message``."""


class EngineAnswer(NamedTuple):
    """One batch's answer (docs/engine.md section 14)."""

    outputs: list[dict[str, Any]]  # the actions, in order
    errors: list[dict[str, Any]]  # refused inputs: {"index", "error", "message"}
    timeout_ms: int | None  # when to send a ``tick`` (None: nothing queued, or draining)


class DeliveryEngine:
    """One engine in the component, opened on ``config`` (a dict, serialized
    to JSON, or JSON text; docs/engine.md section 1)."""

    __slots__ = ("_inst", "_thread", "handle")

    def __init__(self, config: Mapping[str, Any] | str) -> None:
        self._inst: Instance = current()
        self._thread = threading.get_ident()
        self.handle: int = self._call("engine-open", _text(config, "config"))

    def feed(self, inputs: Sequence[Mapping[str, Any]] | str) -> EngineAnswer:
        """Feed a batch of inputs (each ``{"op", "now_ms", ...}``, docs/engine.md
        section 2; or the batch's JSON text) and take every action it caused."""
        return _answer(self._call("engine-feed", self.handle, _text(inputs, "inputs")))

    def resume(self, now_ms: int, journal: bytes) -> EngineAnswer:
        """Resume from the journal's raw bytes (docs/engine.md section 10; a
        torn tail need not be UTF-8), answered as :meth:`feed`."""
        return _answer(self._call("engine-resume", self.handle, now_ms, journal))

    def close(self) -> None:
        """Forget the engine; later calls are refused by the component (a stale handle)."""
        self._call("engine-close", self.handle)

    def __enter__(self) -> DeliveryEngine:
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _call(self, name: str, *args: Any) -> Any:
        inst = self._inst
        if threading.get_ident() != self._thread:
            raise EngineError("invalid_input", "a DeliveryEngine is used on the thread that opened it")
        if inst.artifact is None:
            raise PolicyTrap("this engine's instance trapped and was dropped: open a new engine")
        try:
            return inst.run(name, *args)
        except abi.GuestError as e:  # result<_, string>: the engine's refusal as JSON text
            raise _refusal(inst, name, str(e)) from None
        except PolicyError as e:  # a value the WIT type refuses (e.g. now_ms < 0)
            raise EngineError(e.code.value, str(e)) from None


def _text(value: Any, what: str) -> str:
    if isinstance(value, str):
        return value
    try:
        return _dumps(value)
    except (TypeError, ValueError, RecursionError) as e:
        raise EngineError("invalid_input", f"{what}: not a JSON value: {e}") from None


def _answer(text: str) -> EngineAnswer:
    try:
        a = json.loads(text)
        return EngineAnswer(a["outputs"], a["errors"], a["timeout_ms"])
    except (ValueError, KeyError, TypeError) as e:
        raise PolicyTrap(f"the engine's answer is not {{outputs, errors, timeout_ms}}: {e!r}") from None


def _refusal(inst: Instance, name: str, text: str) -> EngineError:
    """The engine's JSON refusal ``{"error", "message"}`` of ``name`` as an EngineError."""
    try:
        error = json.loads(text)
        return EngineError(str(error["error"]), str(error.get("message", "")))
    except (KeyError, TypeError, ValueError) as e:
        inst.artifact = None
        raise PolicyTrap(f"`{name}` returned a malformed error: {e!r}") from None
