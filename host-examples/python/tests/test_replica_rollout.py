"""The replica's ``--artifact-from-redis`` (docs/replica.md, docs/rollout.md):
the four flags' exit-2 rules, a first tick before the first event, a publish
followed mid-run (``/metrics`` and the status record name the new artifact),
and a run that starts with Redis down or with a refused artifact keeps its
local artifact. Subprocesses against a loopback redis-server and endpoint."""

from __future__ import annotations

import hashlib
import json
import subprocess
import threading
import time
import urllib.request
from contextlib import suppress
from pathlib import Path

import pytest

pytest.importorskip("redis")
pytest.importorskip("cryptography")

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402
from rollout_fleet import REDIS_SERVER, SHIPPED, free_port, public_pem, publish, redis_cluster, redis_server  # noqa: E402
from test_replica import REPLICA, run_replica, storm_policy  # noqa: E402

from webhook_retry_policy.component_reader import append_custom_section  # noqa: E402
from webhook_retry_policy.dispatcher import LocalEndpoint  # noqa: E402
from webhook_retry_policy.redis_store import sync_client  # noqa: E402
from webhook_retry_policy.rollout import REPLICAS_KEY  # noqa: E402

KEY = Ed25519PrivateKey.generate()
needs_redis = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed (apt-get install redis-server)")


@pytest.fixture(scope="module")
def unavailable():
    with LocalEndpoint(503) as ep:
        yield ep


@pytest.fixture
def trust(tmp_path: Path) -> Path:
    path = tmp_path / "policy-team.pub"
    path.write_text("# the policy team\n" + public_pem(KEY))
    return path


def variant(tag: bytes) -> bytes:
    return append_custom_section(SHIPPED.read_bytes(), "webhook-retry-policy:test", tag)


@pytest.mark.parametrize(("bad", "named"), [
    (["--artifact-from-redis", "--trust-key", "TRUST"], "--artifact-from-redis needs --redis"),
    (["--artifact-from-redis", "--redis", "redis://127.0.0.1:1/0"], "--artifact-from-redis needs --trust-key"),
    (["--artifact-from-redis", "--redis", "redis://127.0.0.1:1/0", "--trust-key", "TRUST", "--artifact", "ART",
      "--watch-artifact-ms", "100"], "--artifact-from-redis and --watch-artifact-ms are exclusive"),
    (["--trust-key", "TRUST"], "--trust-key is only for --artifact-from-redis"),
    (["--redis", "redis://127.0.0.1:1/0", "--trust-key", "TRUST"], "--trust-key is only for --artifact-from-redis"),
    (["--replica-id", ""], "--replica-id: must not be empty"),
    (["--replica-id", "é" * 101], "--replica-id: expected 1 to 200 bytes"),
    (["--rollout-poll-ms", "49"], "--rollout-poll-ms: expected a whole number from 50 to 60000"),
    (["--rollout-poll-ms", "60001"], "--rollout-poll-ms: expected a whole number from 50 to 60000"),
    (["--rollout-poll-ms", "soon"], "--rollout-poll-ms: expected a whole number from 50 to 60000"),
    (["--rollout-poll-ms", "100", "--rollout-poll-ms", "200"], "--rollout-poll-ms given twice"),
    (["--artifact-from-redis", "--redis", "redis://127.0.0.1:1/0", "--trust-key", "EMPTY"], "rollout_trust_invalid"),
    (["--artifact-from-redis", "--redis", "redis://127.0.0.1:1/0", "--trust-key", "MISSING"], "rollout_trust_invalid"),
])
def test_the_rollout_flags_broken_rules_exit_2_with_one_line_naming_the_flag(tmp_path, trust, unavailable, bad, named):
    (tmp_path / "empty.pem").write_text("no key here\n")
    files = {"TRUST": str(trust), "ART": str(SHIPPED), "EMPTY": str(tmp_path / "empty.pem"),
             "MISSING": str(tmp_path / "missing.pem")}
    proc = run_replica("--target", unavailable.url, "--endpoint-id", "ep", "--events", "1",
                       "--policy", str(storm_policy(tmp_path)), *[files.get(x, x) for x in bad])
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and named in proc.stderr, proc.stderr
    if named == "rollout_trust_invalid":
        assert "--trust-key" in proc.stderr and files[bad[-1]] in proc.stderr


