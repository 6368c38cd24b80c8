"""The rollout follower (docs/rollout.md "What a replica does") against a
real redis-server on loopback: one pipelined tick, the canary share by
bucket, every refusal keeps the running artifact and is reported once with
its code, a store failure changes nothing and is retried."""

from __future__ import annotations

import hashlib
import json

import pytest

redis = pytest.importorskip("redis")
pytest.importorskip("cryptography")

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402
from rollout_fleet import (  # noqa: E402
    REDIS_SERVER,
    SHIPPED,
    artifact_key,
    bucket,
    free_port,
    public_pem,
    publish,
    redis_server,
    set_record,
    sign,
    store_artifact,
)

from webhook_retry_policy import instance  # noqa: E402
from webhook_retry_policy.artifact import current_artifact, swap_artifact  # noqa: E402
from webhook_retry_policy.component_reader import append_custom_section  # noqa: E402
from webhook_retry_policy.redis_store import sync_client  # noqa: E402
from webhook_retry_policy.rollout import REPLICAS_KEY, STATE_KEY, Follower  # noqa: E402

pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed (apt-get install redis-server)")
KEY = Ed25519PrivateKey.generate()
OTHER = Ed25519PrivateKey.generate()


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    with redis_server(tmp_path_factory.mktemp("redis")) as u:
        yield u


@pytest.fixture
def client(url):
    c = sync_client(url)
    c.flushdb()
    yield c
    c.close()


@pytest.fixture(autouse=True)
def restore_the_active_artifact():
    before = current_artifact()
    yield
    instance.activate(before)


@pytest.fixture(scope="module")
def shipped() -> bytes:
    return SHIPPED.read_bytes()


def variant(shipped: bytes, tag: bytes) -> bytes:
    return append_custom_section(shipped, "webhook-retry-policy:test", tag)


def follower(client, replica_id: str = "python-a", events: list | None = None, counts=None) -> Follower:
    return Follower(public_pem(KEY), replica_id, client=client, counts=counts,
                    on_event=(events.append if events is not None else None))


def kinds(events: list) -> list[str]:
    """Each event as ``swapped``, ``refused``, or its log line (a store failing, back again)."""
    return ["swapped" if e.new is not None else "refused" if e.refusal is not None else " / ".join(e.lines)
            for e in events]


def status(client, replica_id: str = "python-a") -> dict:
    return json.loads(client.hget(REPLICAS_KEY, replica_id))


def settled_epoch(client, f: Follower) -> int:
    """The epoch the status record of one more tick reports (written before that tick reads the record)."""
    f.tick()
    return status(client, f.replica_id)["epoch"]


def test_a_published_artifact_is_fetched_verified_and_swapped_in_and_the_status_record_says_so(client, shipped):
    start = swap_artifact(shipped).sha256
    new = variant(shipped, b"v2")
    sha = publish(client, new, KEY)
    events: list = []
    counts = [(10, 2)]
    f = follower(client, events=events, counts=lambda: counts[0])
    counts[0] = (15, 3)
    (event,) = f.tick()
    assert kinds([event]) == ["swapped"] and event.lines == (), event
    assert (event.old.sha256, event.new.sha256) == (start, sha) and event.new.source == "redis"
    assert current_artifact().info.sha256 == sha
    assert f.tick() == [] and len(events) == 1  # settled: nothing more to do
    counts[0] = (19, 4)
    f.tick()
    status = json.loads(client.hget(REPLICAS_KEY, "python-a"))
    assert set(status) == {"replica_id", "language", "host", "pid", "artifact_sha256", "document_version", "since_ms",
                           "events", "dead_letters", "seen_ms", "epoch", "refusal"}
    assert (status["replica_id"], status["language"], status["artifact_sha256"], status["epoch"]) == ("python-a", "python", sha, 1)
    assert (status["events"], status["dead_letters"], status["refusal"]) == (4, 1, None)  # since the swap
    assert status["since_ms"] <= status["seen_ms"]


