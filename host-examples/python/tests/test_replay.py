"""Replay of dead letters (docs/health-dispatch.md section 4): the filter
(endpoint, stop reason, finished_at_ms range, limit), ``~r<n>`` ids, the
current document's policy, at most once through the commit rule (a replay
interrupted after its own record and before the dead letter's
``replayed_as`` replays nothing twice), and the command's one JSON line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from health_harness import T0, Harness, document

from webhook_retry_policy import RetryPolicy
from webhook_retry_policy.dispatcher import replay as replay_mod
from webhook_retry_policy.dispatcher.journal_event import component_hasher
from webhook_retry_policy.dispatcher.journal_writer import Journal, read_file
from webhook_retry_policy.dispatcher.replay import ReplayFilter, replay_dead_letters, replay_id
from webhook_retry_policy.types import HttpResponse

HEALTH = {"pause": {"max_ms": 60_000}}


def dead(h: Harness, eid: str, endpoint: str, reason: str, finished_ms: int, cls_doc: Any = None) -> dict[str, Any]:
    rec = h.record(eid, endpoint)
    dl = {"event_id": eid, "endpoint_id": endpoint, "attempts": 3, "elapsed_ms": 900, "stop_reason": reason}
    rec.update(status="dead_lettered", attempts=3, stop_reason=reason, dead_letter=dl, finished_at_ms=finished_ms,
               last_outcome="503", body_b64="eyJ4IjoxfQ==")
    return rec


def journal_with_dead_letters(path: Path) -> list[str]:
    h = Harness(document(HEALTH), lambda now, e, n: HttpResponse(204))
    j = Journal(str(path), component_hasher(RetryPolicy()))
    recs = [dead(h, "a", "ep-1", "max_attempts_exhausted", T0 + 100),
            dead(h, "b", "ep-2", "max_attempts_exhausted", T0 + 200),
            dead(h, "c", "ep-1", "retry_budget_exhausted", T0 + 300),
            dead(h, "d~r1", "ep-1", "max_attempts_exhausted", T0 + 400),
            dead(h, "e", "ep-1", "max_attempts_exhausted", T0 + 5000)]
    for r in recs:
        j.append(r)
    j.close()
    return [r["event_id"] for r in recs]


def policy_file(tmp_path: Path, window_ms: int = 600_000) -> Path:
    p = tmp_path / "policy.json"
    p.write_text(json.dumps({"version": "v2", "classes": {"c": {
        "window_ms": window_ms, "hard_cap": 10,
        "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 8000, "jitter": "none"},
        "budget": {"ratio": 0.5, "window_ms": 60_000, "min_sample": 1, "sliding": True}, "health": HEALTH}}}))
    return p


def run_command(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any] | None]:
    code = replay_mod.main(list(argv))
    out = capsys.readouterr().out.strip().splitlines()
    return code, (json.loads(out[0]) if out else None)


def test_replay_ids_count_up_a_suffix_they_already_carry() -> None:
    assert [replay_id(x) for x in ("a", "a~r1", "a~r9", "a~r0", "a~rx")] == ["a~r1", "a~r2", "a~r10", "a~r0~r1",
                                                                             "a~rx~r1"]


def test_replay_chooses_by_endpoint_reason_and_time_range_and_writes_r_ids_under_the_current_policy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j"
    journal_with_dead_letters(path)
    store, pol = str(path), str(policy_file(tmp_path, window_ms=120_000))
    code, out = run_command(capsys, "--store", store, "--policy", pol, "--endpoint", "ep-1", "--reason",
                            "max_attempts_exhausted", "--from-ms", str(T0 + 100), "--to-ms", str(T0 + 5000),
                            "--now-ms", str(T0 + 9000))
    assert code == 0 and out == {"replayed": 2, "already_replayed": 0, "skipped_no_class": 0, "ids": ["a~r1", "d~r2"]}
    recs = {r["event_id"]: r for r in read_file(store, component_hasher(RetryPolicy()))}
    new = recs["a~r1"]
    assert (new["status"], new["attempts"], new["replay_of"], new["next_attempt_at_ms"]) == ("pending", 0, "a", T0 + 9000)
    assert new["first_attempted_at_ms"] == T0 + 9000 and new["deadline_ms"] == T0 + 9000 + 120_000  # the current policy
    assert new["policy_version"] == "v2" and new["body_b64"] == "eyJ4IjoxfQ==" and new["endpoint_id"] == "ep-1"
    assert new["replayed_dead_letter"]["event_id"] == "a" and recs["a"]["replayed_as"] == "a~r1"
    assert recs["b"]["replayed_as"] is None and recs["c"]["replayed_as"] is None and recs["e"]["replayed_as"] is None
    code, again = run_command(capsys, "--store", store, "--policy", pol, "--endpoint", "ep-1", "--now-ms", str(T0 + 9001))
    assert code == 0 and again == {"replayed": 2, "already_replayed": 2, "skipped_no_class": 0, "ids": ["c~r1", "e~r1"]}
    code, limited = run_command(capsys, "--store", store, "--policy", pol, "--limit", "0")
    assert code == 0 and limited is not None and (limited["replayed"], limited["ids"]) == (0, [])
    assert read_file(store, component_hasher(RetryPolicy()))[1]["replayed_as"] is None  # b: not chosen past the limit


def test_an_interrupted_replay_replays_nothing_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "j"
    journal_with_dead_letters(path)
    rp = RetryPolicy()
    doc = rp.load_health_document(policy_file(tmp_path).read_text())
    j = Journal(str(path), component_hasher(rp))
    appended = []

    def crash_after_the_commit(rec: dict[str, Any]) -> None:
        if appended:  # the replay's own record is on disk; the dead letter's replayed_as never is
            raise KeyboardInterrupt("killed")
        appended.append(rec["event_id"])
        Journal.append(j, rec)

    monkeypatch.setattr(j, "append", crash_after_the_commit)
    with pytest.raises(KeyboardInterrupt):
        replay_dead_letters(j, doc, ReplayFilter(), T0 + 9000)
    j.close()
    assert appended == ["a~r1"]
    j = Journal(str(path), component_hasher(rp))
    assert j.events["a"]["replayed_as"] == "a~r1", "read back as replayed through a~r1's replay_of"
    out = replay_dead_letters(j, doc, ReplayFilter(), T0 + 9500)
    j.close()
    assert out["already_replayed"] == 1 and "a~r1" not in out["ids"] and "a~r2" not in out["ids"]
    ids = [r["event_id"] for r in read_file(str(path), component_hasher(rp)) if r.get("replay_of") == "a"]
    assert ids == ["a~r1"]


def test_a_class_missing_from_the_current_document_is_skipped(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j"
    journal_with_dead_letters(path)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"version": "v3", "classes": {"other": json.loads(policy_file(tmp_path).read_text())[
        "classes"]["c"]}}))
    code, out = run_command(capsys, "--store", str(path), "--policy", str(other), "--endpoint", "ep-2")
    assert code == 0 and out == {"replayed": 0, "already_replayed": 0, "skipped_no_class": 1, "ids": []}


def test_bad_flags_an_unreadable_policy_or_a_locked_journal_exit_2(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j"
    journal_with_dead_letters(path)
    pol = str(policy_file(tmp_path))
    assert run_command(capsys, "--store", str(path), "--policy", pol, "--from-ms", "soon") == (2, None)
    assert run_command(capsys, "--store", str(path), "--policy", str(tmp_path / "missing.json")) == (2, None)
    held = Journal(str(path), component_hasher(RetryPolicy()))
    try:
        assert run_command(capsys, "--store", str(path), "--policy", pol) == (2, None)
    finally:
        held.close()