def test_help_lists_the_four_rollout_flags():
    out = subprocess.run([str(REPLICA), "--help"], capture_output=True, text=True, timeout=60).stdout
    for flag in ("--artifact-from-redis", "--trust-key FILE", "--replica-id ID", "--rollout-poll-ms N"):
        assert flag in out


def _long_policy(tmp_path: Path) -> Path:
    path = tmp_path / "long.json"
    path.write_text(json.dumps({"version": "rollout-test", "classes": {"storm": {
        "window_ms": 3000, "hard_cap": 100, "backoff": {"base_ms": 20, "factor": 2.0, "cap_ms": 40, "jitter": "none"},
        "budget": {"ratio": 1.0, "window_ms": 10_000, "min_sample": 1, "sliding": True}}}}))
    return path


@needs_redis
def test_a_running_replica_starts_on_the_published_artifact_follows_a_new_publish_and_counts_a_refused_one(tmp_path, trust,
                                                                                                         unavailable):
    v1, v2 = variant(b"v1"), variant(b"v2")
    sha1, sha2 = (hashlib.sha256(b).hexdigest() for b in (v1, v2))
    with redis_server(tmp_path) as url, sync_client(url) as client:
        publish(client, v1, KEY)
        proc = subprocess.Popen([str(REPLICA), "--target", unavailable.url, "--endpoint-id", "ep-rollout", "--events", "8",
                                 "--concurrency", "4", "--policy", str(_long_policy(tmp_path)), "--redis", url,
                                 "--artifact-from-redis", "--trust-key", str(trust), "--replica-id", "python-a",
                                 "--rollout-poll-ms", "50", "--metrics-addr", "127.0.0.1:0", "--allow-private-targets"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        err: list[str] = []
        threading.Thread(target=lambda: err.extend(proc.stderr), daemon=True).start()  # type: ignore[arg-type]

        def metrics() -> str:
            deadline = time.monotonic() + 30
            while not any("metrics on " in line for line in err):
                assert time.monotonic() < deadline and proc.poll() is None, "".join(err)
                time.sleep(0.02)
            url_ = next(line.split("metrics on ", 1)[1].strip() for line in err if "metrics on " in line)
            return urllib.request.urlopen(url_, timeout=5).read().decode()

        info = 'webhook_policy_info{{abi="webhook:retry-policy@1.0.0",artifact_sha256="{}",document_version="rollout-test"}} 1.0'
        assert info.format(sha1) in metrics()  # the first tick ran before the first event
        publish(client, v2, KEY)
        deadline = time.monotonic() + 20
        while info.format(sha2) not in (text := metrics()):
            assert time.monotonic() < deadline, text
            time.sleep(0.05)
        assert proc.poll() is None, "the replica finished before the swap: nothing was followed mid-run"
        assert 'webhook_policy_reloads_total{result="applied"} 1.0' in text
        sha3 = publish(client, variant(b"v3 by a stranger"), Ed25519PrivateKey.generate())  # refused mid-run: counted
        deadline = time.monotonic() + 20
        while 'webhook_policy_reloads_total{result="refused"} 1.0' not in text:
            assert time.monotonic() < deadline and proc.poll() is None, f"the refusal was never counted: {text}"
            time.sleep(0.05)
            with suppress(OSError):  # the replica ended meanwhile: the assertion above says so
                text = metrics()
        assert info.format(sha2) in text and 'webhook_policy_reloads_total{result="applied"} 1.0' in text
        deadline = time.monotonic() + 10
        while json.loads(client.hget(REPLICAS_KEY, "python-a"))["epoch"] != 3:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        status = json.loads(client.hget(REPLICAS_KEY, "python-a"))
        assert (status["language"], status["epoch"], status["refusal"]["code"]) == ("python", 3, "rollout_key_unknown")
        assert status["artifact_sha256"] == sha2
        assert status["pid"] == proc.pid  # the wrapper execs the interpreter
        out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, "".join(err)
    s = json.loads(out.strip())
    assert s["events"] == 8 == sum(s["stop_reasons"].values()) and s["retries"] > 0
    log = "".join(err)
    assert f"policy artifact loaded sha256={sha1} abi=webhook:retry-policy@1.0.0 document_version=rollout-test " \
           "source=redis" in log
    assert f"policy artifact swapped sha256={sha1} -> {sha2} abi=webhook:retry-policy@1.0.0 document_version=rollout-test " \
           "source=redis" in log
    assert log.count("policy artifact swapped") == 1  # the first tick's swap is in the loaded line only
    assert log.count(f"policy artifact refused source=redis sha256={sha3} code=rollout_key_unknown: ") == 1, log
    assert f"; keeping sha256={sha2}" in log


def test_a_replica_whose_redis_is_down_starts_on_its_local_artifact_and_says_so_once(tmp_path, trust, unavailable):
    shipped = hashlib.sha256(SHIPPED.read_bytes()).hexdigest()
    proc = run_replica("--target", unavailable.url, "--endpoint-id", "ep-down", "--events", "3",
                       "--policy", str(storm_policy(tmp_path)), "--redis", f"redis://127.0.0.1:{free_port()}/0",
                       "--artifact-from-redis", "--trust-key", str(trust), "--rollout-poll-ms", "50")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["events"] == 3
    assert proc.stderr.count(f"rollout: store unreachable, keeping sha256={shipped}, retrying every tick: ") == 1, \
        proc.stderr
    assert f"policy artifact loaded sha256={shipped} " in proc.stderr


@needs_redis
def test_a_replica_whose_first_tick_is_refused_runs_its_local_artifact_and_logs_the_refusal_once(tmp_path, trust,
                                                                                                 unavailable):
    shipped = hashlib.sha256(SHIPPED.read_bytes()).hexdigest()
    with redis_server(tmp_path) as url, sync_client(url) as client:
        refused = publish(client, variant(b"untrusted"), Ed25519PrivateKey.generate())
        proc = run_replica("--target", unavailable.url, "--endpoint-id", "ep-refused", "--events", "3",
                           "--policy", str(storm_policy(tmp_path)), "--redis", url, "--artifact-from-redis",
                           "--trust-key", str(trust), "--replica-id", "python-b", "--rollout-poll-ms", "50")
        status = json.loads(client.hget(REPLICAS_KEY, "python-b"))
    assert proc.returncode == 0, proc.stderr
    line = (f"policy artifact refused source=redis sha256={refused} code=rollout_key_unknown: ")
    assert proc.stderr.count(line) == 1, proc.stderr
    assert f"; keeping sha256={shipped}" in proc.stderr
    assert status["artifact_sha256"] == shipped and status["refusal"]["code"] == "rollout_key_unknown"
    assert status["epoch"] == 1


@needs_redis
@pytest.mark.skipif(__import__("shutil").which("redis-cli") is None, reason="redis-cli is not installed")
def test_a_replica_on_a_redis_cluster_starts_on_the_published_artifact_and_reports_its_status(tmp_path, trust,
                                                                                            unavailable):
    v1 = variant(b"cluster")
    with redis_cluster(tmp_path) as seed:
        with sync_client(seed, cluster=True, timeout_s=2) as client:
            sha = publish(client, v1, KEY)
            proc = run_replica("--target", unavailable.url, "--endpoint-id", "ep-cluster", "--events", "2",
                               "--policy", str(storm_policy(tmp_path)), "--redis-cluster", seed, "--artifact-from-redis",
                               "--trust-key", str(trust), "--replica-id", "python-cluster", "--store-timeout-ms", "2000",
                               "--rollout-poll-ms", "50")
            status = json.loads(client.hget(REPLICAS_KEY, "python-cluster"))
    assert proc.returncode == 0, proc.stderr
    assert f"policy artifact loaded sha256={sha} " in proc.stderr and "source=redis" in proc.stderr
    assert status["epoch"] == 1 and status["language"] == "python"
