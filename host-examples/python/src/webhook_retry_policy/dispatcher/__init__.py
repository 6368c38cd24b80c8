"""Example asyncio + httpx dispatcher over the policy component (extra
``webhook-retry-policy[dispatcher]``). Run the demo:
``python -m webhook_retry_policy.dispatcher.demo``."""

from .dispatcher import Dispatcher
from .endpoints import LocalEndpoint, LocalEndpoints
from .metrics import DispatcherMetrics
from .store import DEAD, DELIVERED, HELD, PENDING, EventRecord, InMemoryEventStore, JsonFileEventStore
from .transport import error_kind, outcome_from_exception, outcome_from_response

__all__ = [
    "DEAD", "DELIVERED", "Dispatcher", "DispatcherMetrics", "EventRecord", "HELD", "InMemoryEventStore",
    "JsonFileEventStore", "LocalEndpoint", "LocalEndpoints", "PENDING", "error_kind", "outcome_from_exception",
    "outcome_from_response",
]
