"""DeliveryEngine: the component's delivery engine driven through JSON
batches (docs/engine.md), the engine's refusals as typed errors, and the
engine trace runner's failures naming the case and step."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from webhook_retry_policy import DeliveryEngine, EngineAnswer, EngineError
from webhook_retry_policy.conformance import Runner

T = 1_800_000_000_000
DOCUMENT = {"version": "t1", "classes": {"n": {"window_ms": 60000, "hard_cap": 4, "backoff": {
    "base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "none"}}}}
TRACES = Path(__file__).resolve().parents[3] / "tests" / "vectors"  # engine-*.json beside the other vectors


def admit(now_ms: int, event_id: str = "ev-1") -> dict[str, Any]:
    return {"op": "admit", "now_ms": now_ms, "event_id": event_id, "endpoint_id": "ep-1",
            "target": "https://hooks.example.com/ep-1", "class": "n"}


def result(now_ms: int, attempt: int, status: int) -> dict[str, Any]:
    return {"op": "result", "now_ms": now_ms, "event_id": "ev-1", "attempt": attempt, "status": status}


def actions(answer: EngineAnswer, name: str) -> list[dict[str, Any]]:
    return [o for o in answer.outputs if o["action"] == name]


def test_a_503_then_a_200_is_delivered_on_the_second_attempt_with_the_memory_store() -> None:
    with DeliveryEngine({"document": DOCUMENT, "memory_store": True}) as engine:
        first = engine.feed([admit(T)])
        assert [(s["event_id"], s["attempt"]) for s in actions(first, "send")] == [("ev-1", 1)]
        assert first.errors == [] and actions(first, "store_call") == []  # the engine answers its own store calls
        retry = engine.feed([result(T + 5, 1, 503)])
        assert retry.errors == [] and actions(retry, "send") == [] and actions(retry, "delivered") == []
        assert retry.timeout_ms == T + 5 + 1000  # base_ms, no jitter: when to tick
        second = engine.feed([{"op": "tick", "now_ms": retry.timeout_ms}])
        assert [(s["event_id"], s["attempt"]) for s in actions(second, "send")] == [("ev-1", 2)]
        done = engine.feed([result(T + 1100, 2, 200)])
        assert actions(done, "delivered") == [{"action": "delivered", "event_id": "ev-1", "attempts": 2}]
        assert done.errors == [] and done.timeout_ms is None


def test_a_refused_input_is_reported_by_its_index_and_code_and_the_batch_goes_on() -> None:
    with DeliveryEngine(json.dumps({"document": DOCUMENT, "memory_store": True})) as engine:
        answer = engine.feed([admit(T), admit(T), {"op": "tick", "now_ms": T - 1}, admit(T + 1, "ev-2")])
        assert [(e["index"], e["error"]) for e in answer.errors] == [(1, "duplicate_event"), (2, "time_went_backwards")]
        assert all(e["message"] for e in answer.errors)
        assert [s["event_id"] for s in actions(answer, "send")] == ["ev-1", "ev-2"]


def test_a_stale_handle_after_close_is_a_typed_error_from_the_engine() -> None:
    engine = DeliveryEngine({"document": DOCUMENT})
    engine.close()
    with pytest.raises(EngineError) as e:
        engine.feed([{"op": "tick", "now_ms": T}])
    assert e.value.code == "invalid_input" and "not a live engine" in e.value.message
    with pytest.raises(EngineError, match="not a live engine"):
        engine.resume(T, b"")
    engine.close()  # closing again changes nothing


@pytest.mark.parametrize(("config", "code"), [
    ({"document": DOCUMENT, "max_in_flight": 0}, "invalid_input"),
    ({"document": {"version": "x", "classes": {}}, "surprise": 1}, "invalid_input"),
    ("{not json", "invalid_document"),
    ({"document": DOCUMENT, "max_events": float("nan")}, "invalid_input"),
])
def test_a_config_the_engine_refuses_is_an_engine_error_with_its_code(config: Any, code: str) -> None:
    with pytest.raises(EngineError) as e:
        DeliveryEngine(config)
    assert e.value.code == code and e.value.message


def test_a_batch_that_is_not_an_array_or_a_negative_time_is_an_engine_error_never_a_glue_exception() -> None:
    with DeliveryEngine({"document": DOCUMENT}) as engine:
        with pytest.raises(EngineError, match="a batch is a JSON array"):
            engine.feed('{"op": "tick"}')
        with pytest.raises(EngineError) as e:
            engine.resume(-1, b"")
        assert e.value.code == "invalid_input"
        torn = engine.resume(T, b"not a journal\n\xff")
        assert [x["error"] for x in torn.errors] == ["journal_unsupported"]


def test_an_engine_is_used_on_the_thread_that_opened_it() -> None:
    with DeliveryEngine({"document": DOCUMENT}) as engine:
        caught: list[BaseException] = []

        def other() -> None:
            try:
                engine.feed([{"op": "tick", "now_ms": T}])
            except EngineError as e:
                caught.append(e)

        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert len(caught) == 1 and "thread that opened it" in str(caught[0])
        assert engine.feed([{"op": "tick", "now_ms": T}]).errors == []


def test_every_engine_trace_passes_through_the_conformance_runner() -> None:
    files = sorted(TRACES.glob("engine-*.json"))
    results = [r for f in files for r in Runner().run_file(f)]
    cases = sum(len(json.loads(f.read_text(encoding="utf-8"))["cases"]) for f in files)
    assert len(results) == cases >= 25 and [r for r in results if r.problem] == []


def test_a_trace_with_a_wrong_expectation_fails_naming_its_case_and_step(tmp_path: Path) -> None:
    doc = json.loads((TRACES / "engine-delivery.json").read_text())
    case = doc["cases"][0]
    case["steps"][0]["expect"][0]["action"] = "not-this"
    case["steps"][-1]["timeout_ms"] = 12345
    doc["cases"][1]["steps"][0]["surprise"] = True
    (tmp_path / "engine-delivery.json").write_text(json.dumps(doc))
    failed = [r for r in Runner().run_file(tmp_path / "engine-delivery.json") if r.problem]
    assert [(r.name, (r.problem or "")[:7]) for r in failed] == [
        (case["name"], "step 0:"), (doc["cases"][1]["name"], "broken ")]
    assert "steps[0].surprise: unknown field" in (failed[1].problem or "")


def test_a_trace_expecting_an_error_that_does_not_come_fails() -> None:
    doc = json.loads((TRACES / "engine-errors.json").read_text())
    case = doc["cases"][0]
    case["steps"][0]["error"] = "duplicate_event"
    from webhook_retry_policy import conformance_engine

    assert conformance_engine.run_case(case) == 'step 0: error none, expected "duplicate_event"'
