"""Helpers for the fleet tests, the fleet benchmark and ``scripts/demo --redis``:
a private redis-server on a free loopback port, the local endpoints
(``retry-policy-dispatcher endpoints``), policy documents, and replicas of every
language (``host-examples/<lang>/replica``, the REPLICA contract), a local
three-master Redis Cluster, a ``MONITOR`` command counter, and the store key
and budget rule in Python (for the Lua agreement test).

Everything listens on loopback only and every wait is bounded: a replica that
cannot run yet fails naming its language, it never hangs the run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
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


def free_cluster_port() -> int:
    """A free port whose cluster bus port (port + 10000) is free too."""
    for _ in range(200):
        p = free_port()
        if p + 10000 >= 65536:
            continue
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", p + 10000))
            return p
        except OSError:
            continue
    raise RuntimeError("no free port pair (port, port + 10000) on loopback")


def rust_bin(name: str) -> Path:
    path = RELEASE / name
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run scripts/ensure-test-deps (scripts/build-rust)")
    return path


def replica_path(lang: str) -> Optional[Path]:
    """``host-examples/<lang>/replica``; ``reference`` is tests/fleet's own
    reference replica (store protocol, simplified policy; checks the harness)."""
    if lang == "reference":
        return Path(__file__).resolve().parent / "reference_replica.py"
    p = ROOT / "host-examples" / lang / "replica"
    return p if p.is_file() and os.access(p, os.X_OK) else None


def available_langs() -> tuple[list[str], list[str]]:
    """(languages with a replica, languages without one)."""
    have = [l for l in LANGS if replica_path(l)]
    return have, [l for l in LANGS if l not in have]


# Whether each language's replica runs at all (one probe per process): the
# hosts are migrated one at a time, and a replica that cannot run must fail
# its own test naming the language, not hang or sink every mixed-fleet test.
_PROBES: dict[str, Optional[str]] = {}
PROBE_TIMEOUT_S = float(os.environ.get("FLEET_PROBE_TIMEOUT_S", "240"))  # first run may build (go build)


def probe_replica(lang: str) -> Optional[str]:
    """None if ``host-examples/<lang>/replica`` delivers 2 events to a healthy
    loopback endpoint (in-memory budget) and prints its summary line within
    PROBE_TIMEOUT_S; otherwise why not (one line, naming the language)."""
    if lang in _PROBES:
        return _PROBES[lang]
    why: Optional[str] = None
    if replica_path(lang) is None:
        why = f"{lang}: host-examples/{lang}/replica is missing or not executable"
    else:
        tmp = Path(tempfile.mkdtemp(prefix=f"fleet-probe-{lang}-"))
        try:
            policy = write_policy(tmp / "policy.json")
            with Endpoints(ok=200) as eps:
                rep = start_replica(lang, target=eps.urls["ok"], endpoint_id=f"probe-{lang}", events=2, policy=policy,
                                    concurrency=1)
                try:
                    s = rep.result(timeout=PROBE_TIMEOUT_S)
                    if s.get("stop_reasons", {}).get("delivered") != 2:
                        why = f"{lang}: replica probe (2 events to a 200 endpoint) did not deliver both: {s}"
                except AssertionError as e:
                    why = f"{lang}: replica probe failed: {e}"
        except Exception as e:  # noqa: BLE001 - reported, never swallowed
            why = f"{lang}: replica probe could not run: {e!r}"
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    _PROBES[lang] = why
    return why


def working_langs(langs: Optional[list[str]] = None) -> tuple[list[str], dict[str, str]]:
    """(languages whose replica runs, {language: why not} for the others)."""
    ok, broken = [], {}
    for l in langs or list(LANGS):
        why = probe_replica(l)
        if why is None:
            ok.append(l)
        else:
            broken[l] = why
    return ok, broken


# ---------------------------------------------------------------- store key and rule

def store_key(endpoint_id: str, window_ms: int) -> str:
    """policy-core ``store_key``: ``rb:{e<lowercase hex of the id's UTF-8 bytes>}:<window_ms>``."""
    return "rb:{e" + endpoint_id.encode("utf-8").hex() + "}:" + str(int(window_ms))


def allows_retry(budget: dict, now_ms: int, current: dict, previous: dict) -> bool:
    """SPEC "Retry budget" in doubles, in the SPEC's order (Python floats are
    IEEE doubles; an int meets a double by exact conversion below 2^53)."""
    window = float(budget["window_ms"])
    w = float(budget["window_ms"] - now_ms % budget["window_ms"]) / window if budget["sliding"] else 0.0
    est_total = float(current["total"]) + float(previous["total"]) * w
    est_retries = float(current["retries"]) + float(previous["retries"]) * w
    if est_total < float(budget["min_sample"]):
        return True
    return (est_retries + 1.0) <= float(budget["ratio"]) * (est_total + 1.0)


def script_argv(op: str, bucket: int, budget: dict, now_ms: int, skew_check: bool = False) -> list[str]:
    """ARGV of fleet/budget.lua for one store request."""
    return [op, str(bucket), str(budget["window_ms"]), str(now_ms), repr(float(budget["ratio"])),
            str(budget["min_sample"]), "1" if budget["sliding"] else "0", "1" if skew_check else "0"]


class RedisServer:
    """A private redis-server (Debian's /usr/bin/redis-server) in a temp dir."""

    def __init__(self) -> None:
        exe = shutil.which("redis-server")
        if not exe:
            raise FileNotFoundError("redis-server is not installed (scripts/ensure-test-deps installs Debian's redis-server)")
        self.exe = exe
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="fleet-redis-")
        self.proc: Optional[subprocess.Popen] = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> "RedisServer":
        args = [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--dir", self.dir, "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "warning",
                "--maxmemory-policy", "noeviction"]  # fleet/README.md: budget keys must never be evicted
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                if self.client().ping():
                    return self
            except Exception:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def pause(self) -> None:
        """SIGSTOP: Redis hangs (connections stay open, nothing answers)."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGCONT)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGCONT)  # a paused server cannot act on SIGTERM
            except OSError:
                pass
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
    """(attempts, retries) summed over every bucket Redis holds for an
    endpoint: the store-protocol key (``store_key``, fields ``t:<b>``/``r:<b>``)
    of every bucket width, plus the 0.1 per-bucket keys of a host not yet
    migrated (``rb:{<id>}:<window>:<bucket>``, fields ``t``/``r``)."""
    total = retries = 0
    hexkey = "rb:{e" + endpoint_id.encode("utf-8").hex() + "}:*"
    for key in client.scan_iter(match=hexkey):
        for f, v in client.hgetall(key).items():
            if f.startswith(b"t:"):
                total += int(v)
            elif f.startswith(b"r:"):
                retries += int(v)
    for key in client.scan_iter(match=f"rb:{{{glob_escape(endpoint_id)}}}:*"):
        h = client.hgetall(key)
        total += int(h.get(b"t", 0))
        retries += int(h.get(b"r", 0))
    return total, retries


def glob_escape(s: str) -> str:
    return re.sub(r"([*?\[\]\\])", r"\\\1", s)


ENDPOINTS_PY = Path(__file__).resolve().parent / "endpoints.py"


class Endpoints:
    """Local endpoints ``NAME=STATUS``: URLs by name; stats and logs.

    ``retry-policy-dispatcher endpoints`` when it is built (fast), else
    ``tests/fleet/endpoints.py`` (same contract, no build); always the Python
    one when a latency is asked for (``latency_ms``: every POST answered
    after that long, so a storm lasts long enough to put a fault in it).
    Also the Python one for a status ``"200:503/3"`` (every 3rd POST answers
    503) and for ``tls=(CERT, KEY)``: HTTPS with that certificate. Both take
    the down-then-healthy form ``"503~200@5000"`` / ``"429+RA3~200@4000"``
    (DOWN until DOWN_MS after the first POST, then UP; ``stats`` adds
    ``up_at_ms``)."""

    def __init__(self, log: bool = False, latency_ms: int = 0, tls: Optional[tuple[Path, Path]] = None,
                 **statuses: Any) -> None:
        rust = RELEASE / "retry-policy-dispatcher"
        self.ssl_context: Any = None
        if (latency_ms or tls or not rust.exists() or os.environ.get("FLEET_ENDPOINTS") == "python"
                or any(isinstance(v, str) and "~" not in v for v in statuses.values())):
            args = [sys.executable, str(ENDPOINTS_PY)] + [f"{k}={v}@{latency_ms}" for k, v in statuses.items()]
            self.impl = "python"
        else:
            args = [str(rust), "endpoints"] + [f"{k}={v}" for k, v in statuses.items()]
            self.impl = "rust"
        if tls:
            import ssl

            args += ["--tls-cert", str(tls[0]), "--tls-key", str(tls[1])]
            # The harness's own /__stats and /__log reads of its own server
            # (a wrong-name certificate included): not what is under test.
            self.ssl_context = ssl._create_unverified_context()
        if log:
            args.append("--log")
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = _readline(self.proc.stdout, 30)
        if not line:
            self.proc.kill()
            raise RuntimeError(f"endpoints ({self.impl}) printed no URLs within 30 s: {args}")
        self.urls: dict[str, str] = json.loads(line)

    def _get(self, name: str, path: str) -> str:
        import urllib.request

        base = self.urls[name].rsplit("/", 1)[0]
        with urllib.request.urlopen(base + path, timeout=10, context=self.ssl_context) as r:
            return r.read().decode()

    def stats(self, name: str) -> dict:
        return json.loads(self._get(name, "/__stats"))

    def wait_for_requests(self, names: list[str], timeout_s: float = 60, replicas: Optional[list["Replica"]] = None) -> None:
        """Until each endpoint has received a request (slow starters are running).
        With ``replicas``: fail at once, naming the language, if one exits first."""
        deadline = time.time() + timeout_s
        pending = list(names)
        while pending:
            pending = [n for n in pending if self.stats(n)["requests"] == 0]
            for r in replicas or []:
                if r.proc.poll() is not None and r.proc.returncode != 0:
                    r.result(timeout=5)  # raises, naming the language and its stderr
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
                self.proc.wait()

    def __enter__(self) -> "Endpoints":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _readline(stream: Any, timeout_s: float) -> str:
    """One line from a pipe, or "" after timeout_s (a thread: portable, bounded)."""
    out: list[str] = []
    t = threading.Thread(target=lambda: out.append(stream.readline()), daemon=True)
    t.start()
    t.join(timeout_s)
    return out[0] if out else ""


def write_policy(path: Path, *, ratio: float = 0.1, budget_window_ms: int = 1000, min_sample: int = 20,
                 sliding: bool = True, window_ms: int = 3000, base_ms: int = 5, cap_ms: int = 50,
                 hard_cap: int = 16, health: Optional[dict] = None) -> Path:
    """``health``: the class's format-3 section (docs/health.md section 1); None: format 2."""
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
    if health is not None:
        doc["classes"]["storm"]["health"] = health
    path.write_text(json.dumps(doc))
    return path


