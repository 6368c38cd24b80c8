"""The replica's one swap path, for every source of a new artifact: the
file watch (``--watch-artifact-ms``, :mod:`..artifact_watch`) and the
fleet rollout (``--artifact-from-redis``, :mod:`.rollout_follow`).

Both check and activate the artifact with ``swap_artifact`` (the host's
one loader) on their own thread, then call :meth:`SwapPath.swapped` or
:meth:`SwapPath.refused`. A swap is counted (``webhook_policy_reloads_total``),
named on ``/metrics`` (``webhook_policy_info``) and logged; on the loop's
thread the driver then drains its engine into one of the new artifact
(docs/engine.md section 11): events keep the policy they were admitted
under, and without ``--policy`` the new artifact's embedded document is
current for events admitted from then on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from types import SimpleNamespace

from ..artifact import ArtifactInfo, current_artifact, describe
from ..delivery_engine import DeliveryEngine
from .driver import Driver
from .metrics import DispatcherMetrics

artifact_log = logging.getLogger("webhook_retry_policy.artifact")


class SwapPath:
    """What follows a swap, whichever source made it; ``open_engine(document)`` opens an engine of the
    active artifact."""

    def __init__(self, args: SimpleNamespace, metrics: DispatcherMetrics, driver: Driver, document: str,
                 version: str, open_engine: Callable[[str], DeliveryEngine]) -> None:
        self.args, self.metrics, self.driver, self.open_engine = args, metrics, driver, open_engine
        self.document, self.version = document, version
        self.loop = asyncio.get_running_loop()

    def swapped(self, old: ArtifactInfo, new: ArtifactInfo) -> None:
        """``new`` is active now (any thread): count, name and log it, then swap engines on the loop."""
        self.metrics.policy_reloads.labels("applied").inc()
        text = current_artifact().document_text if self.args.policy is None else None
        version = new.document_version if text is not None else self.version
        self.metrics.set_policy_info(new.sha256, new.abi, version)
        artifact_log.info("policy artifact swapped sha256=%s -> %s", old.sha256, describe(new, version).removeprefix("sha256="))
        self.loop.call_soon_threadsafe(self._on_loop, text, version)

    def refused(self, line: str = "") -> None:
        """A refused artifact (any thread): counted, and ``line`` logged (the rollout logs its own lines);
        the running one stays."""
        self.metrics.policy_reloads.labels("refused").inc()
        if line:
            artifact_log.warning("%s", line)

    def _on_loop(self, text: str | None, version: str) -> None:
        if text is not None:
            self.document, self.version = text, version
        document = self.document
        self.driver.swap(lambda: self.open_engine(document))
