"""Shared fixtures: one private Redis per test module, the policy file dir."""

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
