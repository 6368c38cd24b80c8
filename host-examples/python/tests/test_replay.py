"""``replica replay`` (docs/health-dispatch.md section 4) on the engine: the
dead letters of a journal chosen by endpoint, replayed as ``<id>~r1``
under the current document, at most once (a second replay finds them
replayed), a class the current document lacks skipped, bad flags, an
unreadable policy or a locked journal exit 2; the next run sends the
replays. The journal is written by an engine (no host codec)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_replica import REPLICA

from webhook_retry_policy import DeliveryEngine
from webhook_retry_policy.dispatcher import LocalEndpoint
from webhook_retry_policy.dispatcher import replay as replay_mod
from webhook_retry_policy.dispatcher.journal_file import JournalFile

T0 = 1_800_000_000_000
CLASS = {"window_ms": 600_000, "hard_cap": 10, "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 8000, "jitter": "none"}}


def policy_file(tmp_path: Path, name: str = "c") -> Path:
    p = tmp_path / f"policy-{name}.json"
    p.write_text(json.dumps({"version": "v2", "classes": {name: CLASS}}))
    return p


def journal_with_dead_letters(path: Path, target: str) -> None:
    """a and c on ep-1, b on ep-2: each answered 410 (terminal_response), as an engine journals them."""
    lines: list[str] = []
    with DeliveryEngine({"document": {"version": "v1", "classes": {"c": CLASS}}, "memory_store": True}) as e:
        for i, (eid, ep) in enumerate((("a", "ep-1"), ("b", "ep-2"), ("c", "ep-1"))):
            now = T0 + 10 * i
            outs = e.feed([{"op": "admit", "now_ms": now, "event_id": eid, "endpoint_id": ep, "target": target,
                            "class": "c"}]).outputs
            outs += e.feed([{"op": "result", "now_ms": now + 1, "event_id": eid, "attempt": 1, "status": 410}]).outputs
            assert any(o["action"] == "dead_letter" for o in outs), outs
            lines += [o["line"] for o in outs if o["action"] == "journal"]
    path.write_text("".join(lines))


def run_command(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any] | None]:
    code = replay_mod.main(list(argv))
    out = capsys.readouterr().out.strip().splitlines()
    return code, (json.loads(out[0]) if out else None)


def test_replay_chooses_by_endpoint_replays_each_dead_letter_at_most_once_and_the_next_run_sends_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j"
    with LocalEndpoint(204) as ep:
        journal_with_dead_letters(path, ep.url)
        pol = str(policy_file(tmp_path))
        code, out = run_command(capsys, "--store", str(path), "--policy", pol, "--endpoint", "ep-1")
        assert code == 0 and out == {"replayed": 2, "already_replayed": 0, "skipped_no_class": 0, "ids": ["a~r1", "c~r1"]}
        code, out = run_command(capsys, "--store", str(path), "--policy", pol, "--endpoint", "ep-1")
        assert code == 0 and out == {"replayed": 0, "already_replayed": 2, "skipped_no_class": 0, "ids": []}
        run = subprocess.run([str(REPLICA), "--target", ep.url, "--endpoint-id", "ep-1", "--events", "0", "--policy", pol,
                              "--store", str(path), "--allow-private-targets"], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        s = json.loads(run.stdout)
        assert s["events"] == 2 and s["stop_reasons"]["delivered"] == 2 and ep.requests == 2, s


def test_a_class_missing_from_the_current_document_is_skipped(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j"
    journal_with_dead_letters(path, "http://127.0.0.1:9/")
    code, out = run_command(capsys, "--store", str(path), "--policy", str(policy_file(tmp_path, "other")),
                            "--endpoint", "ep-2")
    assert code == 0 and out == {"replayed": 0, "already_replayed": 0, "skipped_no_class": 1, "ids": []}


def test_bad_flags_an_unreadable_policy_or_a_locked_journal_exit_2(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j"
    journal_with_dead_letters(path, "http://127.0.0.1:9/")
    pol = str(policy_file(tmp_path))
    assert run_command(capsys, "--store", str(path), "--policy", pol, "--from-ms", "soon") == (2, None)
    assert run_command(capsys, "--store", str(path), "--policy", str(tmp_path / "missing.json")) == (2, None)
    held = JournalFile(str(path))
    try:
        assert run_command(capsys, "--store", str(path), "--policy", pol) == (2, None)
    finally:
        held.close()


def test_replay_never_starts_the_journals_pending_events(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j"
    journal_with_dead_letters(path, "http://127.0.0.1:9/")
    with DeliveryEngine({"document": {"version": "v1", "classes": {"c": CLASS}}, "memory_store": True}) as e:
        e.resume(T0 + 100, path.read_bytes())
        outs = e.feed([{"op": "admit", "now_ms": T0 + 100, "event_id": "p", "endpoint_id": "ep-1",
                        "target": "http://127.0.0.1:9/", "class": "c"}]).outputs
    with path.open("a") as f:  # "p": attempt 1 journaled and sent, never answered
        f.write("".join(o["line"] for o in outs if o["action"] == "journal"))
    before = path.read_text()
    code, out = run_command(capsys, "--store", str(path), "--policy", str(policy_file(tmp_path)), "--endpoint", "ep-2",
                            "--now-ms", str(T0 + 1000))  # "p" is due
    assert code == 0 and out is not None and out["replayed"] == 1
    added = path.read_text()[len(before):]
    assert '"event_id":"p"' not in added  # no record of "p": its next attempt stays 2, never a skipped number
