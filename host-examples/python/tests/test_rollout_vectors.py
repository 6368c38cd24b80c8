"""tests/vectors-rollout/rollout.json (docs/rollout.md), Wycheproof style,
run INSIDE the artifact this host loads: each case goes to the component's
``vector-case`` with the format ``"rollout/<group>"`` and the case as JSON
text (the record reader, the canary rule, the trust file and the signature
check live in the component). Every case of every group is run, a failure
names its case, and the number of cases run per group is asserted, so a
runner that skips cannot pass; the component refuses a case with a field it
does not know (a broken vector)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from webhook_retry_policy.conformance import in_artifact

VECTORS = Path(__file__).resolve().parents[3] / "tests" / "vectors-rollout" / "rollout.json"
EXPECTED_COUNTS = {"bucket": 11, "select": 51, "trust": 8, "verify": 17}


def _vectors() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(VECTORS.read_text("utf-8"))
    unknown = set(data) - {"about", "signed_message_prefix", *EXPECTED_COUNTS}
    assert not unknown, f"rollout.json has groups this runner does not know: {sorted(unknown)}"
    return data


def _failures(group: str, cases: list[dict[str, Any]]) -> tuple[int, list[str]]:
    """(cases run, one line per failing case naming it) for ``cases`` of ``group``, each run by ``vector-case``."""
    fmt = json.dumps(f"rollout/{group}")
    failures: list[str] = []
    ran = 0
    for i, case in enumerate(cases):
        name = case.get("name", f"{group}[{i}] replica_id={case.get('replica_id')!r}")
        why = in_artifact(fmt, json.dumps(case, ensure_ascii=False))
        if why is not None:
            failures.append(f"{name}: {why}")
        ran += 1
    return ran, failures


@pytest.mark.parametrize("group", sorted(EXPECTED_COUNTS))
def test_every_case_of_the_group_passes_inside_the_artifact_and_none_is_skipped(group: str) -> None:
    cases = _vectors()[group]
    ran, failures = _failures(group, cases)
    assert not failures, "\n".join(failures)
    assert ran == len(cases) == EXPECTED_COUNTS[group], f"{group}: ran {ran} of {len(cases)} cases"
    print(f"rollout vectors {group}: {ran} passed")


def test_all_87_cases_are_counted() -> None:
    data = _vectors()
    assert sum(len(data[g]) for g in EXPECTED_COUNTS) == sum(EXPECTED_COUNTS.values()) == 87


def test_a_case_with_a_wrong_expectation_or_an_unknown_field_fails_by_its_name() -> None:
    data = _vectors()
    wrong = dict(data["bucket"][0], bucket=(data["bucket"][0]["bucket"] + 1) % 100)
    select = dict(data["select"][0], expect={"error": "rollout_record_invalid"} if "desired" in data["select"][0]["expect"]
                  else {"desired": "0" * 64})
    extra = dict(data["trust"][0], comment="a field no runner knows")
    ran, failures = _failures("bucket", [wrong])
    assert ran == 1 and len(failures) == 1 and failures[0].startswith("bucket[0] replica_id=")
    for group, case in (("select", select), ("trust", extra)):
        ran, failures = _failures(group, [case])
        assert ran == 1 and len(failures) == 1 and failures[0].startswith(f"{case['name']}: "), failures
    assert "unknown field `comment`" in failures[0]
