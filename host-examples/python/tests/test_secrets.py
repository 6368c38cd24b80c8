"""Secrets stay secret: no query string, Authorization value, signing
secret or Redis password in dead-letter records, logs, metrics or error
messages — through the replica process and the dispatcher."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

from webhook_retry_policy.dispatcher import (
    DispatcherMetrics,
    LocalEndpoint,
)
from webhook_retry_policy.redact import redact, redact_url

REPLICA = Path(__file__).resolve().parents[1] / "replica"
TOKEN, PASSWORD = "tok_QUERYSECRET", "PASSW0RDSECRET"
SIGNING = "whsec_U0lHTklOR1NFQ1JFVHNpZ25pbmdzZWNyZXQ="


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_urls_lose_their_query_and_userinfo_and_text_loses_secrets_and_authorization_values():
    assert redact_url(f"https://u:{PASSWORD}@hooks.example:8443/in?token={TOKEN}#x") == \
        "https://<redacted>@hooks.example:8443/in?<redacted>"
    text = redact(f"redis://:{PASSWORD}@10.0.0.1:6379/0 failed; Authorization: Bearer abc.def key {SIGNING}")
    assert PASSWORD not in text and "abc.def" not in text and SIGNING not in text
    assert "10.0.0.1:6379" in text


def test_the_replica_never_prints_a_target_token_or_a_redis_password(tmp_path):
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"version": "s", "classes": {"storm": {
        "window_ms": 500, "backoff": {"base_ms": 5, "factor": 2.0, "cap_ms": 20, "jitter": "full"},
        "budget": {"ratio": 0.9, "window_ms": 1000, "min_sample": 1000, "sliding": True}}}}))
    with LocalEndpoint(503) as down:
        runs = [
            [str(REPLICA), "--target", f"{down.url}?token={TOKEN}", "--endpoint-id", "ep", "--events", "3",
             "--policy", str(policy), "--allow-private-targets",
             "--redis", f"redis://:{PASSWORD}@127.0.0.1:{_closed_port()}/0"],
            [str(REPLICA), "--target", f"ftp://x/?token={TOKEN}", "--endpoint-id", "ep", "--events", "1",
             "--policy", str(policy)],
            [str(REPLICA), "--target", down.url, "--endpoint-id", "ep", "--events", "1", "--policy", str(policy),
             "--redis", f"http://:{PASSWORD}@127.0.0.1:1/0"],
        ]
        for args in runs:
            proc = subprocess.run(args, capture_output=True, text=True, timeout=60)
            assert proc.returncode in (0, 2), proc.stderr
            assert TOKEN not in proc.stdout + proc.stderr and PASSWORD not in proc.stdout + proc.stderr




def test_the_metrics_endpoint_binds_to_loopback_unless_told_otherwise():
    metrics = DispatcherMetrics()
    metrics.serve()
    try:
        assert metrics._server.server_address[0] == "127.0.0.1"
    finally:
        metrics.close()


