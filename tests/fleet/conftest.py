"""Shared fixtures: one private Redis per test module, the policy file dir,
and which languages' replicas run at all (probed once per run)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fleetlib  # noqa: E402


@pytest.fixture(scope="module")
def redis_server():
    with fleetlib.RedisServer() as r:
        yield r


@pytest.fixture()
def redis_db(redis_server):
    c = redis_server.client()
    c.flushall()
    yield redis_server
    try:
        c.flushall()
    except Exception:
        pass


def require_replica(lang: str) -> None:
    """Skip a test that needs `lang`'s replica when it cannot run; the
    failure itself is reported once, by test_replicas.py, naming the language."""
    why = fleetlib.probe_replica(lang)
    if why is not None:
        pytest.skip(f"{lang} replica cannot run (test_replicas.py::test_the_replica_runs[{lang}] fails): {why[:300]}")


@pytest.fixture()
def rust_replica():
    """The time-sensitive tests use the Rust replica's extra flags (--rate, --store, --resume)."""
    require_replica("rust")
