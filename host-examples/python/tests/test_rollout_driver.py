"""The follower's driver loop (rollout/follower.py) against a fake store, no
Redis: each tick makes exactly the calls the component's steps name, feeds
their answers back (a failure as the call's ``error``), hashes the bytes it
fetched, loads and swaps them, and hands on what the steps said (log lines,
a refusal, a swap); the component's state text carries over a swap."""

from __future__ import annotations

import hashlib
import json

import pytest

pytest.importorskip("cryptography")

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402
from rollout_fleet import SHIPPED, artifact_key, key_id_of, public_pem, sign  # noqa: E402

from webhook_retry_policy import instance  # noqa: E402
from webhook_retry_policy.artifact import current_artifact, swap_artifact  # noqa: E402
from webhook_retry_policy.component_reader import append_custom_section  # noqa: E402
from webhook_retry_policy.rollout import Follower  # noqa: E402

KEY = Ed25519PrivateKey.generate()


class FakeStore:
    """The three calls on dicts; ``calls`` lists them in order; ``fail[op]`` raises at that call."""

    def __init__(self) -> None:
        self.record: bytes | None = None
        self.hashes: dict[str, dict[str, bytes]] = {}
        self.replicas: dict[str, str] = {}
        self.calls: list[str] = []
        self.fail: dict[str, Exception] = {}

    def _call(self, op: str) -> None:
        self.calls.append(op)
        if op in self.fail:
            raise self.fail.pop(op)

    def tick(self, replica_id: str, status: str) -> bytes | None:
        self._call("tick")
        self.replicas[replica_id] = status
        return None if self.record is None else self.record[:4097]

    def artifact_len(self, key: str) -> int:
        self._call("artifact_len")
        return len(self.hashes.get(key, {}).get("bytes", b""))

    def artifact(self, key: str) -> tuple[bytes | None, bytes | None, bytes | None]:
        self._call("artifact")
        h = self.hashes.get(key, {})
        return h.get("bytes"), h.get("signature"), h.get("key_id")

    def publish(self, data: bytes, epoch: int, *, name: str | None = None) -> str:
        digest = hashlib.sha256(data).hexdigest()
        name = name or digest
        self.hashes[artifact_key(name)] = {"bytes": data, "signature": sign(KEY, digest).encode(),
                                           "key_id": key_id_of(KEY.public_key()).encode()}
        self.record = json.dumps({"v": 1, "epoch": epoch, "stable": name, "canary": None, "previous": []},
                                 separators=(",", ":")).encode()
        return name

    def status(self) -> dict:
        return json.loads(self.replicas["python-a"])


@pytest.fixture(autouse=True)
def restore_the_active_artifact():
    before = current_artifact()
    yield
    instance.activate(before)


def variant(tag: bytes) -> bytes:
    return append_custom_section(SHIPPED.read_bytes(), "webhook-retry-policy:test", tag)


def follower(store: FakeStore, events: list | None = None, counts=None, clock=None) -> Follower:
    return Follower(public_pem(KEY), "python-a", store=store, counts=counts, on_event=events.append if events is not None
                    else None, now_ms=clock or (lambda: 1_796_000_000_000))


def test_a_tick_makes_the_calls_the_steps_name_and_swaps_in_the_verified_artifact():
    running = swap_artifact(SHIPPED.read_bytes()).sha256
    store, events, counts = FakeStore(), [], [(7, 2)]
    f = follower(store, events, counts=lambda: counts[0])
    sha = store.publish(variant(b"v2"), 1)
    f.tick()
    assert store.calls == ["tick", "artifact_len", "artifact"]
    assert current_artifact().info.sha256 == sha and current_artifact().info.source == "redis"
    (event,) = events
    assert (event.old.sha256, event.new.sha256, event.lines, event.refusal) == (running, sha, (), None)
    counts[0] = (10, 3)
    store.calls.clear()
    assert f.tick() == [] and store.calls == ["tick"]  # settled: one call, nothing said
    status = store.status()
    assert (status["artifact_sha256"], status["epoch"], status["events"], status["dead_letters"]) == (sha, 1, 3, 1)
    assert status["since_ms"] == status["seen_ms"] == 1_796_000_000_000 and status["refusal"] is None


