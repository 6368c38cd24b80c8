"""Test helpers for the rollout (docs/rollout.md): a loopback redis-server,
signing keys, and a minimal PUBLISHER that writes what ``retry-policy
publish`` writes (the artifact hash and the next record), with the doc's
key names, signed message, key id and bucket written here from the doc (the
package no longer has them: the component does). Not the product's
publisher (the Rust CLI is); it only sets the store up for the follower's tests."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from webhook_retry_policy.rollout import STATE_KEY

REDIS_SERVER = shutil.which("redis-server")
SHIPPED = Path(__file__).resolve().parents[1] / "src" / "webhook_retry_policy" / "retry_policy.wasm"


SIGNED_MESSAGE_PREFIX = b"webhook-retry-policy artifact v1\n"


def artifact_key(sha256: str) -> str:
    return f"retry-policy:{{rollout}}:artifact:{sha256}"


def signed_message(sha256: str) -> bytes:
    return SIGNED_MESSAGE_PREFIX + sha256.encode("ascii")


def key_id_of(public: Ed25519PublicKey) -> str:
    return hashlib.sha256(public.public_bytes(Encoding.Raw, PublicFormat.Raw)).hexdigest()[:16]


def bucket(replica_id: str) -> int:
    return int.from_bytes(hashlib.sha256(replica_id.encode("utf-8")).digest()[:4], "big") % 100


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def redis_server(tmp: Path, port: int | None = None) -> Iterator[str]:
    """A redis-server on loopback for the block; yields its URL."""
    import redis

    assert REDIS_SERVER is not None
    port = port or free_port()
    proc = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(tmp)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port)
    try:
        for _ in range(200):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.025)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        client.close()
        proc.terminate()
        proc.wait(timeout=10)


def public_pem(key: Ed25519PrivateKey) -> str:
    return key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode("ascii")


def sign(key: Ed25519PrivateKey, sha256: str) -> str:
    return base64.b64encode(key.sign(signed_message(sha256))).decode("ascii")


def store_artifact(client, data: bytes, key: Ed25519PrivateKey, *, sha256: str | None = None,
                   signature: str | None = None) -> str:
    """HSET the artifact's hash (all seven fields); returns the sha256 it is stored under."""
    digest = hashlib.sha256(data).hexdigest()
    name = sha256 or digest
    client.hset(artifact_key(name), mapping={
        "bytes": data, "signature": signature if signature is not None else sign(key, digest),
        "key_id": key_id_of(key.public_key()), "abi": "webhook:retry-policy@1.0.0", "document_version": "",
        "size": str(len(data)), "published_at_ms": str(time.time_ns() // 1_000_000)})
    return name


def set_record(client, stable: str, canary: tuple[str, int] | None = None, previous: tuple[str, ...] = ()) -> int:
    """Write the next record (epoch + 1) in its canonical text; returns its epoch."""
    old = client.get(STATE_KEY)
    epoch = json.loads(old)["epoch"] + 1 if old else 1
    record = {"v": 1, "epoch": epoch, "stable": stable,
              "canary": None if canary is None else {"sha256": canary[0], "percent": canary[1]},
              "previous": list(previous)}
    client.set(STATE_KEY, json.dumps(record, separators=(",", ":")))
    return epoch


def publish(client, data: bytes, key: Ed25519PrivateKey) -> str:
    """Store ``data`` and make it the stable artifact; returns its sha256."""
    sha = store_artifact(client, data, key)
    set_record(client, sha)
    return sha


@contextmanager
def redis_cluster(tmp: Path, masters: int = 3) -> Iterator[str]:
    """A local Redis Cluster (``--cluster-enabled yes`` nodes joined by ``redis-cli --cluster create``); yields a
    seed node's URL."""
    import redis

    assert REDIS_SERVER is not None
    ports: list[int] = []
    while len(ports) < masters:
        p = free_port()
        if p + 10000 < 65536 and p not in ports:
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", p + 10000))  # the cluster bus port
                except OSError:
                    continue
            ports.append(p)
    procs = []
    try:
        for p in ports:
            d = tmp / str(p)
            d.mkdir()
            procs.append(subprocess.Popen([REDIS_SERVER, "--port", str(p), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                                           "--cluster-config-file", str(d / "nodes.conf"), "--save", "", "--appendonly",
                                           "no", "--dir", str(d)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for p in ports:
            c = redis.Redis(port=p)
            for _ in range(200):
                try:
                    c.ping()
                    break
                except redis.ConnectionError:
                    time.sleep(0.025)
            c.close()
        subprocess.run(["redis-cli", "--cluster", "create", *[f"127.0.0.1:{p}" for p in ports], "--cluster-replicas", "0",
                        "--cluster-yes"], capture_output=True, check=True, timeout=60)
        deadline = time.monotonic() + 30
        for p in ports:
            c = redis.Redis(port=p)
            while b"cluster_state:ok" not in c.execute_command("CLUSTER", "INFO"):
                assert time.monotonic() < deadline, "cluster_state never became ok"
                time.sleep(0.1)
            c.close()
        yield f"redis://127.0.0.1:{ports[0]}/0"
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=10)
