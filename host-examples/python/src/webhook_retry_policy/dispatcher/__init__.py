"""Example asyncio + httpx dispatcher over the policy component (extra
``webhook-retry-policy[dispatcher]``). Run the demo:
``python -m webhook_retry_policy.dispatcher.demo``. Without the extra, importing
or running it fails with one line naming it (``_extra.py``)."""

from . import _extra  # noqa: F401  (first: it checks the extra, before the modules that import it)
from .credentials import EndpointSecrets
from .destination import DestinationRefused, GuardedBackend, refusal
from .dispatcher import Dispatcher, DispatcherConfig, Draining
from .endpoints import LocalEndpoint, LocalEndpoints
from .journal import JournalError, JournalEventStore
from .metrics import DispatcherMetrics
from .replay import ReplayFilter, replay_dead_letters
from .store import DEAD, DELIVERED, HELD, PENDING, EventRecord, InMemoryEventStore
from .transport import attempt, error_kind, make_client, outcome_from_exception, outcome_from_response

__all__ = [
    "DEAD", "DELIVERED", "DestinationRefused", "Dispatcher", "DispatcherConfig", "DispatcherMetrics", "Draining",
    "EndpointSecrets", "EventRecord", "GuardedBackend", "HELD", "InMemoryEventStore", "JournalError",
    "JournalEventStore", "LocalEndpoint", "LocalEndpoints", "PENDING", "attempt", "error_kind",
    "make_client", "outcome_from_exception", "outcome_from_response", "refusal", "ReplayFilter",
    "replay_dead_letters",
]
