"""/metrics is docs/metrics.md exactly: the families, types, label names,
closed label values (present from the first scrape at 0) and buckets are
read from that page's tables and compared with a scrape of this package's
own server; no other webhook_* family, no *_created series."""

from __future__ import annotations

import json
import re
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from test_replica import REPLICA, storm_policy

from webhook_retry_policy import PolicyTrap
from webhook_retry_policy.artifact import current_artifact
from webhook_retry_policy.dispatcher import LocalEndpoint
from webhook_retry_policy.dispatcher.metrics import DispatcherMetrics

ROOT = Path(__file__).resolve().parents[3]


def documented() -> tuple[dict[str, tuple[str, dict[str, list[str] | None]]], dict[str, list[float]]]:
    """{sample name: (type, {label: closed values or None})}, {histogram: buckets} from docs/metrics.md."""
    text = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    kinds = [k["kind"] for k in json.loads((ROOT / "fleet" / "transport-kinds.json").read_text())["kinds"]]
    families: dict[str, tuple[str, dict[str, list[str] | None]]] = {}
    for line in text.splitlines():
        if not line.startswith("| `webhook_"):
            continue
        cells = [c.strip() for c in line.replace("\\|", "\x00").strip().strip("|").split("|")]
        labels: dict[str, list[str] | None] = {}
        for part in filter(None, (p.strip() for p in cells[2].split(","))):
            m = re.match(r"`(\w+)`\s*(?:=\s*(.*))?$", part)
            assert m, part
            values = None
            if m.group(2):
                values = kinds if "transport-kinds.json" in m.group(2) else \
                    [v.strip().strip("`") for v in m.group(2).split("\x00")]
            labels[m.group(1)] = values
        families[cells[0].strip("`")] = (cells[1], labels)
    section = text.split("### Buckets", 1)[1].split("\n## ", 1)[0]
    buckets = {m.group(1): [float(x) for x in m.group(2).split(",") if x.strip()]
               for m in re.finditer(r"\*\s*`(\w+)`:\s*([0-9.,\s]+)", section)}
    return families, buckets


def scraped(url: str) -> dict[str, tuple[str, list]]:
    with urllib.request.urlopen(url, timeout=10) as r:
        text = r.read().decode()
    assert "_created" not in text
    out = {}
    for fam in text_string_to_metric_families(text):
        if fam.name.startswith("webhook_"):
            sample_name = fam.name + "_total" if fam.type == "counter" else fam.name
            out[sample_name] = (fam.type, fam.samples)
    return out


def assert_matches_the_page(url: str) -> dict[str, tuple[str, list]]:
    families, buckets = documented()
    assert len(families) == 17 and set(buckets) == {"webhook_budget_store_duration_seconds",
                                                   "webhook_delivery_duration_seconds"}
    got = scraped(url)
    assert sorted(got) == sorted(families), "families differ from docs/metrics.md"
    for name, (typ, labels) in families.items():
        got_type, samples = got[name]
        assert got_type == typ, name
        if typ == "histogram":
            les = [float(s.labels["le"]) for s in samples if s.name.endswith("_bucket")]
            assert les == [*buckets[name], float("inf")], name
            continue
        if name == "webhook_policy_info":
            assert len(samples) == 1 and set(samples[0].labels) == set(labels) and samples[0].value == 1
            continue
        for s in samples:
            assert set(s.labels) == set(labels), (name, s.labels)
        for label, values in labels.items():
            if values is not None:
                assert sorted(s.labels[label] for s in samples) == sorted(values), (name, label)
        if not labels:
            assert len(samples) == 1, name
    return got


def test_a_fresh_dispatcher_serves_every_documented_family_and_closed_label_at_zero():
    m = DispatcherMetrics()
    m.set_policy_info("ab" * 32, "2", "v1")
    m.serve(0)
    try:
        got = assert_matches_the_page(m.url())
    finally:
        m.close()
    assert all(s.value == 0 for s in got["webhook_transport_errors_total"][1])
    assert all(s.value == 0 for s in got["webhook_deadletter_total"][1])




