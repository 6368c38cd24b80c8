"""Finding, compiling and caching the component (once per process).

The component file ships inside the package (``retry_policy.wasm``, copied
from ``dist/`` by ``host-examples/python/setup``) and is found with
``importlib.resources``, so a wheel or ``pip install .`` works the same as
the source tree. ``WEBHOOK_RETRY_POLICY_WASM`` overrides the path.

One :class:`wasmtime.Engine` and one compiled :class:`Component` (and, for
the fast path, one compiled core :class:`Module`) are shared by every
thread: wasmtime's engines and compiled artefacts are thread-safe.
Stores and instances are not; see ``instance.py``.
"""

from __future__ import annotations

import os
import threading
from importlib import resources
from typing import Optional

import wasmtime
from wasmtime.component import Component

WASM_ENV = "WEBHOOK_RETRY_POLICY_WASM"
WASM_RESOURCE = "retry_policy.wasm"

_lock = threading.Lock()
_engine: Optional[wasmtime.Engine] = None
_components: dict[bytes, Component] = {}
_bytes_cache: dict[str, bytes] = {}


def component_bytes(path: Optional[str] = None) -> bytes:
    """The component binary: ``path``, else ``$WEBHOOK_RETRY_POLICY_WASM``,
    else the copy shipped in the package."""
    path = path or os.environ.get(WASM_ENV)
    key = path or f"<package>/{WASM_RESOURCE}"
    with _lock:
        cached = _bytes_cache.get(key)
    if cached is not None:
        return cached
    if path:
        with open(path, "rb") as f:
            data = f.read()
    else:
        res = resources.files(__package__).joinpath(WASM_RESOURCE)
        if not res.is_file():
            raise FileNotFoundError(
                f"{WASM_RESOURCE} is not in the installed package: run scripts/build-component, "
                f"then host-examples/python/setup (or set {WASM_ENV})"
            )
        data = res.read_bytes()
    with _lock:
        _bytes_cache[key] = data
    return data


def engine() -> wasmtime.Engine:
    """The process-wide engine. Linear memories never move
    (``memory_may_move = False``), so the fast path may keep a pointer into
    guest memory for the life of an instance."""
    global _engine
    with _lock:
        if _engine is None:
            cfg = wasmtime.Config()
            cfg.memory_may_move = False
            _engine = wasmtime.Engine(cfg)
        return _engine


def component(path: Optional[str] = None) -> Component:
    """The compiled component, compiled at most once per process per binary."""
    data = component_bytes(path)
    eng = engine()
    with _lock:
        comp = _components.get(data)
        if comp is None:
            comp = Component(eng, data)
            _components[data] = comp
        return comp
