"""The Python dispatcher (extra ``webhook-retry-policy[dispatcher]``): a
driver of the delivery engine (docs/engine.md, ``driver.py``) run as
``python -m webhook_retry_policy.dispatcher.replica`` (docs/replica.md) or
``python -m webhook_retry_policy.dispatcher.demo``. Without the extra,
importing or running it fails with one line naming it (``_extras.py``)."""

from .._extras import require_extra

require_extra("dispatcher", ("httpx", "httpcore", "prometheus_client"))  # before the modules that import them

from .admissions import Admissions  # noqa: E402
from .credentials import EndpointSecrets  # noqa: E402
from .destination import DestinationRefused, GuardedBackend, refusal  # noqa: E402
from .driver import Driver  # noqa: E402
from .endpoints import LocalEndpoint, LocalEndpoints  # noqa: E402
from .journal_file import JournalError, JournalFile  # noqa: E402
from .metrics import DispatcherMetrics  # noqa: E402
from .transport import attempt, error_kind, make_client, post  # noqa: E402

__all__ = [
    "Admissions", "DestinationRefused", "DispatcherMetrics", "Driver", "EndpointSecrets", "GuardedBackend",
    "JournalError", "JournalFile", "LocalEndpoint", "LocalEndpoints", "attempt", "error_kind", "make_client", "post",
    "refusal",
]
