"""Helpers for the fleet tests, the fleet benchmark and ``scripts/demo --redis``:
a private redis-server on a free loopback port, the local endpoints
(``retry-policy-dispatcher endpoints``), policy documents, and replicas of every
language (``host-examples/<lang>/replica``, the REPLICA contract).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("rust", "node", "python", "go")
RELEASE = ROOT / "target" / "release"
STOP_REASONS = (
    "delivered",
    "max_attempts_exhausted",
    "retry_budget_exhausted",
    "budget_unavailable",
    "terminal_response",
    "retry_window_elapsed",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rust_bin(name: str) -> Path:
    path = RELEASE / name
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run scripts/setup (cargo build --release -p retry-policy-dispatcher)")
    return path


def replica_path(lang: str) -> Optional[Path]:
    p = ROOT / "host-examples" / lang / "replica"
    return p if p.is_file() and os.access(p, os.X_OK) else None


def available_langs() -> tuple[list[str], list[str]]:
    """(languages with a replica, languages without one)."""
    have = [l for l in LANGS if replica_path(l)]
    return have, [l for l in LANGS if l not in have]


class RedisServer:
    """A private redis-server (Debian's /usr/bin/redis-server) in a temp dir."""

    def __init__(self) -> None:
        exe = shutil.which("redis-server")
        if not exe:
            raise FileNotFoundError("redis-server is not installed (scripts/setup installs Debian's redis-server)")
        self.exe = exe
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="fleet-redis-")
        self.proc: Optional[subprocess.Popen] = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> "RedisServer":
        args = [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--dir", self.dir, "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "warning"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                if self.client().ping():
                    return self
            except Exception:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def client(self) -> Any:
        import redis  # redis-py, installed by the python host's setup

        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> "RedisServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()


def budget_counts(client: Any, endpoint_id: str) -> tuple[int, int]:
    """(attempts, retries) summed over every bucket of an endpoint."""
    total = retries = 0
    for key in client.scan_iter(match=f"rb:{{{endpoint_id}}}:*"):
        h = client.hgetall(key)
        total += int(h.get(b"t", 0))
        retries += int(h.get(b"r", 0))
    return total, retries


class Endpoints:
    """``retry-policy-dispatcher endpoints NAME=STATUS...``: URLs by name; stats and logs."""

    def __init__(self, log: bool = False, **statuses: int) -> None:
        args = [str(rust_bin("retry-policy-dispatcher")), "endpoints"] + [f"{k}={v}" for k, v in statuses.items()]
        if log:
            args.append("--log")
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.urls: dict[str, str] = json.loads(self.proc.stdout.readline())

    def _get(self, name: str, path: str) -> str:
        import urllib.request

        base = self.urls[name].rsplit("/", 1)[0]
        with urllib.request.urlopen(base + path, timeout=10) as r:
            return r.read().decode()

    def stats(self, name: str) -> dict:
        return json.loads(self._get(name, "/__stats"))

    def wait_for_requests(self, names: list[str], timeout_s: float = 60) -> None:
        """Until each endpoint has received a request (slow starters are running)."""
        deadline = time.time() + timeout_s
        pending = list(names)
        while pending:
            pending = [n for n in pending if self.stats(n)["requests"] == 0]
            if pending and time.time() > deadline:
                raise AssertionError(f"no request reached {pending} within {timeout_s} s")
            time.sleep(0.02)

    def log(self, name: str) -> list[dict]:
        return [json.loads(l) for l in self._get(name, "/__log").splitlines() if l.strip()]

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def __enter__(self) -> "Endpoints":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def write_policy(path: Path, *, ratio: float = 0.1, budget_window_ms: int = 1000, min_sample: int = 20,
                 sliding: bool = True, window_ms: int = 3000, base_ms: int = 5, cap_ms: int = 50,
                 hard_cap: int = 16) -> Path:
    doc = {
        "version": "fleet-test",
        "classes": {
            "storm": {
                "window_ms": window_ms,
                "hard_cap": hard_cap,
                "backoff": {"base_ms": base_ms, "factor": 2.0, "cap_ms": cap_ms, "jitter": "full"},
                "budget": {"ratio": ratio, "window_ms": budget_window_ms, "min_sample": min_sample, "sliding": sliding},
            }
        },
    }
    path.write_text(json.dumps(doc))
    return path


@dataclass
class Replica:
    lang: str
    args: list[str]
    proc: subprocess.Popen = field(repr=False)

    def result(self, timeout: float = 120) -> dict:
        out, err = self.proc.communicate(timeout=timeout)
        if self.proc.returncode != 0:
            raise AssertionError(f"{self.lang} replica exited {self.proc.returncode}: {err[-2000:]}")
        lines = [l for l in out.splitlines() if l.strip()]
        if len(lines) != 1:
            raise AssertionError(f"{self.lang} replica printed {len(lines)} lines on stdout, not 1: {out[-2000:]}")
        summary = json.loads(lines[0])
        summary["_stderr"] = err
        return summary


def start_replica(lang: str, *, target: str, endpoint_id: str, events: int, policy: Path,
                  redis: Optional[str] = None, concurrency: int = 8, deadline_ms: Optional[int] = None,
                  extra: tuple[str, ...] = ()) -> Replica:
    exe = replica_path(lang)
    if exe is None:
        raise FileNotFoundError(f"host-examples/{lang}/replica is missing")
    args = [str(exe), "--target", target, "--endpoint-id", endpoint_id, "--events", str(events),
            "--concurrency", str(concurrency), "--policy", str(policy)]
    if redis:
        args += ["--redis", redis]
    if deadline_ms is not None:
        args += ["--deadline-ms", str(deadline_ms)]
    args += list(extra)
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    return Replica(lang, args, proc)


def totals(summaries: list[dict]) -> dict:
    """Fleet totals of replica summaries."""
    t = {"events": 0, "attempts": 0, "first_attempts": 0, "retries": 0, "redis_round_trips": 0}
    reasons = {r: 0 for r in STOP_REASONS}
    for s in summaries:
        for k in t:
            t[k] += int(s.get(k, 0))
        for r, n in s.get("stop_reasons", {}).items():
            reasons[r] = reasons.get(r, 0) + int(n)
    t["stop_reasons"] = reasons
    t["retry_share"] = t["retries"] / t["attempts"] if t["attempts"] else 0.0
    return t


def assert_nothing_lost(summary: dict) -> None:
    n = sum(int(v) for v in summary["stop_reasons"].values())
    assert n == summary["events"], f"{summary['host']}: {summary['events']} events but {n} stop reasons: {summary}"
