"""Type checks of the top-level arguments of a decision, shared by the
component API and the fast path (so both refuse the same inputs the same way)."""

from __future__ import annotations

from typing import Any

from . import _checks as c
from .types import BudgetCounts, DeliveryState, HttpResponse, Policy, TransportError


def check_decide_args(policy: Any, state: Any, outcome: Any) -> None:
    c.instance("policy", policy, Policy, "a Policy")
    c.instance("state", state, DeliveryState, "a DeliveryState")
    c.instance("outcome", outcome, (HttpResponse, TransportError), "an HttpResponse or a TransportError")


def check_decide_with_args(policy: Any, state: Any, outcome: Any, now_ms: Any, budget_counts: Any) -> None:
    check_decide_args(policy, state, outcome)
    c.uint("now_ms", now_ms)
    if budget_counts is not None:
        c.instance("budget_counts", budget_counts, BudgetCounts, "BudgetCounts or None (store unreadable)")