@dataclass
class Replica:
    lang: str
    args: list[str]
    proc: subprocess.Popen = field(repr=False)

    def result(self, timeout: float = 120) -> dict:
        """The replica's summary line. A replica that does not finish within
        ``timeout`` is killed and the test fails naming the language."""
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            out, err = self.proc.communicate()
            raise AssertionError(f"{self.lang} replica did not finish within {timeout:.0f} s (killed): "
                                 f"{' '.join(self.args[1:])}\nstdout: {(out or '')[-1000:]}\n"
                                 f"stderr: {(err or '')[-2000:]}") from None
        if self.proc.returncode != 0:
            shown = err if len(err) <= 2000 else err[:400] + "\n[...]\n" + err[-1600:]  # the first line names a bad flag
            raise AssertionError(f"{self.lang} replica exited {self.proc.returncode}: {shown}")
        lines = [l for l in out.splitlines() if l.strip()]
        if len(lines) != 1:
            raise AssertionError(f"{self.lang} replica printed {len(lines)} lines on stdout, not 1: {out[-2000:]}")
        try:
            summary = json.loads(lines[0])
        except ValueError:
            raise AssertionError(f"{self.lang} replica's summary is not JSON: {lines[0][:500]}") from None
        summary["_stderr"] = err
        summary.setdefault("host", self.lang)
        return summary

    def kill(self) -> None:
        """SIGKILL the replica's process group (its wrapper script and the real process)."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                self.proc.kill()
            self.proc.wait()


# Flags a language's replica needs for the tests beyond the REPLICA contract:
# the Rust dispatcher refuses loopback/private targets unless told (SSRF guard).
LANG_FLAGS: dict[str, tuple[str, ...]] = {"rust": ("--allow-private-targets",), "python": ("--allow-private-targets",), "node": ("--allow-private-targets",), "go": ("--allow-private-targets",)}


def start_replica(lang: str, *, target: str, endpoint_id: str, events: int, policy: Path,
                  redis: Optional[str] = None, concurrency: int = 8, deadline_ms: Optional[int] = None,
                  extra: tuple[str, ...] = (), exe: Optional[Path] = None) -> Replica:
    """``exe``: another executable taking the same flags (a harness check's stand-in)."""
    exe = exe or replica_path(lang)
    if exe is None:
        raise FileNotFoundError(f"host-examples/{lang}/replica is missing")
    args = [str(exe), "--target", target, "--endpoint-id", endpoint_id, "--events", str(events),
            "--concurrency", str(concurrency), "--policy", str(policy), *LANG_FLAGS.get(lang, ())]
    if redis:
        args += ["--redis", redis]
    if deadline_ms is not None:
        args += ["--deadline-ms", str(deadline_ms)]
    args += list(extra)
    # Its own process group, so a hung replica is killed with its wrapper.
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            start_new_session=True)
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


