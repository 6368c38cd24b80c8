"""Shared fixtures. The vectors directory defaults to the repo's
tests/vectors; `--vectors DIR` (or $VECTORS_DIR) runs any other directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from webhook_retry_policy import (
    Backoff,
    BucketCounts,
    Budget,
    BudgetCounts,
    DeliveryState,
    ManualClock,
    Policy,
)

REPO_VECTORS = Path(__file__).resolve().parents[3] / "tests" / "vectors"
NOW_MS = 1_700_000_000_000


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--vectors", default=None, help="directory of conformance vector files")


@pytest.fixture(scope="session")
def vectors_dir(request: pytest.FixtureRequest) -> Path:
    chosen = request.config.getoption("--vectors") or os.environ.get("VECTORS_DIR")
    return Path(chosen) if chosen else REPO_VECTORS


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(NOW_MS)


@pytest.fixture
def policy() -> Policy:
    return Policy(
        backoff=Backoff(base_ms=2000, factor=2.0, cap_ms=300_000, jitter="full"),
        window_ms=900_000,
        hard_cap=16,
        budget=Budget(ratio=0.1, window_ms=60_000, min_sample=50, sliding=True),
    )


@pytest.fixture
def state() -> DeliveryState:
    return DeliveryState("evt_1", "ep_42", attempt=1, max_attempts=13, first_attempted_at_ms=NOW_MS)


@pytest.fixture
def healthy_counts() -> BudgetCounts:
    return BudgetCounts(BucketCounts(1000, 5), BucketCounts(1000, 5))
