"""The replica executable (REPLICA contract of the fleet tests), run as a
subprocess against a real loopback endpoint that always answers 503."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from webhook_retry_policy import RetryPolicy, StoreOp, StoreRequest
from webhook_retry_policy.dispatcher import LocalEndpoint
from webhook_retry_policy.transport_kinds import ALL_KINDS

REPLICA = Path(__file__).resolve().parents[1] / "replica"
STOP_REASONS = {"delivered", "max_attempts_exhausted", "retry_budget_exhausted", "budget_unavailable",
                "terminal_response", "retry_window_elapsed"}
REDIS_SERVER = shutil.which("redis-server")


@pytest.fixture(scope="module")
def unavailable():
    with LocalEndpoint(503) as ep:
        yield ep


def storm_policy(tmp_path: Path, *, ratio: float = 0.1, min_sample: int = 20) -> Path:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({
        "version": "replica-test",
        "classes": {"storm": {
            "window_ms": 1500,
            "hard_cap": 16,
            "backoff": {"base_ms": 5, "factor": 2.0, "cap_ms": 50, "jitter": "full"},
            "budget": {"ratio": ratio, "window_ms": 10_000, "min_sample": min_sample, "sliding": True},
        }},
    }))
    return path


def run_replica(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    # every target here is a loopback endpoint: allowed explicitly (refused by default)
    allow = ("--allow-private-targets",) if "--target" in args else ()
    return subprocess.run([str(REPLICA), *args, *allow], capture_output=True, text=True, timeout=timeout)


def summary_of(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stdout
    return json.loads(lines[0])


def test_a_storm_without_redis_prints_one_json_line_and_loses_no_event(tmp_path, unavailable):
    before = unavailable.requests
    s = summary_of(run_replica("--target", unavailable.url, "--endpoint-id", "ep-test", "--events", "60",
                               "--concurrency", "4", "--policy", str(storm_policy(tmp_path))))
    assert s["host"] == "python"
    assert list(s) == ["host", "events", "attempts", "first_attempts", "retries", "stop_reasons", "pending", "drained",
                       "transport_errors", "redis_round_trips", "store_errors", "budget_disagreements", "elapsed_ms",
                       "holds", "held", "probe_calls"]
    assert s["holds"] == {"paused": 0, "circuit_open": 0, "probe_refused": 0, "release_pacing": 0, "budget_refused": 0}
    assert (s["held"], s["probe_calls"]) == (0, 0)  # format 2: zeros
    assert s["pending"] == 0 and s["drained"] is False and s["store_errors"] == 0
    assert set(s["transport_errors"].values()) == {0} and len(s["transport_errors"]) == len(ALL_KINDS)
    assert set(s["stop_reasons"]) == STOP_REASONS
    assert s["events"] == 60 and s["first_attempts"] == 60
    assert sum(s["stop_reasons"].values()) == s["events"]
    assert s["attempts"] == s["first_attempts"] + s["retries"]
    assert unavailable.requests - before == s["attempts"]
    # Always 503: nothing is delivered; the budget's sample floor lets some retries through.
    assert s["stop_reasons"]["delivered"] == 0
    assert s["retries"] > 0
    assert s["redis_round_trips"] == 0


def test_the_deadline_stops_starting_new_events_and_each_started_one_still_ends(tmp_path, unavailable):
    s = summary_of(run_replica("--target", unavailable.url, "--endpoint-id", "ep-deadline", "--events", "1000000",
                               "--policy", str(storm_policy(tmp_path)), "--deadline-ms", "300"))
    assert 0 < s["events"] < 1_000_000
    assert sum(s["stop_reasons"].values()) == s["events"] == s["first_attempts"]


@pytest.mark.parametrize("bad", [
    ["--events", "x"],
    ["--events", "-1"],
    ["--concurrency", "0"],
    ["--deadline-ms", "soon"],
    ["--target", "ftp://example"],
    ["--policy", "/nonexistent/policy.json"],
    ["--redis", "http://127.0.0.1:1"],
    ["--endpoint-id", ""],
    ["--watch-artifact-ms", "0"],
    ["--watch-artifact-ms", "-5"],
    ["--watch-artifact-ms", "soon"],
    ["--metrics-addr", "9100"],
    ["--metrics-addr", "127.0.0.1:http"],
    ["--metrics-addr", "127.0.0.1:65536"],
    ["--metrics-addr", "::1:0"],
    ["--metrics-addr", "127.0.0.1:-1"],
    ["--drain-ms", "-1"],
    ["--drain-ms", "soon"],
])
def test_bad_arguments_exit_2_with_a_message(tmp_path, unavailable, bad):
    args = {"--target": unavailable.url, "--endpoint-id": "ep", "--events": "1", "--policy": str(storm_policy(tmp_path))}
    extra: list[str] = []
    for flag, value in zip(bad[::2], bad[1::2], strict=True):
        if flag in args:
            args[flag] = value
        else:
            extra += [flag, value]
    proc = run_replica(*[x for kv in args.items() for x in kv], *extra)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "replica:" in proc.stderr
    assert bad[0] in proc.stderr.splitlines()[0]
    assert len(proc.stderr.splitlines()) == 1, proc.stderr  # one line naming the flag (docs/replica.md)


def test_a_flag_given_twice_is_a_usage_error_naming_it():
    from webhook_retry_policy.dispatcher.command_line import UsageError, settings

    base = ["--target", "http://127.0.0.1:1/", "--endpoint-id", "ep", "--events", "1"]
    for twice in (["--events", "2"], ["--events=2"], ["--target", "http://127.0.0.1:2/"]):
        with pytest.raises(UsageError, match=f"{twice[0].split('=')[0]} given twice"):
            settings("replica", [*base, *twice])
    with pytest.raises(UsageError, match="--allow-private-targets given twice"):
        settings("replica", [*base, "--allow-private-targets", "--allow-private-targets"])
    assert settings("replica", [*base, "--drain-ms", "0"]).drain_ms == 0
    assert settings("replica", base).drain_ms == 5000


def test_help_and_version_print_to_stdout_and_exit_0_without_loading_the_artifact(tmp_path):
    import os

    env = dict(os.environ, RETRY_POLICY_ARTIFACT=str(tmp_path / "no-such-artifact.wasm"))
    for flag, expected in (("--help", "--drain-ms"), ("--version", "replica (python) ")):
        proc = subprocess.run([str(REPLICA), flag], capture_output=True, text=True, timeout=60, env=env)
        assert proc.returncode == 0 and expected in proc.stdout and proc.stderr == "", proc.stderr


def test_an_unreadable_artifact_is_a_setup_error_that_exits_2_with_one_line(tmp_path, unavailable):
    missing = tmp_path / "missing.wasm"
    proc = run_replica("--target", unavailable.url, "--endpoint-id", "ep", "--events", "1",
                       "--policy", str(storm_policy(tmp_path)), "--artifact", str(missing))
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert "artifact_unreadable" in proc.stderr and str(missing) in proc.stderr, proc.stderr


def test_the_old_flag_names_are_usage_errors(tmp_path, unavailable):
    base = ("--target", unavailable.url, "--endpoint-id", "ep", "--events", "1", "--policy", str(storm_policy(tmp_path)))
    for old in (["--metrics-port", "0"], ["--watch-artifact"], ["--watch-artifact", "200"], ["--metrics", "127.0.0.1:0"]):
        proc = run_replica(*base, *old)
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr


def test_metrics_addr_parses_host_and_port():
    from webhook_retry_policy.dispatcher.metrics import parse_metrics_addr

    assert parse_metrics_addr("127.0.0.1:0") == ("127.0.0.1", 0)
    assert parse_metrics_addr(":9100") == ("127.0.0.1", 9100)  # loopback unless a host is named
    assert parse_metrics_addr("[::1]:65535") == ("::1", 65535)
    assert parse_metrics_addr("localhost:8080") == ("localhost", 8080)
    for bad in ("", "9100", "host:", "host:x", "host:+1", "host:70000", "::1:80", "[]:80", "[::1:80"):
        with pytest.raises(ValueError):
            parse_metrics_addr(bad)


def test_watch_artifact_ms_needs_a_file_to_watch(tmp_path, unavailable):
    import os

    env = {k: v for k, v in os.environ.items() if k != "RETRY_POLICY_ARTIFACT"}
    proc = subprocess.run([str(REPLICA), "--target", unavailable.url, "--endpoint-id", "ep", "--events", "1",
                           "--policy", str(storm_policy(tmp_path)), "--watch-artifact-ms", "100",
                           "--allow-private-targets"], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 2 and "--watch-artifact-ms needs --artifact" in proc.stderr


def test_a_metrics_addr_that_cannot_be_bound_exits_2(tmp_path, unavailable):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = run_replica("--target", unavailable.url, "--endpoint-id", "ep", "--events", "1",
                           "--policy", str(storm_policy(tmp_path)), "--metrics-addr", f"127.0.0.1:{port}")
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert f"--metrics-addr 127.0.0.1:{port}" in proc.stderr


def test_a_policy_without_the_storm_class_exits_2(tmp_path, unavailable):
    doc = json.loads(storm_policy(tmp_path).read_text())
    doc["classes"] = {"other": doc["classes"]["storm"]}
    p = tmp_path / "other.json"
    p.write_text(json.dumps(doc))
    proc = run_replica("--target", unavailable.url, "--endpoint-id", "ep", "--events", "1", "--policy", str(p))
    assert proc.returncode == 2 and "storm" in proc.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_redis_fails_closed_and_loses_nothing(tmp_path, unavailable):
    # Generous budget: every retry would be allowed, so each refusal is the store's.
    s = summary_of(run_replica("--target", unavailable.url, "--endpoint-id", "ep-down", "--events", "20",
                               "--policy", str(storm_policy(tmp_path, ratio=0.9, min_sample=1000)),
                               "--redis", f"redis://127.0.0.1:{_free_port()}/0"))
    assert s["retries"] == 0
    assert s["stop_reasons"]["budget_unavailable"] == 20


@pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed (apt-get install redis-server)")
def test_with_redis_every_attempt_is_counted_in_the_shared_key_with_one_command_each(tmp_path, unavailable):
    redis = pytest.importorskip("redis")
    port = _free_port()
    proc = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client = redis.Redis(port=port)
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        s = summary_of(run_replica("--target", unavailable.url, "--endpoint-id", "ep-redis", "--events", "50",
                                   "--policy", str(storm_policy(tmp_path)), "--redis", f"redis://127.0.0.1:{port}/0"))
        assert sum(s["stop_reasons"].values()) == s["events"] == 50
        key = RetryPolicy().store_key(StoreRequest(StoreOp.RECORD, "ep-redis", 10000, 0))
        fields = {k.decode(): int(v) for k, v in client.hgetall(key).items()}
        total = sum(v for k, v in fields.items() if k.startswith("t:"))
        retries = sum(v for k, v in fields.items() if k.startswith("r:"))
        if s["elapsed_ms"] < 10000:  # within two buckets the hash still holds every count
            assert (total, retries) == (s["attempts"], s["retries"])
        # ONE Redis command per attempt (record / record_reserve / reserve), none for a decided retry
        assert 0 < s["redis_round_trips"] <= s["attempts"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_loopback_target_is_refused_by_default_and_counted_without_a_request(tmp_path):
    with LocalEndpoint(204) as ok:
        proc = subprocess.run([str(REPLICA), "--target", ok.url, "--endpoint-id", "ep", "--events", "3",
                               "--policy", str(storm_policy(tmp_path))], capture_output=True, text=True, timeout=60)
        s = summary_of(proc)
        assert ok.requests == 0
    assert s["stop_reasons"]["terminal_response"] == 3
    assert "destination_refused: 3 attempts not sent" in proc.stderr


def test_a_running_replica_swaps_its_artifact_through_the_file_watch_and_accounts_for_every_event(tmp_path, unavailable):
    import os
    import threading
    import urllib.request

    from webhook_retry_policy.component_reader import append_custom_section

    shipped = (REPLICA.parent / "src" / "webhook_retry_policy" / "retry_policy.wasm").read_bytes()
    new = append_custom_section(shipped, "webhook-retry-policy:test", b"a different artifact")
    old_sha, new_sha = (__import__("hashlib").sha256(b).hexdigest() for b in (shipped, new))
    path = tmp_path / "policy.wasm"
    path.write_bytes(shipped)
    policy = tmp_path / "long.json"
    policy.write_text(json.dumps({"version": "swap-test", "classes": {"storm": {
        "window_ms": 2500, "hard_cap": 100, "backoff": {"base_ms": 20, "factor": 2.0, "cap_ms": 40, "jitter": "none"},
        "budget": {"ratio": 1.0, "window_ms": 10_000, "min_sample": 1, "sliding": True}}}}))
    before = unavailable.requests
    proc = subprocess.Popen([str(REPLICA), "--target", unavailable.url, "--endpoint-id", "ep-swap", "--events", "8",
                             "--concurrency", "4", "--policy", str(policy), "--artifact", str(path),
                             "--watch-artifact-ms", "50", "--metrics-addr", "127.0.0.1:0", "--allow-private-targets"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err_lines: list[str] = []
    reader = threading.Thread(target=lambda: err_lines.extend(proc.stderr), daemon=True)  # type: ignore[arg-type]
    reader.start()

    def metrics() -> str:
        deadline = time.monotonic() + 20
        while not any("metrics on " in line for line in err_lines):
            assert time.monotonic() < deadline and proc.poll() is None, "".join(err_lines)
            time.sleep(0.02)
        url = next(line.split("metrics on ", 1)[1].strip() for line in err_lines if "metrics on " in line)
        return urllib.request.urlopen(url, timeout=5).read().decode()

    info = 'webhook_policy_info{{abi="webhook:retry-policy@1.0.0",artifact_sha256="{}",document_version="swap-test"}} 1.0'
    assert info.format(old_sha) in metrics()
    staged = tmp_path / "staged.wasm"
    staged.write_bytes(new)
    os.replace(staged, path)  # a deploy: rename over the watched path, mid-run
    deadline = time.monotonic() + 20
    while info.format(new_sha) not in (text := metrics()):
        assert time.monotonic() < deadline, text
        time.sleep(0.05)
    assert proc.poll() is None, "the replica finished before the swap: nothing was swapped mid-run"
    assert old_sha not in text  # the old series is gone
    assert 'webhook_policy_reloads_total{result="applied"} 1.0' in text
    assert 'webhook_policy_reloads_total{result="refused"} 0.0' in text
    out, _ = proc.communicate(timeout=120)
    reader.join(5)
    assert proc.returncode == 0, "".join(err_lines)
    s = json.loads(out.strip())
    assert s["events"] == 8 == sum(s["stop_reasons"].values()) == s["first_attempts"]
    assert unavailable.requests - before == s["attempts"] and s["retries"] > 0
    log = "".join(err_lines)
    # the lines name the --policy document's version, as /metrics does
    assert f"policy artifact loaded sha256={old_sha} abi=webhook:retry-policy@1.0.0 document_version=swap-test " in log
    assert f"policy artifact swapped sha256={old_sha} -> {new_sha} abi=webhook:retry-policy@1.0.0 " \
        "document_version=swap-test " in log


def test_without_policy_the_replica_runs_the_document_embedded_in_its_artifact(tmp_path, unavailable):
    from webhook_retry_policy.artifact import DOCUMENT_SECTION
    from webhook_retry_policy.component_reader import append_custom_section

    shipped = (REPLICA.parent / "src" / "webhook_retry_policy" / "retry_policy.wasm").read_bytes()
    plain = run_replica("--target", unavailable.url, "--endpoint-id", "ep-bundled", "--events", "3")
    assert plain.returncode == 2 and "embeds no policy document" in plain.stderr
    bundle = tmp_path / "bundle.wasm"
    bundle.write_bytes(append_custom_section(shipped, DOCUMENT_SECTION, storm_policy(tmp_path).read_bytes()))
    s = summary_of(run_replica("--target", unavailable.url, "--endpoint-id", "ep-bundled", "--events", "3",
                               "--artifact", str(bundle)))
    assert s["events"] == 3 == sum(s["stop_reasons"].values()) and s["retries"] > 0