def test_the_host_hashes_the_bytes_it_fetched_and_never_loads_bytes_of_another_digest():
    running = swap_artifact(SHIPPED.read_bytes()).sha256
    store, events = FakeStore(), []
    named = hashlib.sha256(b"the name").hexdigest()
    data = variant(b"other bytes")
    store.publish(data, 1, name=named)  # signed over its real digest, stored under another name
    follower(store, events).tick()
    assert current_artifact().info.sha256 == running
    (event,) = events
    assert event.refusal is not None and event.refusal.code == "artifact_sha256_mismatch"
    assert hashlib.sha256(data).hexdigest() in event.refusal.message
    assert event.lines == (f"policy artifact refused source=redis sha256={named} code=artifact_sha256_mismatch: "
                           f"{event.refusal.message}; keeping sha256={running}",)


def test_bytes_the_hosts_load_checks_refuse_are_answered_with_their_code_once():
    running = swap_artifact(SHIPPED.read_bytes()).sha256
    store, events = FakeStore(), []
    sha = store.publish(b"\0asm not a component", 1)
    f = follower(store, events)
    for _ in range(3):
        f.tick()
    assert current_artifact().info.sha256 == running
    assert [e.refusal.code for e in events] == ["artifact_invalid"]  # settled: reported once, not fetched again
    assert store.calls == ["tick", "artifact_len", "artifact", "tick", "tick"]
    assert store.status()["refusal"]["sha256"] == sha and store.status()["epoch"] == 1


@pytest.mark.parametrize("failing", ["tick", "artifact_len", "artifact"])
def test_a_failing_store_call_is_fed_as_its_error_and_the_next_tick_follows(failing):
    running = swap_artifact(SHIPPED.read_bytes()).sha256
    store, events = FakeStore(), []
    sha = store.publish(variant(b"after a failure"), 1)
    store.fail[failing] = ConnectionError("Connection refused")
    f = follower(store, events)
    f.tick()
    assert store.calls[-1] == failing and current_artifact().info.sha256 == running
    assert [e.lines for e in events] == [(f"rollout: store unreachable, keeping sha256={running}, retrying every tick: "
                                          "ConnectionError: Connection refused",)]
    f.tick()
    # the run of failures ends with the tick that ends without one: said with its swap
    assert [e.lines for e in events[1:]] == [("rollout: store reachable again",)]
    assert events[-1].new.sha256 == sha == current_artifact().info.sha256


def test_the_state_carries_over_a_swap_and_the_next_publish_is_followed_on_the_new_artifact():
    swap_artifact(SHIPPED.read_bytes())
    store, events = FakeStore(), []
    f = follower(store, events)
    first = store.publish(variant(b"one"), 1)
    f.tick()
    second = store.publish(variant(b"two"), 2)
    f.tick()
    assert [(e.old.sha256, e.new.sha256) for e in events][1] == (first, second)
    f.tick()
    assert store.status()["epoch"] == 2 and current_artifact().info.sha256 == second


def test_a_swap_made_another_way_restarts_the_status_since_and_counts_once_the_follower_is_told():
    swap_artifact(SHIPPED.read_bytes())
    store, counts, now = FakeStore(), [(2, 1)], [1000]
    f = follower(store, counts=lambda: counts[0], clock=lambda: now[0])
    f.tick()
    assert (store.status()["since_ms"], store.status()["events"]) == (1000, 2)
    now[0] = 2000
    swap_artifact(variant(b"a file swap"))
    f.artifact_swapped()
    counts[0], now[0] = (3, 1), 3000
    f.tick()
    status = store.status()
    assert (status["since_ms"], status["events"], status["dead_letters"]) == (2000, 1, 0), status


def test_a_fetch_that_fails_at_every_tick_while_the_record_answers_is_logged_once():
    swap_artifact(SHIPPED.read_bytes())
    store, events = FakeStore(), []
    f = follower(store, events)
    store.publish(variant(b"v2"), 1)
    for _ in range(3):
        store.fail["artifact"] = ConnectionError("timeout")
        f.tick()
    lines = [line for e in events for line in e.lines]
    assert len(lines) == 1 and lines[0].startswith("rollout: store unreachable"), lines
