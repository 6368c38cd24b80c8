"""Compiling and caching core modules: an artifact's main core module
(``artifact.py`` reads it out of the component) and the generated adapter
(``_generated/adapter.wat``, compiled once per process).

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
import threading
from pathlib import Path

import wasmtime

from ._raw import wasmtime_version

CACHE_ENV = "WEBHOOK_RETRY_POLICY_CACHE"

_lock = threading.RLock()
_engine: wasmtime.Engine | None = None
_adapter: wasmtime.Module | None = None


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


def package_data(*parts: str) -> bytes:
    """A file shipped in this package (a directory or a zip), read through the
    package's own loader: ``importlib.resources`` costs ~9 ms of imports at
    cold start on a clean interpreter. Raises ``OSError`` when unreadable."""
    get_data = getattr(__spec__.loader, "get_data", None)
    if get_data is None:  # a loader without get_data: the general route
        from importlib import resources

        return resources.files(__package__).joinpath(*parts).read_bytes()
    data: bytes = get_data(os.path.join(os.path.dirname(__file__), *parts))
    return data


def cache_dir() -> Path | None:
    value = os.environ.get(CACHE_ENV, "")
    if value in ("off", "0"):
        return None
    return Path(value) if value else Path.home() / ".cache" / "webhook-retry-policy"


def compile_module(source: bytes | str) -> wasmtime.Module:
    """``source`` compiled, or mapped from the cache (raises ``wasmtime.WasmtimeError``)."""
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
            import tempfile  # only on a cache miss (~2 ms of imports at cold start)

            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(module.serialize())
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only home: run without the cache
    return module


def adapter() -> wasmtime.Module:
    """The generated adapter, compiled or loaded at most once per process."""
    global _adapter
    with _lock:
        if _adapter is None:
            _adapter = compile_module(package_data("_generated", "adapter.wat").decode("utf-8"))
        return _adapter
