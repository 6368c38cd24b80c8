"""Loading, checking and swapping the artifact (docs/artifact.md): where it
comes from, the pin, the ABI check, the self-test, the embedded document;
a swap changes only later calls, a refused one changes nothing; the file
watch swaps a changed file and reports a refused one once."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

import pytest
from conftest import NOW_MS
from fake_components import fake_component

from webhook_retry_policy import HttpResponse, InMemoryBudgetStore, Retry, RetryPolicy, instance
from webhook_retry_policy.artifact import (
    ARTIFACT_ENV,
    DOCUMENT_SECTION,
    SHA256_ENV,
    current_artifact,
    load_artifact,
    swap_artifact,
)
from webhook_retry_policy.artifact_watch import ArtifactWatch
from webhook_retry_policy.component_reader import append_custom_section
from webhook_retry_policy.errors import ArtifactError

SHIPPED = Path(__file__).resolve().parent.parent / "src" / "webhook_retry_policy" / "retry_policy.wasm"
DOC = {"version": "2026-12-01", "classes": {"notification": {
    "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "full"}, "window_ms": 3600000,
    "hard_cap": 20, "budget": {"ratio": 0.1, "window_ms": 60000, "min_sample": 10, "sliding": True}}}}


@pytest.fixture(autouse=True)
def restore_the_active_artifact(monkeypatch):
    monkeypatch.delenv(ARTIFACT_ENV, raising=False)
    monkeypatch.delenv(SHA256_ENV, raising=False)
    before = current_artifact()
    yield
    instance.activate(before)


@pytest.fixture(scope="module")
def shipped() -> bytes:
    return SHIPPED.read_bytes()


def refused(code: str, *args, **kwargs) -> str:
    with pytest.raises(ArtifactError) as e:
        load_artifact(*args, **kwargs)
    assert e.value.code == code, e.value
    return e.value.message


def test_the_default_is_the_packages_copy_and_its_info_names_it(shipped):
    a = load_artifact()
    assert a.info.source == "embedded" and a.info.sha256 == hashlib.sha256(shipped).hexdigest()
    assert a.info.abi == "webhook:retry-policy@1.0.0" and a.info.document_version == "" and a.document is None


def test_a_path_or_bytes_from_the_caller_come_first_then_the_environment(tmp_path, shipped, monkeypatch):
    other = append_custom_section(shipped, "extra", b"1")
    (tmp_path / "a.wasm").write_bytes(other)
    assert load_artifact(tmp_path / "a.wasm").info.source == str(tmp_path / "a.wasm")
    assert load_artifact(other).info.source == "bytes"
    monkeypatch.setenv(ARTIFACT_ENV, str(tmp_path / "a.wasm"))
    assert load_artifact().info.sha256 == hashlib.sha256(other).hexdigest()
    assert load_artifact(shipped).info.sha256 == hashlib.sha256(shipped).hexdigest()


def test_an_environment_path_that_cannot_be_read_is_an_error_never_a_fallback(tmp_path, monkeypatch):
    monkeypatch.setenv(ARTIFACT_ENV, str(tmp_path / "missing.wasm"))
    assert "missing.wasm" in refused("artifact_unreadable")


def test_the_sha256_pin_from_the_caller_or_the_environment_must_match(shipped, monkeypatch):
    digest = hashlib.sha256(shipped).hexdigest()
    assert load_artifact(shipped, expected_sha256=digest).info.sha256 == digest
    msg = refused("artifact_sha256_mismatch", shipped, expected_sha256="0" * 64)
    assert "0" * 64 in msg and digest in msg
    monkeypatch.setenv(SHA256_ENV, "f" * 64)
    refused("artifact_sha256_mismatch", shipped)


def test_bytes_that_are_not_a_component_are_invalid():
    refused("artifact_invalid", b"\0asm\x01\x00\x00\x00")
    refused("artifact_invalid", b"")


def test_another_wit_package_version_is_named_in_the_abi_mismatch(shipped):
    msg = refused("artifact_abi_mismatch", fake_component(shipped, version="1.1.0"))
    assert msg.startswith("artifact implements webhook:retry-policy@1.1.0") and "this host speaks webhook:retry-policy@1.0.0 (abi 5)" in msg


def test_an_abi_0_3_artifact_is_refused_naming_its_version(shipped):
    msg = refused("artifact_abi_mismatch", fake_component(shipped, version="0.3.0", abi_version=3))
    assert msg.startswith("artifact implements webhook:retry-policy@0.3.0") and "this host speaks webhook:retry-policy@1.0.0 (abi 5)" in msg


def test_another_abi_version_is_an_abi_mismatch(shipped):
    assert "(abi 6); this host speaks webhook:retry-policy@1.0.0 (abi 5)" in refused(
        "artifact_abi_mismatch", fake_component(shipped, abi_version=6))


def test_a_main_module_that_imports_what_this_host_does_not_supply_is_an_abi_mismatch(shipped):
    msg = refused("artifact_abi_mismatch", fake_component(shipped, extra_import='(import "wasi:io/poll@0.2.0" "poll" (func))'))
    assert "wasi:io/poll@0.2.0#poll" in msg and "webhook:retry-policy/clock@1.0.0#now-ms" in msg


def test_a_component_that_gives_wrong_known_answers_fails_the_self_test(shipped):
    msg = refused("artifact_self_test_failed", fake_component(shipped))
    assert msg.startswith("plan(") and "expected (4, (0, 1000, 3000, 7000)" in msg


def test_an_embedded_document_becomes_the_artifacts_document(shipped):
    a = load_artifact(append_custom_section(shipped, DOCUMENT_SECTION, json.dumps(DOC).encode()))
    assert a.info.document_version == "2026-12-01" and a.document is not None
    assert [c.name for c in a.document.classes] == ["notification"]


def test_an_embedded_document_that_does_not_load_is_refused(shipped):
    bad = dict(DOC, classes={"notification": dict(DOC["classes"]["notification"], hard_cap=0)})
    msg = refused("artifact_document_invalid", append_custom_section(shipped, DOCUMENT_SECTION, json.dumps(bad).encode()))
    assert "invalid_hard_cap" in msg


def test_a_swap_changes_later_calls_and_a_refused_swap_changes_nothing(shipped, policy, state):
    old = current_artifact()
    info = swap_artifact(append_custom_section(shipped, "extra", b"v2"))
    assert current_artifact().info == info and info.sha256 != old.info.sha256
    assert instance.current().artifact is current_artifact()
    with pytest.raises(ArtifactError):
        swap_artifact(b"not wasm")
    assert current_artifact().info == info
    assert isinstance(RetryPolicy(store=InMemoryBudgetStore()).step(policy, state, HttpResponse(503), NOW_MS), Retry)


def test_a_call_in_flight_finishes_on_its_instance_while_the_artifact_is_swapped(shipped, clock, policy, state):
    new = append_custom_section(shipped, "extra", b"mid-call")
    inner = InMemoryBudgetStore()
    seen = []

    class Swapping:
        def call(self, request, budget, now_ms):
            swap_artifact(new)  # the decide in progress keeps its instance
            seen.append(instance.current().artifact.info.sha256)
            return inner.call(request, budget, now_ms)

    before = instance.current()
    assert isinstance(RetryPolicy(clock, Swapping()).decide(policy, state, HttpResponse(503)), Retry)
    assert seen == [hashlib.sha256(new).hexdigest()]
    assert before.artifact is not None and before.artifact is not current_artifact()
    assert instance.current() is not before and instance.current().artifact is current_artifact()


def test_other_threads_move_to_the_swapped_artifact_on_their_next_call(shipped, policy, state):
    new = swap_artifact(append_custom_section(shipped, "extra", b"threads"))
    got = []
    t = threading.Thread(target=lambda: got.append(instance.current().artifact.info.sha256))
    t.start()
    t.join()
    assert got == [new.sha256]


def test_the_watch_swaps_a_changed_file_and_reports_a_refused_one_once(tmp_path, shipped):
    path = tmp_path / "policy.wasm"
    path.write_bytes(shipped)
    events = []
    w = ArtifactWatch(path, on_event=events.append)
    assert w.poll() is None  # the same bytes as the running artifact
    v2 = append_custom_section(shipped, "extra", b"watch")
    path.write_bytes(v2)
    e = w.poll()
    assert e is not None and e.kind == "swapped" and e.new is not None and e.new.source == str(path)
    assert current_artifact().info.sha256 == hashlib.sha256(v2).hexdigest()
    assert e.line.startswith(f"policy artifact swapped sha256={hashlib.sha256(shipped).hexdigest()} -> ")
    path.write_bytes(b"\0asm broken")
    first, again = w.poll(), w.poll()
    assert first is not None and first.kind == "refused" and again is None
    assert first.line.startswith(f"policy artifact refused path={path} code=artifact_invalid: ")
    assert first.line.endswith(f"keeping sha256={hashlib.sha256(v2).hexdigest()}")
    assert current_artifact().info.sha256 == hashlib.sha256(v2).hexdigest() and len(events) == 2
