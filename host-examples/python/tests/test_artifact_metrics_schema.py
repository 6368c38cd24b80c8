"""``Artifact.metrics_schema()`` (docs/metrics.md "The schema as data"):
the component's ``metrics-schema`` as typed families (the generated glue
lifts them), the page's 17 in its order, from the artifact asked (active or
not)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_metrics_schema import documented

from webhook_retry_policy import MetricFamily, MetricLabel, instance
from webhook_retry_policy.artifact import current_artifact, load_artifact
from webhook_retry_policy.component_reader import append_custom_section

SHIPPED = Path(__file__).resolve().parent.parent / "src" / "webhook_retry_policy" / "retry_policy.wasm"


def test_the_schema_is_the_pages_families_in_its_order_typed():
    schema = current_artifact().metrics_schema()
    families, buckets = documented()
    assert [f.name for f in schema] == list(families)
    for f in schema:
        assert isinstance(f, MetricFamily) and all(isinstance(label, MetricLabel) for label in f.labels)
        typ, labels = families[f.name]
        assert f.type_ == typ and f.help and f.moved_by in ("engine", "host")
        assert {label.name: None if label.values is None else list(label.values) for label in f.labels} == labels
        assert list(f.buckets_s) == buckets.get(f.name, [])
    assert current_artifact().metrics_schema() is schema  # read once


def test_an_artifact_that_is_not_the_active_one_answers_its_own_schema(monkeypatch):
    expected = current_artifact().metrics_schema()
    other = load_artifact(append_custom_section(SHIPPED.read_bytes(), "metrics-schema-test", b"x"))
    assert other is not current_artifact()
    monkeypatch.setattr(instance, "current", lambda: pytest.fail("asked the active artifact's instance"))
    assert other.metrics_schema() == expected
