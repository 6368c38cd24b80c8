"""The component's metrics schema (docs/metrics.md "The schema as data"):
``metrics-schema()`` answers docs/metrics.md's families, in the page's
order, typed as the generated glue lifts them (:class:`MetricFamily`,
:class:`MetricLabel`, :class:`MetricType`, :class:`MovedBy`; ``type_`` is
the family's type, a ``str`` enum equal to ``"counter"``, ``"gauge"`` or
``"histogram"``). A dispatcher registers its Prometheus client's families
from them (``dispatcher/metrics.py``); no list of names, help texts, label
values or buckets is kept here, and no text is parsed.
"""

from ._generated.types import MetricFamily, MetricLabel, MetricType, MovedBy

__all__ = ["MetricFamily", "MetricLabel", "MetricType", "MovedBy"]
