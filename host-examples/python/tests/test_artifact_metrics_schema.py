"""``Artifact.metrics_schema()`` (docs/metrics.md "The schema as data"):
the component's ``metrics-schema`` read into typed families, the page's 17
in its order, from the artifact asked (active or not); an answer that is not
the documented JSON is a PolicyTrap naming what is wrong."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_metrics_schema import documented

from webhook_retry_policy import MetricFamily, MetricLabel, PolicyTrap, instance
from webhook_retry_policy.artifact import current_artifact, load_artifact
from webhook_retry_policy.component_reader import append_custom_section
from webhook_retry_policy.metrics_schema import parse_metrics_schema

SHIPPED = Path(__file__).resolve().parent.parent / "src" / "webhook_retry_policy" / "retry_policy.wasm"


def test_the_schema_is_the_pages_families_in_its_order_typed():
    schema = current_artifact().metrics_schema()
    families, buckets = documented()
    assert [f.name for f in schema] == list(families)
    for f in schema:
        assert isinstance(f, MetricFamily) and all(isinstance(label, MetricLabel) for label in f.labels)
        typ, labels = families[f.name]
        assert f.type == typ and f.help and f.moved_by in ("engine", "host")
        assert {label.name: None if label.values is None else list(label.values) for label in f.labels} == labels
        assert list(f.buckets_s) == buckets.get(f.name, [])
    assert current_artifact().metrics_schema() is schema  # read once


def test_an_artifact_that_is_not_the_active_one_answers_its_own_schema(monkeypatch):
    expected = current_artifact().metrics_schema()
    other = load_artifact(append_custom_section(SHIPPED.read_bytes(), "metrics-schema-test", b"x"))
    assert other is not current_artifact()
    monkeypatch.setattr(instance, "current", lambda: pytest.fail("asked the active artifact's instance"))
    assert other.metrics_schema() == expected


@pytest.mark.parametrize(("text", "where"), [
    ("not json", "text that is not JSON"),
    ('{"format": 2, "families": []}', "no schema"),
    ('{"format": 1, "families": [{"name": "x"}]}', "families[0]: want an object with exactly"),
    ('{"format": 1, "families": [{"name": "x", "type": "summary", "help": "", "labels": [], "buckets_s": [],'
     ' "moved_by": "host"}]}', "families[0].type"),
    ('{"format": 1, "families": [{"name": "x", "type": "counter", "help": "", "labels": [{"name": "k",'
     ' "values": [1]}], "buckets_s": [], "moved_by": "host"}]}', "families[0].labels[0].values[0]"),
    ('{"format": 1, "families": [{"name": "x", "type": "histogram", "help": "", "labels": [],'
     ' "buckets_s": ["1"], "moved_by": "host"}]}', "families[0].buckets_s"),
])
def test_an_answer_that_is_not_the_schema_is_a_trap_naming_where(text, where):
    with pytest.raises(PolicyTrap, match=re.escape(f"`metrics-schema` answered {where}")):
        parse_metrics_schema(text)


def test_a_family_named_twice_is_a_trap():
    family = {"name": "x", "type": "gauge", "help": "", "labels": [], "buckets_s": [], "moved_by": "host"}
    with pytest.raises(PolicyTrap, match="a name twice"):
        parse_metrics_schema(json.dumps({"format": 1, "families": [family, family]}))
