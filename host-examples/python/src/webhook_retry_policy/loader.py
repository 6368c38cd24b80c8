"""Finding, compiling and caching the policy's core module (once per process).

The package ships the component's main core module
(``retry_policy.core.wasm``, extracted from ``dist/retry_policy.wasm`` by
``witgen core`` in ``setup``: the one component-file reader) and the
generated adapter (``_generated/adapter.wat``). ``WEBHOOK_RETRY_POLICY_CORE``
overrides the core module's path.

Cold start: compiling both takes tens of milliseconds, so each compiled
module is serialized once into a cache directory
(``$WEBHOOK_RETRY_POLICY_CACHE``, default ``~/.cache/webhook-retry-policy``;
``off`` disables it), keyed by the SHA-256 of the module bytes and the
wasmtime version, written atomically, and later mapped with
``Module.deserialize_file``. The directory holds only what this package
wrote there (wasmtime trusts a serialized module), created mode 0700.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from importlib import resources
from pathlib import Path

import wasmtime

from ._raw import wasmtime_version

CORE_ENV = "WEBHOOK_RETRY_POLICY_CORE"
CACHE_ENV = "WEBHOOK_RETRY_POLICY_CACHE"
CORE_RESOURCE = "retry_policy.core.wasm"

_lock = threading.RLock()
_engine: wasmtime.Engine | None = None
_modules: dict[str, wasmtime.Module] = {}


def engine() -> wasmtime.Engine:
    """The process-wide engine. Linear memories never move
    (``memory_may_move = False``), so a view of guest memory stays valid."""
    global _engine
    with _lock:
        if _engine is None:
            cfg = wasmtime.Config()
            cfg.memory_may_move = False
            _engine = wasmtime.Engine(cfg)
        return _engine


def core_bytes() -> bytes:
    path = os.environ.get(CORE_ENV)
    if path:
        return Path(path).read_bytes()
    res = resources.files(__package__).joinpath(CORE_RESOURCE)
    if not res.is_file():
        raise FileNotFoundError(
            f"{CORE_RESOURCE} is not in the installed package: run scripts/build-component, then "
            f"host-examples/python/setup (or set {CORE_ENV})"
        )
    return res.read_bytes()


def adapter_text() -> str:
    return resources.files(__package__).joinpath("_generated", "adapter.wat").read_text("utf-8")


def cache_dir() -> Path | None:
    value = os.environ.get(CACHE_ENV, "")
    if value in ("off", "0"):
        return None
    return Path(value) if value else Path.home() / ".cache" / "webhook-retry-policy"


def _compile(source: bytes | str) -> wasmtime.Module:
    raw = source.encode() if isinstance(source, str) else source
    key = hashlib.sha256(raw + b"\0wasmtime " + wasmtime_version().encode() + b"\0fixed-memory").hexdigest()[:40]
    directory = cache_dir()
    path = directory / f"{key}.cwasm" if directory is not None else None
    eng = engine()
    if path is not None and path.is_file():
        try:
            return wasmtime.Module.deserialize_file(eng, str(path))
        except Exception:
            pass  # stale or foreign: compile and replace it
    module = wasmtime.Module(eng, source)
    if path is not None:
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(module.serialize())
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only home: run without the cache
    return module


def modules() -> tuple[wasmtime.Module, wasmtime.Module]:
    """(core module, adapter module), compiled or loaded at most once per process."""
    with _lock:
        if "core" not in _modules:
            _modules["core"] = _compile(core_bytes())
            _modules["adapter"] = _compile(adapter_text())
        return _modules["core"], _modules["adapter"]
