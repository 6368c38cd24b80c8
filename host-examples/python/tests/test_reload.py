"""Reload without restart (issue 12): a new document is validated before
the swap, a bad one keeps the old and says why, the file-watch helper picks
up edits, and events keep the schedule and policy they were admitted under."""

from __future__ import annotations

import asyncio

import pytest

from webhook_retry_policy import RetryPolicy
from webhook_retry_policy.dispatcher.demo import example_document_toml
from webhook_retry_policy.reload import DocumentHolder

V1 = example_document_toml()
V2 = V1.replace('version = "example-2026-11-30"', 'version = "v2"').replace("window_ms = 900000", "window_ms = 60000")


def test_a_valid_document_is_swapped_in_and_reports_its_version():
    rp = RetryPolicy()
    holder = DocumentHolder(rp, rp.load_document_toml(V1))
    result = holder.reload_text(V2, toml=True)
    assert result.ok and result.changed and result.version == "v2" and holder.current.version == "v2"
    assert holder.reload_text(V2, toml=True).changed is False


def test_a_bad_document_keeps_the_old_one_and_reports_why():
    rp = RetryPolicy()
    holder = DocumentHolder(rp, rp.load_document_toml(V1))
    for bad, toml in (("{not json", False), (V1.replace("window_ms = 900000", "window_ms = -5"), True),
                      ('{"version": "x", "classes": {}}', False), ("version = [", True)):
        result = holder.reload_text(bad, toml=toml)
        assert not result.ok and result.error and result.version == "example-2026-11-30"
        assert holder.current.version == "example-2026-11-30"
    assert holder.refusals == 4 and holder.reloads == 0
    missing = holder.reload_file("/nonexistent/policy.toml")
    assert not missing.ok and "unreadable" in (missing.error or "")


async def test_the_file_watch_helper_reloads_an_edited_file_and_refuses_a_broken_edit(tmp_path):
    path = tmp_path / "policy.toml"
    path.write_text(V1)
    holder = DocumentHolder.from_file(RetryPolicy(), str(path))
    results = []
    task = holder.watch(0.02, results.append)
    try:
        path.write_text(V2)
        for _ in range(200):
            if holder.reloads:
                break
            await asyncio.sleep(0.02)
        assert holder.current.version == "v2"
        path.write_text("version = [")
        for _ in range(200):
            if holder.refusals:
                break
            await asyncio.sleep(0.02)
        assert holder.current.version == "v2" and results[-1].ok is False
    finally:
        task.cancel()




def test_without_a_pinned_document_the_holder_takes_the_one_embedded_in_the_artifact():
    import json
    from pathlib import Path

    from webhook_retry_policy import PolicyError, RetryPolicy, instance
    from webhook_retry_policy.artifact import DOCUMENT_SECTION, current_artifact, swap_artifact
    from webhook_retry_policy.component_reader import append_custom_section
    from webhook_retry_policy.reload import DocumentHolder

    rp = RetryPolicy()
    before = current_artifact()
    shipped = (Path(__file__).resolve().parents[1] / "src" / "webhook_retry_policy" / "retry_policy.wasm").read_bytes()
    doc = {"version": "bundled-1", "classes": {"notification": {
        "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "full"}, "window_ms": 3600000,
        "hard_cap": 20, "budget": {"ratio": 0.1, "window_ms": 60000, "min_sample": 10, "sliding": True}}}}
    try:
        with pytest.raises(PolicyError):
            DocumentHolder.from_artifact(rp)  # the shipped artifact embeds none
        swap_artifact(append_custom_section(shipped, DOCUMENT_SECTION, json.dumps(doc).encode()))
        holder = DocumentHolder.from_artifact(rp)
        assert holder.current.version == "bundled-1" and holder.admit("notification").policy_version == "bundled-1"
    finally:
        instance.activate(before)


def _bundled(version: str, window_ms: int = 3600000) -> bytes:
    """The shipped artifact with an embedded document of ``version`` (what ``retry-policy bundle`` writes)."""
    import json
    from pathlib import Path

    from webhook_retry_policy.artifact import DOCUMENT_SECTION
    from webhook_retry_policy.component_reader import append_custom_section

    shipped = (Path(__file__).resolve().parents[1] / "src" / "webhook_retry_policy" / "retry_policy.wasm").read_bytes()
    doc = {"version": version, "classes": {"notification": {
        "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "full"}, "window_ms": window_ms,
        "hard_cap": 20, "budget": {"ratio": 0.1, "window_ms": 60000, "min_sample": 10, "sliding": True}}}}
    return append_custom_section(shipped, DOCUMENT_SECTION, json.dumps(doc).encode())