def test_the_replica_serves_the_schema_and_counts_its_run(tmp_path):
    with LocalEndpoint(503) as ep:
        proc = subprocess.Popen([str(REPLICA), "--target", ep.url, "--endpoint-id", "ep-metrics", "--events", "100000",
                                 "--concurrency", "2", "--policy", str(storm_policy(tmp_path)), "--deadline-ms", "4000",
                                 "--metrics-addr", "127.0.0.1:0", "--allow-private-targets"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            url = None
            assert proc.stderr is not None
            for line in proc.stderr:
                if m := re.search(r"metrics on (http://\S+)", line):
                    url = m.group(1)
                    break
            assert url is not None
            deadline = time.monotonic() + 30
            while ep.requests < 20 and time.monotonic() < deadline:
                time.sleep(0.05)
            got = assert_matches_the_page(url)
            first = next(s.value for s in got["webhook_attempts_total"][1] if s.labels == {"kind": "first"})
            assert first > 0
            assert next(s.value for s in got["webhook_delivery_duration_seconds"][1] if s.name.endswith("_count")) > 0
            # no --redis: the engine answers its own budget calls (memory_store), so no store I/O is timed
            assert next(s.value for s in got["webhook_budget_store_duration_seconds"][1] if s.name.endswith("_count")) == 0
        finally:
            proc.terminate()
            proc.communicate(timeout=30)
    assert proc.returncode == 0




def registered(m: DispatcherMetrics) -> list[tuple]:
    """(sample name, type, help, buckets, label names, {label: values}) of each family the registry serves, in order."""
    out = []
    for fam in m.registry.collect():
        samples = [s for s in fam.samples if not s.name.endswith(("_count", "_sum"))]
        names = sorted({k for s in samples for k in s.labels if k != "le"})
        out.append((fam.name + "_total" if fam.type == "counter" else fam.name, fam.type, fam.documentation,
                    tuple(float(s.labels["le"]) for s in samples if s.name.endswith("_bucket"))[:-1], names,
                    {k: sorted({s.labels[k] for s in samples}) for k in names}))
    return out


def test_the_registry_serves_exactly_the_schemas_families_help_labels_and_buckets():
    schema = current_artifact().metrics_schema()
    m = DispatcherMetrics()
    m.set_policy_info("ab" * 32, "webhook:retry-policy@1.0.0", "v1")  # the open labels' one series
    assert m.schema == schema
    assert registered(m) == [
        (f.name, f.type_, f.help, f.buckets_s, sorted(label.name for label in f.labels),
         {label.name: sorted(label.values) if label.values is not None else [{"artifact_sha256": "ab" * 32,
          "abi": "webhook:retry-policy@1.0.0", "document_version": "v1"}[label.name]] for label in f.labels})
        for f in schema]


def test_a_label_value_the_schema_does_not_list_is_ignored_never_a_new_series(capsys):
    m = DispatcherMetrics()
    m.count("webhook_holds_total", {"reason": "not_a_reason"}, 1)
    m.count("webhook_holds_total", {"reason": "not_a_reason"}, 1)
    m.count("webhook_holds_total", {"reason": "paused"}, 2)
    assert capsys.readouterr().err.count("not_a_reason") == 1
    holds = {s.labels["reason"]: s.value for fam in m.registry.collect() if fam.name == "webhook_holds"
             for s in fam.samples}
    assert "not_a_reason" not in holds and holds["paused"] == 2


def test_a_counter_the_host_does_not_list_is_ignored_not_raised(capsys):
    """An artifact of another release (a rollback) may move a counter this host does not know."""
    m = DispatcherMetrics()
    m.count("webhook_wake_calls_total", None, 1)
    m.count("webhook_wake_calls_total", None, 1)
    assert capsys.readouterr().err.count("webhook_wake_calls_total") == 1


def test_a_gauge_the_schema_does_not_list_is_ignored_not_raised(capsys):
    m = DispatcherMetrics()
    m.gauge("webhook_waiting_events", 3)
    m.gauge("webhook_waiting_events", 4)
    m.gauge("webhook_held_events", 5)
    assert capsys.readouterr().err.count("webhook_waiting_events") == 1
    assert m.registry.get_sample_value("webhook_held_events") == 5


def test_a_schema_without_a_family_the_host_moves_is_a_trap_naming_it():
    schema = [f for f in current_artifact().metrics_schema() if f.name != "webhook_in_flight"]
    with pytest.raises(PolicyTrap, match="no host-moved gauge webhook_in_flight"):
        DispatcherMetrics(schema=schema)