def test_each_tick_is_one_round_trip_of_hset_then_getrange(client, shipped, url):
    swap_artifact(shipped)
    monitor = redis.Redis.from_url(url)
    before = monitor.info("commandstats")
    follower(client).tick()
    after = monitor.info("commandstats")
    monitor.close()

    def calls(stats, name):
        return stats.get(f"cmdstat_{name}", {}).get("calls", 0)

    assert [calls(after, n) - calls(before, n) for n in ("hset", "getrange", "get", "hstrlen", "hmget")] == [1, 1, 0, 0, 0]
    assert client.get(STATE_KEY) is None and client.hexists(REPLICAS_KEY, "python-a")


@pytest.mark.parametrize("replica_id", ["python-a", "python-b", "node-a", "node-b", "go-a", "go-b", "rust-a", "rust-b"])
def test_the_canary_reaches_exactly_the_replicas_whose_bucket_is_below_its_percent(client, shipped, replica_id):
    stable = swap_artifact(shipped).sha256
    canary = store_artifact(client, variant(shipped, b"canary"), KEY)
    store_artifact(client, shipped, KEY)
    set_record(client, stable, (canary, 45))
    f = follower(client, replica_id)
    f.tick()
    assert current_artifact().info.sha256 == (canary if bucket(replica_id) < 45 else stable)
    assert settled_epoch(client, f) == 1


def _bad_signature(client, shipped):
    data = variant(shipped, b"bad-sig")
    sha = store_artifact(client, data, KEY, signature=sign(KEY, hashlib.sha256(b"another").hexdigest()))
    return sha, "rollout_signature_invalid"


def _unknown_key(client, shipped):
    return store_artifact(client, variant(shipped, b"other-key"), OTHER), "rollout_key_unknown"


def _missing(client, shipped):
    return hashlib.sha256(b"never stored").hexdigest(), "rollout_artifact_missing"


def _missing_signature(client, shipped):
    sha = store_artifact(client, variant(shipped, b"no-sig"), KEY)
    client.hdel(artifact_key(sha), "signature")
    return sha, "rollout_artifact_missing"


def _oversized(client, shipped):
    data = b"\0" * (4 * 1024 * 1024 + 1)
    return store_artifact(client, data, KEY), "artifact_too_large"


def _sha_mismatch(client, shipped):  # a valid signature of other bytes, stored under this name
    named = hashlib.sha256(b"the name").hexdigest()
    return store_artifact(client, variant(shipped, b"mismatch"), KEY, sha256=named), "artifact_sha256_mismatch"


def _not_a_component(client, shipped):
    return store_artifact(client, b"\0asm not a component", KEY), "artifact_invalid"


@pytest.mark.parametrize("case", [_bad_signature, _unknown_key, _missing, _missing_signature, _oversized, _sha_mismatch,
                                  _not_a_component])
def test_a_refused_artifact_keeps_the_running_one_and_is_reported_once_with_its_code(client, shipped, url, case):
    running = swap_artifact(shipped).sha256
    sha, code = case(client, shipped)
    set_record(client, sha)
    events: list = []
    f = follower(client, events=events)
    monitor = redis.Redis.from_url(url)
    hmget_before = monitor.info("commandstats").get("cmdstat_hmget", {}).get("calls", 0)
    for _ in range(3):
        f.tick()
    hmgets = monitor.info("commandstats").get("cmdstat_hmget", {}).get("calls", 0) - hmget_before
    monitor.close()
    assert current_artifact().info.sha256 == running
    assert kinds(events) == ["refused"], events
    (line,) = events[0].lines
    assert line.startswith(f"policy artifact refused source=redis sha256={sha} code={code}: ")
    assert line.endswith(f"; keeping sha256={running}")
    assert (f.refusal.sha256, f.refusal.code) == (sha, code)
    status = json.loads(client.hget(REPLICAS_KEY, "python-a"))
    assert status["epoch"] == 1  # settled: retried only when the record changes
    assert status["refusal"]["code"] == code and status["refusal"]["sha256"] == sha
    if code == "artifact_too_large":
        assert hmgets == 0  # HSTRLEN said too large: the bytes were never fetched
    else:
        assert hmgets == (0 if code == "rollout_artifact_missing" and case is _missing else 1)


