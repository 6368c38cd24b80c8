"""``admit`` runs on the compiled handle (``admit-compiled``, one component
call per event once the class is compiled) and answers exactly as 0.2's
``admit`` of the whole document: the same admission for every class of
documents built from the vectors' policies, the same error for what that
call refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webhook_retry_policy import PolicyError, RetryPolicy, instance
from webhook_retry_policy.instance import Instance
from webhook_retry_policy.types import Budget, EventClass, Policy, PolicyDocument

POLICY_JSON = Path(__file__).resolve().parents[2] / "policy.json"


@pytest.fixture
def runs(monkeypatch):
    """The names of the component calls made (Instance.run)."""
    names: list[str] = []
    real = Instance.run

    def counting(self, name, *args):
        names.append(name)
        return real(self, name, *args)

    monkeypatch.setattr(Instance, "run", counting)
    return names


def old_admit(doc, event_class, now_ms):
    """0.2's admit: the whole document, one call."""
    return instance.current().run("admit", doc, event_class, now_ms)


def answer(f, *args):
    try:
        return ("ok", f(*args))
    except PolicyError as e:
        return ("error", e.code, e.field, str(e))


def vector_policies(vectors_dir: Path) -> list[dict]:
    out: list[dict] = []
    for name in ["step.json", "random-step.json", "decide.json", "random-decide.json"]:
        for case in json.loads((vectors_dir / name).read_text())["cases"]:
            p = case["input"].get("policy")
            if p is not None and p not in out:
                out.append(p)
    return out


def test_admit_answers_as_the_whole_document_admit_for_every_class_of_documents_from_the_vectors(vectors_dir):
    rp = RetryPolicy()
    policies = vector_policies(vectors_dir)
    assert len(policies) > 20
    admitted = 0
    for n in range(0, len(policies), 4):
        chunk = policies[n:n + 4]
        text = json.dumps({"version": f"v{n}", "classes": {f"c{i}": p for i, p in enumerate(chunk)}})
        try:
            doc = rp.load_document(text)
        except PolicyError:
            continue
        for i in range(len(chunk)):
            for now_ms in [0, 1_799_126_466_327, 2**64 - 6]:
                new, old = answer(rp.admit, doc, f"c{i}", now_ms), answer(old_admit, doc, f"c{i}", now_ms)
                assert new == old, (n, i, now_ms)
                admitted += new[0] == "ok"
    assert admitted > 60


def test_an_unknown_class_an_invalid_class_a_duplicate_name_or_a_bad_time_answer_as_before():
    rp = RetryPolicy()
    doc = rp.load_document(POLICY_JSON.read_text())
    for args in [(doc, "billing", 7), (doc, "ledger", -1), (doc, "ledger", 2**64), (doc, 3, 7)]:
        new, old = answer(rp.admit, *args), answer(old_admit, *args)
        assert new[0] == "error" and new == old, args
    assert answer(rp.admit, doc, "billing", 7)[1:3] == ("unknown_event_class", "class")

    p = doc.classes[2].policy
    bad = Policy(p.backoff, p.window_ms, p.hard_cap, Budget(0.0, p.budget.window_ms, p.budget.min_sample, p.budget.sliding))
    invalid = PolicyDocument(doc.version, (*doc.classes[:2], EventClass(doc.classes[2].name, bad)))
    for event_class in ["notification", "ledger", "billing"]:
        new, old = answer(rp.admit, invalid, event_class, 7), answer(old_admit, invalid, event_class, 7)
        assert new[0] == "error" and new == old, event_class

    twice = PolicyDocument(doc.version, (*doc.classes, EventClass(doc.classes[0].name, doc.classes[2].policy)))
    assert rp.admit(twice, "notification", 7) == old_admit(twice, "notification", 7)


def test_admit_is_one_component_call_per_event_once_each_class_is_compiled(runs):
    rp = RetryPolicy()
    doc = rp.load_document(POLICY_JSON.read_text())
    runs.clear()
    for i in range(30):
        rp.admit(doc, ["notification", "provisioning", "ledger"][i % 3], i)
    assert runs.count("compile") == 3
    assert runs.count("admit-compiled") == 30 and "admit" not in runs
    assert len([r for r in runs if r != "discard"]) == 33  # discards: earlier tests' dropped handles
