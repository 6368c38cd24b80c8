"""The Python dispatcher (extra ``webhook-retry-policy[dispatcher]``): a
driver of the delivery engine (docs/engine.md, ``driver.py``) run as
``python -m webhook_retry_policy.dispatcher.replica`` (docs/replica.md) or
``python -m webhook_retry_policy.dispatcher.demo``. Without the extra,
importing or running it fails with one line naming it (``_extra.py``)."""

from . import _extra  # noqa: F401  (first: it checks the extra, before the modules that import it)
from .credentials import EndpointSecrets
from .destination import DestinationRefused, GuardedBackend, refusal
from .driver import Admissions, Driver
from .endpoints import LocalEndpoint, LocalEndpoints
from .journal_file import JournalError, JournalFile
from .metrics import DispatcherMetrics
from .transport import attempt, error_kind, make_client, outcome_from_exception, outcome_from_response, post

__all__ = [
    "Admissions", "DestinationRefused", "DispatcherMetrics", "Driver", "EndpointSecrets", "GuardedBackend",
    "JournalError", "JournalFile", "LocalEndpoint", "LocalEndpoints", "attempt", "error_kind", "make_client",
    "outcome_from_exception", "outcome_from_response", "post", "refusal",
]
