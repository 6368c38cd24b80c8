"""The example dispatcher's demo drains on SIGTERM/SIGINT: spawned with a
journal and slow endpoints, signalled mid-run, it takes no more events,
lets the attempts in flight finish (or abandons them at --drain-ms,
journaled as made), exits 0 and leaves every unfinished event pending in
the journal (format 1, read by the replica's reader), its lock removed,
with no attempt received twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path



SRC = Path(__file__).resolve().parents[1] / "src"


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _signal_demo(tmp_path: Path, sig: signal.Signals, *, slow_ms: int, drain_ms: int,
                 lines_before_signal: int) -> tuple[dict, float, Path]:
    journal = tmp_path / "demo.journal"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.Popen([sys.executable, "-m", "webhook_retry_policy.dispatcher.demo", "--store", str(journal),
                             "--rounds", "1000", "--burst", "2", "--slow-ms", str(slow_ms), "--drain-ms", str(drain_ms)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        while _lines(journal) < lines_before_signal and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(sig)
        signalled = time.monotonic()
        proc.send_signal(sig)  # a second signal during the drain is ignored
        out, err = proc.communicate(timeout=drain_ms / 1000 + 20)
        took_s = time.monotonic() - signalled
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "draining" in err
    summary = [line for line in out.splitlines() if line.startswith("summary ")]
    assert len(summary) == 1 and out.rstrip().endswith(summary[0]), out
    return json.loads(summary[0].removeprefix("summary ")), took_s, journal




