"""The REPLICA summary (docs/replica.md "The summary"), tallied from the
engine's actions (``delivered``, ``dead_letter``, ``count``, ``gauge``) and
the host's own sends (``attempts``: requests started, including ones
abandoned at the drain deadline)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..transport_kinds import zero_counts
from ..types import HoldReason, StopReason

HOST = "python"


@dataclass
class Tally:
    events: int = 0
    first_attempts: int = 0
    retries: int = 0
    stop_reasons: dict[str, int] = field(default_factory=lambda: {r.value: 0 for r in StopReason})
    transport_errors: dict[str, int] = field(default_factory=zero_counts)
    store_errors: int = 0
    budget_disagreements: int = 0
    holds: dict[str, int] = field(default_factory=lambda: {r.value: 0 for r in HoldReason})
    held: int = 0
    probe_calls: int = 0
    drained: bool = False

    def sent(self, attempt: int) -> None:
        if attempt == 1:
            self.first_attempts += 1
        else:
            self.retries += 1

    def count(self, name: str, label: dict[str, str] | None, delta: int) -> None:
        """An engine ``count`` action's share of the summary."""
        value = next(iter(label.values())) if label else ""
        if name == "webhook_transport_errors_total":
            self.transport_errors[value] = self.transport_errors.get(value, 0) + delta
        elif name == "webhook_budget_store_errors_total":
            self.store_errors += delta
        elif name == "webhook_budget_disagreements_total":
            self.budget_disagreements += delta
        elif name == "webhook_holds_total":
            self.holds[value] = self.holds.get(value, 0) + delta
        elif name == "webhook_probe_calls_total":
            self.probe_calls += delta

    def stopped(self, reason: str) -> None:
        self.stop_reasons[reason] = self.stop_reasons.get(reason, 0) + 1

    def summary(self, round_trips: int, elapsed_ms: int) -> dict[str, Any]:
        """The one JSON line; an event neither delivered nor dead-lettered is pending."""
        return {
            "host": HOST,
            "events": self.events,
            "attempts": self.first_attempts + self.retries,
            "first_attempts": self.first_attempts,
            "retries": self.retries,
            "stop_reasons": dict(self.stop_reasons),
            "pending": self.events - sum(self.stop_reasons.values()),
            "drained": self.drained,
            "transport_errors": dict(self.transport_errors),
            "redis_round_trips": round_trips,
            "store_errors": self.store_errors,
            "budget_disagreements": self.budget_disagreements,
            "elapsed_ms": elapsed_ms,
            "holds": dict(self.holds), "held": self.held, "probe_calls": self.probe_calls,
        }
