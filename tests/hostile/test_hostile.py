"""Every language's replica against hostile endpoints (issue 11).

For each case and language: the process finishes (no crash, no hang),
every event ends delivered or dead-lettered with a known reason (nothing
lost), peak memory stays bounded, the run is bounded in time (each attempt
has a total deadline), no redirect is followed, nothing is injected into a
request, and loopback targets are refused unless explicitly allowed.
Figures (peak RSS, seconds) are printed per case: ``tests/hostile/run -s``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Optional

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

from hostile_server import HostileServer  # noqa: E402

LANGS = ["rust", "node", "python", "go"]
TIME = "/usr/bin/time"  # GNU time (Debian package `time`, installed by scripts/ensure-test-deps)
EVENTS = 3
ATTEMPT_DEADLINE_MS = 2000
RUN_LIMIT_S = 40.0
PEAK_RSS_LIMIT_MIB = 256
STOP_REASONS = {"delivered", "terminal_response", "max_attempts_exhausted", "retry_window_elapsed",
                "retry_budget_exhausted", "budget_unavailable"}
GAVE_UP = STOP_REASONS - {"delivered"}

# case -> the stop reasons every event may end with
EXPECT: dict[str, set[str]] = {
    "ok": {"delivered"},
    "status-999": {"terminal_response"},
    "status-099": {"terminal_response"},
    "status-1xx": GAVE_UP,
    "garbage-status-line": GAVE_UP,
    "not-http": GAVE_UP,
    "retry-after-garbage": GAVE_UP,
    "retry-after-unicode-digits": GAVE_UP,
    "retry-after-huge": {"retry_window_elapsed"},
    "retry-after-past-date": GAVE_UP,
    "retry-after-future-date": {"retry_window_elapsed"},
    "huge-body": {"delivered"},
    "endless-header": GAVE_UP,
    "drip": GAVE_UP,
    "reset-mid-body": GAVE_UP,
    "reset": GAVE_UP,
    "redirect-307": {"terminal_response"},
    "redirect-302": {"terminal_response"},
    "crlf-in-header": STOP_REASONS,
}


@pytest.fixture(scope="module")
def server():
    s = HostileServer().start()
    yield s
    s.close()


@pytest.fixture(scope="module")
def policy(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "policy.json"
    path.write_text(json.dumps({
        "version": "hostile",
        "classes": {"storm": {
            "window_ms": 3000, "hard_cap": 16,
            "backoff": {"base_ms": 5, "factor": 2.0, "cap_ms": 50, "jitter": "full"},
            "budget": {"ratio": 0.5, "window_ms": 1000, "min_sample": 1000, "sliding": True},
        }},
    }))
    return path


_warm: set[str] = set()


def replica(lang: str) -> Optional[Path]:
    """The replica; run once with --help first, so a wrapper that builds on
    first use (Go) is not measured building."""
    p = ROOT / "host-examples" / lang / "replica"
    if not os.access(p, os.X_OK):
        return None
    if lang not in _warm:
        subprocess.run([str(p), "--help"], cwd=ROOT, capture_output=True, timeout=300)
        _warm.add(lang)
    return p


def run(lang: str, target: str, policy: Path, *, endpoint_id: str = "ep_hostile", allow_private: bool = True) -> dict:
    """Run one replica to completion; its summary plus `_peak_rss_mib`, `_seconds`."""
    exe = replica(lang)
    if exe is None:
        pytest.skip(f"host-examples/{lang}/replica does not exist")
    args = [str(exe), "--target", target, "--endpoint-id", endpoint_id, "--events", str(EVENTS),
            "--concurrency", str(EVENTS), "--policy", str(policy),
            "--attempt-deadline-ms", str(ATTEMPT_DEADLINE_MS)]
    if allow_private:
        args.append("--allow-private-targets")
    # Peak memory from GNU time (its own small process forks the replica, so
    # the figure is the replica's tree, not this pytest process's pages).
    rss_file = Path(os.environ.get("TMPDIR", "/tmp")) / f"hostile-rss-{os.getpid()}-{lang}.txt"
    rss_file.unlink(missing_ok=True)
    args = [TIME, "-q", "-f", "%M", "-o", str(rss_file), *args]
    start = time.monotonic()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, start_new_session=True)
    out: dict[str, bytes] = {}
    readers = [threading.Thread(target=lambda k=k, f=f: out.__setitem__(k, f.read()), daemon=True)
               for k, f in (("out", proc.stdout), ("err", proc.stderr))]
    for t in readers:
        t.start()
    status = 0
    while time.monotonic() - start < RUN_LIMIT_S:
        pid, status, _ = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        time.sleep(0.05)
    else:
        os.killpg(proc.pid, signal.SIGKILL)
        os.wait4(proc.pid, 0)
        pytest.fail(f"{lang}: no answer within {RUN_LIMIT_S:.0f} s against {target} (killed)")
    proc.returncode = os.waitstatus_to_exitcode(status)
    for t in readers:
        t.join(5)
    seconds = time.monotonic() - start
    err = out.get("err", b"").decode("utf-8", "replace")
    assert proc.returncode == 0, f"{lang} exited {proc.returncode} against {target}: {err[-1500:]}"
    lines = [l for l in out.get("out", b"").decode("utf-8", "replace").splitlines() if l.strip()]
    assert len(lines) == 1, f"{lang}: expected one summary line, got {lines[-5:]}"
    summary = json.loads(lines[0])
    summary["_peak_rss_mib"] = int(rss_file.read_text().split()[-1]) / 1024
    rss_file.unlink(missing_ok=True)
    summary["_seconds"] = seconds
    return summary


def check_every_event_ended(lang: str, case: str, summary: dict, allowed: set[str]) -> None:
    reasons = {k: int(v) for k, v in summary["stop_reasons"].items() if int(v)}
    assert sum(reasons.values()) == EVENTS, f"{lang}/{case}: {EVENTS} events, stop reasons {reasons}"
    assert set(reasons) <= allowed, f"{lang}/{case}: stop reasons {reasons}, allowed {sorted(allowed)}"


@pytest.mark.parametrize("case", sorted(EXPECT))
@pytest.mark.parametrize("lang", LANGS)
def test_a_hostile_endpoint_never_crashes_loses_or_holds_the_dispatcher(lang, case, server, policy):
    stolen_before = server.stolen
    summary = run(lang, server.url(case), policy)
    print(f"\n{lang:>6} {case:<28} peak {summary['_peak_rss_mib']:7.1f} MiB  {summary['_seconds']:5.1f} s  "
          f"{ {k: v for k, v in summary['stop_reasons'].items() if v} }")
    check_every_event_ended(lang, case, summary, EXPECT[case])
    assert summary["_peak_rss_mib"] <= PEAK_RSS_LIMIT_MIB, f"{lang}/{case}: peak {summary['_peak_rss_mib']:.0f} MiB"
    assert server.stolen == stolen_before, f"{lang}/{case}: a redirect was followed"
    if case in ("retry-after-huge", "retry-after-future-date"):
        assert int(summary["attempts"]) == EVENTS, f"{lang}/{case}: a retry was scheduled past the window"


@pytest.mark.parametrize("lang", LANGS)
def test_loopback_targets_are_refused_unless_allowed(lang, server, policy):
    before = server.requests["ok"]
    summary = run(lang, server.url("ok"), policy, allow_private=False)
    check_every_event_ended(lang, "refused", summary, {"terminal_response"})
    assert server.requests["ok"] == before, f"{lang}: a request reached a loopback target without the allow option"


@pytest.mark.parametrize("lang", LANGS)
def test_cr_lf_in_an_endpoint_id_injects_nothing(lang, server, policy):
    summary = run(lang, server.url("ok"), policy, endpoint_id="ep\r\nx-injected: 1")
    check_every_event_ended(lang, "crlf-id", summary, STOP_REASONS)
    assert not any(b"x-injected" in h.lower() for h in server.heads), f"{lang}: a header was injected"