@pytest.fixture
def restore_artifact():
    from webhook_retry_policy import instance
    from webhook_retry_policy.artifact import current_artifact

    before = current_artifact()
    yield
    instance.activate(before)


@pytest.mark.usefixtures("restore_artifact")
def test_a_swap_to_a_bundle_with_another_document_version_changes_the_holders_current_version():
    from webhook_retry_policy.artifact import swap_artifact

    rp = RetryPolicy()
    swap_artifact(_bundled("bundled-1"))
    holder = DocumentHolder.from_artifact(rp)
    assert holder.current.version == "bundled-1" and holder.follows_artifact
    swap_artifact(_bundled("bundled-2", window_ms=60000))
    assert holder.current.version == "bundled-2"
    assert holder.admit("notification").policy_version == "bundled-2"
    assert holder.reloads == 1


@pytest.mark.usefixtures("restore_artifact")
def test_a_watched_artifact_file_that_brings_another_document_changes_the_holders_current_version(tmp_path):
    from webhook_retry_policy.artifact import swap_artifact
    from webhook_retry_policy.artifact_watch import ArtifactWatch

    rp = RetryPolicy()
    path = tmp_path / "policy.wasm"
    path.write_bytes(_bundled("bundled-1"))
    swap_artifact(path)
    holder = DocumentHolder.from_artifact(rp)
    path.write_bytes(_bundled("bundled-2", window_ms=60000))
    event = ArtifactWatch(path).poll()
    assert event is not None and event.kind == "swapped" and event.new is not None
    assert event.new.document_version == "bundled-2"
    assert holder.current.version == "bundled-2"


@pytest.mark.usefixtures("restore_artifact")
def test_a_swap_to_an_artifact_without_a_document_keeps_the_followed_document():
    from webhook_retry_policy import instance
    from webhook_retry_policy.artifact import current_artifact, swap_artifact

    rp = RetryPolicy()
    shipped = current_artifact()
    swap_artifact(_bundled("bundled-1"))
    holder = DocumentHolder.from_artifact(rp)
    instance.activate(shipped)  # embeds none
    assert shipped.document is None and holder.current.version == "bundled-1"
    swap_artifact(_bundled("bundled-2"))
    assert holder.current.version == "bundled-2"  # still following


@pytest.mark.usefixtures("restore_artifact")
def test_a_pinned_holder_keeps_its_own_document_across_a_swap_to_a_bundle():
    from webhook_retry_policy.artifact import swap_artifact

    rp = RetryPolicy()
    pinned = DocumentHolder(rp, rp.load_document_toml(V1))
    swap_artifact(_bundled("bundled-1"))
    assert pinned.current.version == "example-2026-11-30" and not pinned.follows_artifact
    assert pinned.admit("notification").policy_version == "example-2026-11-30"
    assert pinned.reloads == 0


@pytest.mark.usefixtures("restore_artifact")
def test_a_holder_that_followed_the_artifact_keeps_a_document_the_caller_reloads():
    from webhook_retry_policy.artifact import swap_artifact

    rp = RetryPolicy()
    swap_artifact(_bundled("bundled-1"))
    holder = DocumentHolder.from_artifact(rp)
    assert holder.reload_text(V1, toml=True).ok
    assert not holder.follows_artifact
    swap_artifact(_bundled("bundled-2"))
    assert holder.current.version == "example-2026-11-30"


@pytest.mark.usefixtures("restore_artifact")
def test_an_event_admitted_before_the_swap_keeps_its_policy_hash_and_the_policy_it_was_admitted_under():
    from webhook_retry_policy.artifact import swap_artifact

    rp = RetryPolicy()
    swap_artifact(_bundled("bundled-1", window_ms=3600000))
    holder = DocumentHolder.from_artifact(rp)
    old = holder.admit("notification", 0)
    swap_artifact(_bundled("bundled-2", window_ms=60000))
    new = holder.admit("notification", 0)
    assert (old.policy_version, new.policy_version) == ("bundled-1", "bundled-2")
    assert old.policy_hash != new.policy_hash
    assert holder.policy_for(old).window_ms == 3600000  # the policy of ITS hash, not the current one
    assert holder.policy_for(new).window_ms == 60000
    assert old.schedule != new.schedule


