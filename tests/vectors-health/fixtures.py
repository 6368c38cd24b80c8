"""Shared inputs of the format 3 vectors and the hand check (see generate.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import model as m  # noqa: E402

T0 = 1_796_180_820_000  # a bucket edge: 29936347 * 60000
assert T0 % 60000 == 0

BACKOFF = {"base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "none"}
FIXED = {"ratio": 0.1, "window_ms": 60000, "min_sample": 50, "sliding": False}
SLIDING = {**FIXED, "sliding": True}
POLICY = {"backoff": BACKOFF, "window_ms": 900000, "hard_cap": 16, "budget": FIXED}
SECTION = m.parse_section({})  # every default
SMALL = m.parse_section({"circuit": {"cooldown_ms": 5000, "cooldown_max_ms": 12000}})
BUCKET = T0 // 60000


def hand(name: str, got: Any, want: dict[str, Any]) -> None:
    """A hand-computed expectation: every key of `want` must match the model."""
    def pick(g: Any, w: Any) -> Any:
        if isinstance(w, dict):
            return {k: pick(g[k], v) for k, v in w.items()}
        if isinstance(w, list) and isinstance(g, list) and len(w) == len(g):
            return [pick(x, y) for x, y in zip(g, w)]
        return g
    if pick(got, want) != want:
        sys.exit(f"hand check failed: {name}\n  model: {pick(got, want)}\n  hand:  {want}")
