"""The follower on every store connection the replica has (docs/replica.md
--redis, --redis-cluster, --ca-file): an ACL user, ``rediss://`` verified
with the CA file (and failing without it, keeping the running artifact), and
a Redis Cluster, where the tick's pipeline and the fetch reach the
``{rollout}`` slot's master."""

from __future__ import annotations

import json
import shutil

import pytest

redis = pytest.importorskip("redis")
pytest.importorskip("cryptography")

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402
from rollout_fleet import SHIPPED, public_pem, publish, redis_cluster  # noqa: E402
from test_redis_tls_acl import certs, servers  # noqa: E402,F401  (the module's fixtures: TLS and ACL servers)

from webhook_retry_policy import instance  # noqa: E402
from webhook_retry_policy.artifact import current_artifact, swap_artifact  # noqa: E402
from webhook_retry_policy.component_reader import append_custom_section  # noqa: E402
from webhook_retry_policy.redis_store import sync_client  # noqa: E402
from webhook_retry_policy.rollout import REPLICAS_KEY, Follower  # noqa: E402

KEY = Ed25519PrivateKey.generate()
pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")


@pytest.fixture(autouse=True)
def restore_the_active_artifact():
    before = current_artifact()
    yield
    instance.activate(before)


def _follows(client, tag: bytes, events: list | None = None) -> tuple[str, Follower]:
    swap_artifact(SHIPPED.read_bytes())
    sha = publish(client, append_custom_section(SHIPPED.read_bytes(), "webhook-retry-policy:test", tag), KEY)
    f = Follower(public_pem(KEY), "python-stores", client=client,
                 on_event=events.append if events is not None else None)
    f.tick()
    return sha, f


def _epoch(client, f: Follower) -> int:
    """The settled epoch, as the status record of one more tick reports it."""
    f.tick()
    return int(json.loads(client.hget(REPLICAS_KEY, f.replica_id))["epoch"])


def test_an_acl_user_follows_a_publish(servers):  # noqa: F811
    acl_port, _ = servers
    with sync_client(f"redis://alice:s3cret@127.0.0.1:{acl_port}/0", timeout_s=2) as client:
        sha, f = _follows(client, b"acl")
        assert current_artifact().info.sha256 == sha and _epoch(client, f) >= 1


def test_rediss_with_the_ca_file_follows_and_without_it_keeps_the_running_artifact(servers, certs):  # noqa: F811
    _, tls_port = servers
    url = f"rediss://127.0.0.1:{tls_port}/0"
    with sync_client(url, timeout_s=3, ca_pem=certs.ca.read_text()) as client:
        sha, _ = _follows(client, b"tls")
        assert current_artifact().info.sha256 == sha
        running = swap_artifact(SHIPPED.read_bytes()).sha256
    events: list = []
    with sync_client(url, timeout_s=3) as untrusting:  # the platform store does not know the test CA
        f = Follower(public_pem(KEY), "python-stores", client=untrusting, on_event=events.append)
        f.tick()
    assert [len(e.lines) for e in events] == [1] and events[0].refusal is None and events[0].new is None
    assert events[0].lines[0].startswith("rollout: store unreachable, keeping sha256=") and "SSL" in events[0].lines[0].upper()
    assert current_artifact().info.sha256 == running


@pytest.mark.skipif(shutil.which("redis-cli") is None, reason="redis-cli is not installed")
def test_on_a_redis_cluster_the_tick_and_the_fetch_reach_the_rollout_slot(tmp_path):
    with redis_cluster(tmp_path) as seed:
        client = sync_client(seed, cluster=True, timeout_s=2)
        try:
            sha, f = _follows(client, b"cluster")
            assert current_artifact().info.sha256 == sha and _epoch(client, f) == 1
            assert b'"artifact_sha256":"' + sha.encode() in client.hget(REPLICAS_KEY, "python-stores")
        finally:
            client.close()