# ---------------------------------------------------------------- MONITOR

class MonitorCounter:
    """Counts the commands clients send to one Redis, independently of the
    hosts' own counters: a second connection (``redis-cli MONITOR``) whose
    lines are read after a sentinel ``ECHO`` shows everything before it
    arrived. Commands run inside scripts (``[0 lua]``) are not counted.

    ``counts(match)`` -> {"scripts": EVALSHA + EVAL lines, "all": every
    client command} for lines containing any of ``match`` (for example the
    hex and raw forms of an endpoint id), or every line when match is empty.
    """

    LINE = re.compile(r'^\d+\.\d+ \[\d+ ([^\]]+)\] "([^"]*)"')

    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        self.host, self.port = host, port
        self.file = tempfile.NamedTemporaryFile(prefix="fleet-monitor-", suffix=".log", delete=False)
        cli = shutil.which("redis-cli")
        if not cli:
            raise FileNotFoundError("redis-cli is not installed (Debian's redis-tools, with redis-server)")
        self.cli = cli
        self.proc = subprocess.Popen([cli, "-h", host, "-p", str(port), "MONITOR"], stdout=self.file,
                                     stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        self._wait_for("OK", 10)
        self.lines: list[str] = []

    def _text(self) -> str:
        with open(self.file.name, errors="replace") as f:
            return f.read()

    def _wait_for(self, needle: str, timeout_s: float) -> None:
        deadline = time.time() + timeout_s
        while needle not in self._text():
            if time.time() > deadline or self.proc.poll() is not None:
                raise RuntimeError(f"redis-cli MONITOR on port {self.port}: no {needle!r} within {timeout_s} s")
            time.sleep(0.02)

    def stop(self) -> list[str]:
        """Flush (sentinel ECHO), stop the MONITOR connection, keep the lines."""
        if self.proc.poll() is None:
            nonce = f"fleet-monitor-end-{os.getpid()}-{time.time_ns()}"
            try:
                subprocess.run([self.cli, "-h", self.host, "-p", str(self.port), "ECHO", nonce],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10)
                self._wait_for(nonce, 20)
            finally:
                self.proc.terminate()
                try:
                    self.proc.wait(5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            self.lines = [l for l in self._text().splitlines() if "fleet-monitor-end-" not in l]
            self.file.close()
            os.unlink(self.file.name)
        return self.lines

    def counts(self, match: tuple[str, ...] = ()) -> dict:
        scripts = other = 0
        by_cmd: dict[str, int] = {}
        for l in self.lines:
            m = self.LINE.match(l)
            if not m or m.group(1) == "lua":
                continue
            if match and not any(x in l for x in match):
                continue
            cmd = m.group(2).upper()
            by_cmd[cmd] = by_cmd.get(cmd, 0) + 1
            if cmd in ("EVALSHA", "EVAL", "EVALSHA_RO", "EVAL_RO", "FCALL"):
                scripts += 1
            else:
                other += 1
        return {"scripts": scripts, "all": scripts + other, "by_command": by_cmd}

    def __enter__(self) -> "MonitorCounter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def id_patterns(endpoint_id: str) -> tuple[str, ...]:
    """How an endpoint id shows in a MONITOR line: its store key's hex form
    (store protocol) or raw inside a 0.1 key ``rb:{<id>}:...``."""
    return ("{e" + endpoint_id.encode().hex() + "}", "{" + endpoint_id + "}")


# ---------------------------------------------------------------- Redis Cluster

class RedisCluster:
    """A local Redis Cluster: 3 masters (Debian's redis-server
    ``--cluster-enabled yes``) on free loopback ports, joined with
    ``redis-cli --cluster create ... --cluster-yes``. ``node_for(key)`` is the
    client of the master owning the key's slot (``CLUSTER KEYSLOT`` +
    ``CLUSTER SLOTS``)."""

    def __init__(self, masters: int = 3) -> None:
        exe = shutil.which("redis-server")
        if not exe or not shutil.which("redis-cli"):
            raise FileNotFoundError("redis-server / redis-cli are not installed (scripts/ensure-test-deps installs Debian's)")
        self.exe = exe
        self.dir = tempfile.mkdtemp(prefix="fleet-cluster-")
        self.ports: list[int] = []
        self.procs: list[subprocess.Popen] = []
        self.masters = masters
        self.slots: list[tuple[int, int, int]] = []  # (first, last, port)

    @property
    def urls(self) -> list[str]:
        return [f"redis://127.0.0.1:{p}/0" for p in self.ports]

    @property
    def url(self) -> str:
        """A seed node (cluster-mode clients discover the rest)."""
        return self.urls[0]

    def start(self) -> "RedisCluster":
        for i in range(self.masters):
            port = free_cluster_port()
            d = Path(self.dir) / str(port)
            d.mkdir()
            args = [self.exe, "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                    "--cluster-config-file", str(d / "nodes.conf"), "--cluster-node-timeout", "2000",
                    "--save", "", "--appendonly", "no", "--dir", str(d), "--daemonize", "no",
                    "--protected-mode", "yes", "--loglevel", "warning", "--maxmemory-policy", "noeviction"]
            self.procs.append(subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            self.ports.append(port)
        for p in self.ports:
            self._wait(lambda p=p: self.client(p).ping(), f"node {p} did not start", 10)
        addrs = [f"127.0.0.1:{p}" for p in self.ports]
        r = subprocess.run(["redis-cli", "--cluster", "create", *addrs, "--cluster-replicas", "0", "--cluster-yes"],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed: {r.stdout[-1500:]} {r.stderr[-1500:]}")

        def ok() -> bool:
            for p in self.ports:
                info = self.client(p).execute_command("CLUSTER", "INFO").decode()
                if "cluster_state:ok" not in info:
                    return False
            return True

        self._wait(ok, "cluster_state never became ok", 30)
        self.refresh_slots()
        return self

    def refresh_slots(self) -> None:
        self.slots = []
        for entry in self.client(self.ports[0]).execute_command("CLUSTER", "SLOTS"):
            first, last, master = int(entry[0]), int(entry[1]), entry[2]
            self.slots.append((first, last, int(master[1])))
        assert sum(l - f + 1 for f, l, _ in self.slots) == 16384, self.slots

    @staticmethod
    def _wait(cond: Any, what: str, timeout_s: float) -> None:
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            try:
                if cond():
                    return
            except Exception:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"redis cluster: {what} within {timeout_s} s")

    def client(self, port: int) -> Any:
        import redis

        return redis.Redis(host="127.0.0.1", port=port, socket_timeout=5)

    def keyslot(self, key: str) -> int:
        return int(self.client(self.ports[0]).execute_command("CLUSTER", "KEYSLOT", key))

    def port_for(self, key: str) -> int:
        slot = self.keyslot(key)
        for first, last, port in self.slots:
            if first <= slot <= last:
                return port
        raise AssertionError(f"no master owns slot {slot}")

    def node_for(self, key: str) -> Any:
        return self.client(self.port_for(key))

    def flushall(self) -> None:
        for p in self.ports:
            self.client(p).flushall()

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> "RedisCluster":
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc: Any) -> None:
        self.close()