def test_an_invalid_record_is_refused_once_per_text_and_the_settled_epoch_stays(client, shipped, url):
    running = swap_artifact(shipped).sha256
    events: list = []
    f = follower(client, events=events)
    client.set(STATE_KEY, '{"v": 1, "epoch": 1}')
    f.tick()
    f.tick()
    client.set(STATE_KEY, '{"v":2}')
    f.tick()
    assert [e.refusal.code for e in events] == ["rollout_record_invalid"] * 2
    assert all(len(e.lines) == 1 and e.lines[0].startswith("policy artifact refused source=redis sha256=none "
                                                           "code=rollout_record_invalid: ") for e in events)
    with sync_client(url, timeout_s=60) as writer:  # the setup's 64 MiB write, not the follower's, may take a while
        writer.set(STATE_KEY, "x" * (64 << 20))  # 64 MiB: the tick reads 4,097 bytes of it, refused
    (event,) = f.tick()
    assert event.refusal.code == "rollout_record_invalid" and "4097" in event.refusal.message, event
    assert settled_epoch(client, f) == 0 and current_artifact().info.sha256 == running
    assert status(client)["refusal"]["sha256"] is None


def test_a_refused_epoch_is_retried_when_the_record_changes(client, shipped):
    swap_artifact(shipped)
    bad, _ = _unknown_key(client, shipped)
    set_record(client, bad)
    f = follower(client)
    f.tick()
    good = publish(client, variant(shipped, b"fixed"), KEY)
    assert kinds(f.tick()) == ["swapped"] and current_artifact().info.sha256 == good and settled_epoch(client, f) == 2


def test_a_store_failure_while_fetching_leaves_the_epoch_unsettled_and_the_next_tick_retries(client, shipped):
    running = swap_artifact(shipped).sha256
    sha = publish(client, variant(shipped, b"retry"), KEY)

    class FailsOnce:
        failed = False

        def __getattr__(self, name):
            return getattr(client, name)

        def hmget(self, *a):
            if not self.failed:
                self.failed = True
                raise redis.TimeoutError("Timeout reading from socket")
            return client.hmget(*a)

    events: list = []
    f = follower(FailsOnce(), events=events)
    f.tick()
    assert current_artifact().info.sha256 != sha
    f.tick()
    assert status(client)["epoch"] == 0  # written by the second tick, before it retried: unsettled
    assert kinds(events) == [f"rollout: store unreachable, keeping sha256={running}, retrying every tick: "
                             "TimeoutError: Timeout reading from socket", "swapped"], events
    assert events[-1].lines == ("rollout: store reachable again",), events  # said by the tick that ends the run
    assert current_artifact().info.sha256 == sha and settled_epoch(client, f) == 1


def test_redis_down_keeps_the_running_artifact_reports_once_and_follows_when_it_is_back(shipped, tmp_path):
    running = swap_artifact(shipped).sha256
    port = free_port()
    events: list = []
    f = follower(sync_client(f"redis://127.0.0.1:{port}/0", timeout_s=0.2), events=events)
    for _ in range(3):
        f.tick()
    assert len(events) == 1 and current_artifact().info.sha256 == running
    with redis_server(tmp_path, port) as url:
        with sync_client(url) as c:
            sha = publish(c, variant(shipped, b"after-outage"), KEY)
        f.tick()
    assert kinds(events)[1:] == ["swapped"], events
    assert events[-1].lines == ("rollout: store reachable again",), events  # said by the tick that ends the run
    assert current_artifact().info.sha256 == sha
    (line,) = events[0].lines
    assert line.startswith(f"rollout: store unreachable, keeping sha256={running}, retrying every tick: ConnectionError")


def test_the_artifact_is_fetched_on_the_fetch_client_when_one_is_given(client, shipped):
    swap_artifact(shipped)
    sha = publish(client, variant(shipped, b"fetch-client"), KEY)
    fetched: list[str] = []

    class Fetcher:
        def hmget(self, key, fields):
            fetched.append(key)
            return client.hmget(key, fields)

    f = Follower(public_pem(KEY), "python-a", client=client, fetch_connect=Fetcher)
    assert kinds(f.tick()) == ["swapped"] and fetched == [artifact_key(sha)]
