"""Policy documents: JSON through the component's load-document, TOML read
by tomllib and passed on as JSON text; admission persists the schedule."""

from __future__ import annotations

import json

import pytest
from conftest import NOW_MS

from webhook_retry_policy import ErrorCode, Jitter, PolicyError, RetryPolicy

DOC = {
    "version": "2026-11-30",
    "classes": {
        "notification": {"window_ms": 900_000, "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300_000, "jitter": "full"}},
        "provisioning": {"window_ms": 7_200_000, "hard_cap": 32, "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300_000}},
        "ledger": {
            "window_ms": 86_400_000,
            "hard_cap": 100,
            "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 3_600_000, "jitter": "equal"},
            "budget": {"ratio": 0.2, "window_ms": 60_000, "min_sample": 20, "sliding": True},
        },
    },
}

TOML = """
version = "2026-11-30"

[classes.notification]
window_ms = 900000
backoff = { base_ms = 2000, factor = 2.0, cap_ms = 300000, jitter = "full" }

[classes.provisioning]
window_ms = 7200000
hard_cap = 32
backoff = { base_ms = 2000, factor = 2.0, cap_ms = 300000 }

[classes.ledger]
window_ms = 86400000
hard_cap = 100
backoff = { base_ms = 2000, factor = 2.0, cap_ms = 3600000, jitter = "equal" }
budget = { ratio = 0.2, window_ms = 60000, min_sample = 20, sliding = true }
"""


@pytest.fixture
def rp(clock):
    return RetryPolicy(clock)


def test_a_json_document_loads_with_defaults_filled_in_by_the_component(rp):
    doc = rp.load_document(json.dumps(DOC))
    assert sorted(ec.name for ec in doc.classes) == ["ledger", "notification", "provisioning"]
    p = rp.class_policy(doc, "provisioning")
    assert p.backoff.jitter is Jitter.FULL and p.budget.ratio == 0.1 and p.budget.sliding


def test_the_same_document_in_toml_loads_identically(rp):
    assert rp.load_document_toml(TOML) == rp.load_document(json.dumps(DOC))


def test_admission_derives_the_schedule_and_deadline_from_the_window(rp):
    doc = rp.load_document(json.dumps(DOC))
    a = rp.admit(doc, "notification")
    assert (a.first_attempted_at_ms, a.deadline_ms) == (NOW_MS, NOW_MS + 900_000)
    assert a.schedule.max_attempts == 13 and a.policy_version == "2026-11-30" and len(a.policy_hash) == 16
    assert rp.admit(doc, "ledger", now_ms=5).deadline_ms == 5 + 86_400_000


def test_an_unknown_class_is_unknown_event_class(rp):
    doc = rp.load_document(json.dumps(DOC))
    with pytest.raises(PolicyError) as e:
        rp.admit(doc, "presence")
    assert e.value.code is ErrorCode.UNKNOWN_EVENT_CLASS


@pytest.mark.parametrize(
    "text",
    ["{", "[]", '{"classes": {}}', '{"classes": {"a": {"window_ms": 1, "max_attempts": 3, "backoff": {"base_ms": 1, "factor": 2, "cap_ms": 1}}}}'],
)
def test_malformed_json_documents_are_invalid_document(rp, text):
    with pytest.raises(PolicyError) as e:
        rp.load_document(text)
    assert e.value.code is ErrorCode.INVALID_DOCUMENT


def test_semantic_errors_in_a_class_keep_their_code_and_path(rp):
    bad = json.loads(json.dumps(DOC))
    bad["classes"]["ledger"]["hard_cap"] = 0
    with pytest.raises(PolicyError) as e:
        rp.load_document(json.dumps(bad))
    assert e.value.code is ErrorCode.INVALID_HARD_CAP and e.value.field.startswith("classes.ledger")


def test_toml_that_is_not_toml_or_has_no_json_form_is_invalid_document(rp):
    for text in ["classes = [", "when = 1979-05-27T07:32:00Z\n[classes.a]\nwindow_ms = 1"]:
        with pytest.raises(PolicyError) as e:
            rp.load_document_toml(text)
        assert e.value.code is ErrorCode.INVALID_DOCUMENT


def test_files_load_by_extension(rp, tmp_path):
    (tmp_path / "p.toml").write_text(TOML)
    (tmp_path / "p.json").write_text(json.dumps(DOC))
    assert rp.load_document_file(str(tmp_path / "p.toml")) == rp.load_document_file(str(tmp_path / "p.json"))
