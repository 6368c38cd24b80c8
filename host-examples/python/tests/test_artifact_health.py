"""An artifact whose embedded document is format 3 (docs/artifact.md step 6):
it loads with ``load-health-document`` and exposes its ``health`` sections;
an invalid section is ``artifact_document_invalid`` naming its path; a
dispatcher or replica with no ``--policy`` runs those sections exactly as a
``--policy`` file's (a 429's ``Retry-After`` makes a ``paused`` hold), and a
format-2 embedded document still makes none; a swap to a format-3 artifact
makes its sections what new events are admitted under."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_replica import REPLICA, run_replica, summary_of

from webhook_retry_policy import instance
from webhook_retry_policy.artifact import ARTIFACT_ENV, DOCUMENT_SECTION, current_artifact, load_artifact, swap_artifact
from webhook_retry_policy.component_reader import append_custom_section
from webhook_retry_policy.dispatcher import LocalEndpoint
from webhook_retry_policy.errors import ArtifactError

SHIPPED = REPLICA.parent / "src" / "webhook_retry_policy" / "retry_policy.wasm"
STORM = {"window_ms": 3000, "hard_cap": 16, "backoff": {"base_ms": 5, "factor": 2.0, "cap_ms": 50, "jitter": "full"},
         "budget": {"ratio": 0.5, "window_ms": 10_000, "min_sample": 1, "sliding": True}}
HEALTH = {"pause": {"max_ms": 60_000}, "circuit": None, "release": {"multiple": 1.0, "floor_per_s": 100.0}}


def document(*, health: dict | None = HEALTH, version: str = "embedded-3", **policy: object) -> dict:
    cls = {**STORM, **policy} if health is None else {**STORM, **policy, "health": health}
    return {"version": version, "classes": {"storm": cls}}


def bundled(doc: dict) -> bytes:
    """The shipped artifact with ``doc`` embedded (what ``retry-policy bundle`` writes)."""
    return append_custom_section(SHIPPED.read_bytes(), DOCUMENT_SECTION, json.dumps(doc).encode())


@pytest.fixture(autouse=True)
def restore_the_active_artifact(monkeypatch):
    monkeypatch.delenv(ARTIFACT_ENV, raising=False)
    before = current_artifact()
    yield
    instance.activate(before)


def test_an_embedded_format_3_document_loads_and_exposes_its_health_sections():
    a = load_artifact(bundled(document()))
    assert a.info.document_version == "embedded-3" and a.has_health
    assert a.health_document is not None and a.document is not None
    (cls,) = a.health_document.classes
    assert cls.name == "storm" and cls.health is not None and cls.health.pause_max_ms == 60_000
    assert cls.health.circuit is None and cls.health.release.multiple == 1.0
    assert [c.name for c in a.document.classes] == ["storm"] and a.document.classes[0].policy == cls.policy


def test_an_embedded_format_2_document_reads_as_format_2_with_no_section():
    a = load_artifact(bundled(document(health=None)))
    assert a.health_document is not None and not a.has_health
    assert all(c.health is None for c in a.health_document.classes)


def test_an_invalid_health_section_in_the_embedded_document_is_refused_naming_its_path():
    with pytest.raises(ArtifactError) as e:
        load_artifact(bundled(document(health={**HEALTH, "cache_ms": 0})))
    assert e.value.code == "artifact_document_invalid"
    assert "classes.storm.health.cache_ms" in str(e.value)


def test_a_swap_to_a_format_3_artifact_makes_its_sections_the_current_artifacts():
    swap_artifact(bundled(document(health=None, version="two")))
    two = current_artifact()
    assert two.health_document is not None and two.health_document.classes[0].health is None and not two.has_health
    swap_artifact(bundled(document(version="three")))
    three = current_artifact()
    assert three.document is not None and three.document.version == "three" and three.has_health
    assert three.health_document is not None and three.health_document.classes[0].health is not None
    swap_artifact(bundled(document(health=None, version="two-again")))
    assert not current_artifact().has_health


def replica_on(tmp_path: Path, doc: dict, url: str) -> dict:
    bundle = tmp_path / "bundle.wasm"
    bundle.write_bytes(bundled(doc))
    return summary_of(run_replica("--target", url, "--endpoint-id", f"ep-{doc['version']}", "--events", "6",
                                  "--concurrency", "2", "--artifact", str(bundle), timeout=60))


def test_a_replica_without_policy_holds_events_under_an_embedded_format_3_document_and_never_under_format_2(tmp_path):
    with LocalEndpoint(429, retry_after="1") as ep:
        three = replica_on(tmp_path, document(), ep.url)
        two = replica_on(tmp_path, document(health=None, version="embedded-2"), ep.url)
    assert three["events"] == 6 == sum(three["stop_reasons"].values()) and three["pending"] == 0
    # which holds the engine makes (paused by the Retry-After, budget_refused by the 0.5 ratio) depends on
    # when each retry falls; that it holds at all is the embedded format-3 document at work
    assert sum(three["holds"].values()) >= 1, three
    assert two["events"] == 6 == sum(two["stop_reasons"].values())
    assert sum(two["holds"].values()) == 0 and two["held"] == 0, two


def test_a_running_replica_admits_new_events_under_a_swapped_in_embedded_document_and_old_ones_keep_theirs(tmp_path):
    import os
    import subprocess
    import threading
    import time

    path = tmp_path / "policy.wasm"
    journal = tmp_path / "swap.journal"
    long = {"window_ms": 3000, "hard_cap": 100, "backoff": {"base_ms": 100, "factor": 2.0, "cap_ms": 200, "jitter": "none"},
            "budget": {"ratio": 1.0, "window_ms": 10_000, "min_sample": 1, "sliding": True}}
    path.write_bytes(bundled(document(health=None, version="start-2", **long)))
    with LocalEndpoint(503) as ep:
        # 4 events at once live their 3 s window; the next 4 are admitted after the swap
        proc = subprocess.Popen([str(REPLICA), "--target", ep.url, "--endpoint-id", "ep-swap-3", "--events", "8",
                                 "--concurrency", "4", "--store", str(journal),
                                 "--artifact", str(path), "--watch-artifact-ms", "50", "--allow-private-targets"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        err_lines: list[str] = []
        reader = threading.Thread(target=lambda: err_lines.extend(proc.stderr), daemon=True)  # type: ignore[arg-type]
        reader.start()
        deadline = time.monotonic() + 20
        while not any("policy artifact loaded" in line for line in err_lines):
            assert time.monotonic() < deadline and proc.poll() is None, "".join(err_lines)
            time.sleep(0.02)
        staged = tmp_path / "staged.wasm"
        staged.write_bytes(bundled(document(version="swapped-3", **long)))
        os.replace(staged, path)
        proc.wait(timeout=60)
        reader.join(5)
        out = proc.stdout.read()  # type: ignore[union-attr]
    log = "".join(err_lines)
    assert proc.returncode == 0, log
    assert "policy artifact swapped" in log and "document_version=swapped-3" in log, log
    s = json.loads(out.strip())
    assert s["events"] == 8 == sum(s["stop_reasons"].values()), s
    versions: dict[str, str] = {}
    for line in journal.read_text().splitlines():
        rec = json.loads(line.split(" ", 1)[1])
        if rec["type"] == "event":
            versions[rec["event_id"]] = rec["policy_version"]
    order = sorted(versions, key=lambda i: int(i.rsplit("-", 1)[1]))
    assert [versions[i] for i in order[:4]] == ["start-2"] * 4, versions
    assert [versions[i] for i in order[4:]] == ["swapped-3"] * 4, versions
