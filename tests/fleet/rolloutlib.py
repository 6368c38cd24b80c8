"""Helpers for test_rollout.py (docs/rollout.md): keys made with openssl as
the doc's sequence does, artifacts made with `retry-policy bundle`, the
`retry-policy` publisher, the Redis keys read and (for the refusal cases)
written directly, and a fleet of following replicas.

Independent of the hosts on purpose: the bucket rule, the signed message and
the record's canonical text are written here again from the doc, so a host
and this harness that agree are both right or both wrong the same way the
shared vectors (tests/vectors-rollout) would also catch."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import fleetlib

ROLL = "retry-policy:{rollout}"
STATE = f"{ROLL}:state"
REPLICAS = f"{ROLL}:replicas"
PREFIX = b"webhook-retry-policy artifact v1\n"
SHIPPED = fleetlib.ROOT / "host-examples" / "rust" / "artifact" / "retry_policy.wasm"


def artifact_key(sha: str) -> str:
    return f"{ROLL}:artifact:{sha}"


def bucket(replica_id: str) -> int:
    return int.from_bytes(hashlib.sha256(replica_id.encode()).digest()[:4], "big") % 100


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def keypair(tmp: Path, name: str) -> tuple[Path, Path]:
    """(private PEM, public PEM), made the way docs/rollout.md says."""
    key, pub = tmp / f"{name}.key", tmp / f"{name}.pub"
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(key)], check=True, capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", str(key), "-pubout", "-out", str(pub)], check=True, capture_output=True)
    return key, pub


def sign(key: Path, sha: str) -> tuple[str, str]:
    """(signature base64, key id) for an artifact digest, with `cryptography`
    (the planted refusal cases bypass the publisher)."""
    from cryptography.hazmat.primitives import serialization

    pk = serialization.load_pem_private_key(key.read_bytes(), None)
    raw = pk.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(pk.sign(PREFIX + sha.encode())).decode(), sha256_hex(raw)[:16]  # type: ignore[call-arg,union-attr]


def bundle(tmp: Path, version: str, policy: Path) -> Path:
    """The shipped component with `policy` (its version replaced) embedded: a new sha256."""
    doc = json.loads(policy.read_text())
    doc["version"] = version
    p = tmp / f"policy-{version}.json"
    p.write_text(json.dumps(doc))
    out = tmp / f"artifact-{version}.wasm"
    r = subprocess.run([str(fleetlib.rust_bin("retry-policy")), "bundle", "--component", str(SHIPPED), "--policy", str(p),
                        "-o", str(out), "--allow-lint-errors", "yes"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"bundle {version}: {r.stderr}"
    return out


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([str(fleetlib.rust_bin("retry-policy")), *args], capture_output=True, text=True, timeout=timeout)


def publish(artifact: Path, store: list[str], key: Path, canary: Optional[int] = None) -> dict:
    args = ["publish", str(artifact), *store, "--key", str(key)]
    if canary is not None:
        args += ["--canary", str(canary)]
    r = cli(*args)
    assert r.returncode == 0, f"publish {artifact.name} exited {r.returncode}: {r.stderr}"
    return json.loads(r.stdout.strip().splitlines()[-1])


def rollout(command: str, store: list[str]) -> subprocess.CompletedProcess:
    r = cli("rollout", command, *store)
    assert r.returncode == 0, f"rollout {command} exited {r.returncode}: {r.stderr}"
    return r


def canonical(epoch: int, stable: str, canary: Optional[tuple[str, int]] = None, previous: tuple[str, ...] = ()) -> str:
    c = "null" if canary is None else '{"sha256":"%s","percent":%d}' % canary
    return '{"v":1,"epoch":%d,"stable":"%s","canary":%s,"previous":[%s]}' % (
        epoch, stable, c, ",".join(f'"{p}"' for p in previous))


def plant(client: Any, data: bytes, key: Path, *, sha: Optional[str] = None, signature: Optional[str] = None) -> str:
    """Store an artifact hash the way publish does, but unchecked (a hostile or
    broken publisher): `sha` names the key (default the bytes' digest),
    `signature` replaces the signature over it."""
    name = sha or sha256_hex(data)
    sig, kid = sign(key, name)
    client.hset(artifact_key(name), mapping={"bytes": data, "signature": signature or sig, "key_id": kid,
                                             "abi": "webhook:retry-policy@1.0.0", "document_version": "",
                                             "size": str(len(data)), "published_at_ms": str(int(time.time() * 1000))})
    return name


def record(client: Any) -> dict:
    raw = client.get(STATE)
    return json.loads(raw) if raw else {}


def statuses(client: Any) -> dict[str, dict]:
    return {k.decode(): json.loads(v) for k, v in client.hgetall(REPLICAS).items()}


def wait_until(cond: Callable[[], bool], timeout_s: float, what: Callable[[], str]) -> float:
    """Seconds until cond() holds; fails with what() after timeout_s."""
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout_s:
            raise AssertionError(f"not within {timeout_s:.0f} s: {what()}")
        time.sleep(0.05)
    return time.monotonic() - t0


def scrape_sha(port: int) -> Optional[str]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("webhook_policy_info{"):
                return line.split('artifact_sha256="', 1)[1].split('"', 1)[0]
    return None


def fleet_ids(langs: list[str], per_lang: int, percent: int, inside: int) -> list[tuple[str, str]]:
    """(lang, replica id) pairs, `per_lang` per language, exactly `inside` of
    them (in different languages) in a `percent` canary by the bucket rule."""
    out: list[tuple[str, str]] = []
    for i, lang in enumerate(langs):
        want_in = 1 if i < inside else 0
        cands = (f"{lang}-r{n}" for n in range(10_000))
        got_in = got_out = 0
        for c in cands:
            if bucket(c) < percent and got_in < want_in:
                out.append((lang, c))
                got_in += 1
            elif bucket(c) >= percent and got_out < per_lang - want_in:
                out.append((lang, c))
                got_out += 1
            if got_in == want_in and got_out == per_lang - want_in:
                break
    return out


@dataclass
class Follower:
    lang: str
    replica_id: str
    metrics_port: int
    replica: fleetlib.Replica


def stop_fleet(fleet: list["Follower"], timeout_s: float = 60) -> list[dict]:
    """SIGTERM every replica (docs/replica.md: drain, summary, exit 0) and
    return the summaries, each checked: events == stop reasons + pending."""
    import signal

    for f in fleet:
        if f.replica.proc.poll() is None:
            f.replica.proc.send_signal(signal.SIGTERM)
    out = []
    for f in fleet:
        s = f.replica.result(timeout=timeout_s)
        stopped = sum(int(v) for v in s["stop_reasons"].values())
        assert s["events"] == stopped + int(s.get("pending", 0)), f"{f.replica_id}: events lost: {s}"
        assert s["events"] > 0, f"{f.replica_id}: admitted nothing"
        out.append(s)
    return out


def start_fleet(ids: list[tuple[str, str]], *, target: str, policy: Path, pub: Path, store: list[str],
                deadline_ms: int, poll_ms: int = 500) -> list[Follower]:
    fleet = []
    for lang, rid in ids:
        port = fleetlib.free_port()
        rep = fleetlib.start_replica(
            lang, target=target, endpoint_id="rollout", events=1_000_000, policy=policy, concurrency=2,
            deadline_ms=deadline_ms,
            extra=(*store, "--artifact-from-redis", "--trust-key", str(pub), "--replica-id", rid,
                   "--rollout-poll-ms", str(poll_ms), "--metrics-addr", f"127.0.0.1:{port}"))
        fleet.append(Follower(lang, rid, port, rep))
    return fleet


def selftest_mutant() -> bytes:
    """A real component built from this tree with Retry-After read as 1001 ms
    a second: it loads in every host and fails every host's self-test
    (`parse-retry-after("120", 0)` is 120120, not 120000)."""
    import sys

    sys.path.insert(0, str(fleetlib.ROOT / "tests" / "artifact"))
    import mutants

    return mutants.build("selftest", "policy-core/src/retry_after.rs", "s.saturating_mul(1000).min(MAX_RETRY_AFTER_MS)",
                         "s.saturating_mul(1001).min(MAX_RETRY_AFTER_MS)").read_bytes()


def fake_component(shipped: bytes, version: str) -> bytes:
    """A component of another ABI (the package renamed to `version`, every
    function answering zeros): every host refuses it `artifact_abi_mismatch`.
    Built by the Python host's test helper, the one builder of such fakes."""
    import sys

    sys.path[:0] = [str(fleetlib.ROOT / "host-examples" / "python" / p) for p in ("src", "tests")]
    from fake_components import fake_component as build

    return build(shipped, version=version)
