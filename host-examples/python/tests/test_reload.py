"""Reload without restart (issue 12): a new document is validated before
the swap, a bad one keeps the old and says why, the file-watch helper picks
up edits, and events keep the schedule and policy they were admitted under."""

from __future__ import annotations

import asyncio

import pytest

from webhook_retry_policy import AsyncRetryPolicy, ManualClock, RetryPolicy, StopReason
from webhook_retry_policy.dispatcher import DEAD, Dispatcher, DispatcherConfig, LocalEndpoint
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


async def test_events_keep_the_schedule_and_policy_they_were_admitted_under_across_a_reload():
    clock = ManualClock()
    policy = AsyncRetryPolicy(clock=clock)
    holder = DocumentHolder(policy, policy.load_document_toml(V1))
    with LocalEndpoint(503) as down:
        d = Dispatcher(holder, {"ep_down": down.url}, policy, sleep=clock.sleep,
                       config=DispatcherConfig(allow_private_targets=True))
        old = await d.submit("before", "ep_down", "notification", {})
        assert holder.reload_text(V2, toml=True).ok
        new = await d.submit("after", "ep_down", "notification", {})
        assert old.admission.policy_hash != new.admission.policy_hash
        assert old.admission.schedule.max_attempts > new.admission.schedule.max_attempts
        await d.run_until_idle()
        await d.client.aclose()
    for r in (old, new):
        assert r.status == DEAD and r.dead_letter is not None
        assert r.dead_letter.stop_reason in (StopReason.MAX_ATTEMPTS_EXHAUSTED, StopReason.RETRY_WINDOW_ELAPSED)
        assert r.attempt <= r.admission.schedule.max_attempts
    assert old.dead_letter.elapsed_ms > 60_000  # the 15-minute class it was admitted under, not the new 1 minute
    assert new.dead_letter.elapsed_ms <= 60_000


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
