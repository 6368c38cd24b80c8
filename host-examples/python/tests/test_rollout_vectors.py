"""tests/vectors-rollout/rollout.json (docs/rollout.md), Wycheproof style:
every case of every group is run, a case with a field the runner does not
know fails (a new kind of case is never silently skipped), a failure names
its case, and the number of cases run per group is asserted, so a runner
that skips cannot pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from webhook_retry_policy.rollout import (
    SIGNED_MESSAGE_PREFIX,
    RolloutError,
    bucket,
    desired,
    read_record,
    read_trust,
    verify,
)

VECTORS = Path(__file__).resolve().parents[3] / "tests" / "vectors-rollout" / "rollout.json"
EXPECTED_COUNTS = {"bucket": 11, "select": 51, "trust": 8, "verify": 17}
FIELDS = {
    "bucket": {"replica_id", "bucket"},
    "select": {"name", "record", "replica_id", "expect"},
    "trust": {"name", "pem", "expect"},
    "verify": {"name", "trust", "key_id", "signature", "artifact_sha256", "expect"},
}


def _vectors() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(VECTORS.read_text("utf-8"))
    unknown = set(data) - {"about", "signed_message_prefix", *FIELDS}
    assert not unknown, f"rollout.json has groups this runner does not know: {sorted(unknown)}"
    return data


def _error_code(thunk: Any) -> str:
    try:
        thunk()
    except RolloutError as e:
        return e.code
    return "ok"


def _select(case: dict[str, Any]) -> None:
    expect = case["expect"]
    assert set(expect) in ({"desired"}, {"error"}), f"unknown expectation {sorted(expect)}"
    if "desired" in expect:
        assert desired(read_record(case["record"]), case["replica_id"]) == expect["desired"]
    else:
        assert _error_code(lambda: read_record(case["record"])) == expect["error"]


def _trust(case: dict[str, Any]) -> None:
    expect = case["expect"]
    assert set(expect) in ({"key_ids"}, {"error"}), f"unknown expectation {sorted(expect)}"
    if "key_ids" in expect:
        assert list(read_trust(case["pem"])) == expect["key_ids"]
    else:
        assert _error_code(lambda: read_trust(case["pem"])) == expect["error"]


def _verify(case: dict[str, Any]) -> None:
    trusted = read_trust(case["trust"])
    got = _error_code(lambda: verify(trusted, case["key_id"], case["signature"], case["artifact_sha256"]))
    assert got == case["expect"]


def _bucket(case: dict[str, Any]) -> None:
    assert bucket(case["replica_id"]) == case["bucket"]


RUNNERS = {"bucket": _bucket, "select": _select, "trust": _trust, "verify": _verify}


@pytest.mark.parametrize("group", sorted(RUNNERS))
def test_every_case_of_the_group_passes_and_none_is_skipped(group: str) -> None:
    cases = _vectors()[group]
    failures: list[str] = []
    ran = 0
    for i, case in enumerate(cases):
        name = case.get("name", f"{group}[{i}] replica_id={case.get('replica_id')!r}")
        unknown = set(case) - FIELDS[group]
        if unknown:
            failures.append(f"{name}: unknown fields {sorted(unknown)}")
            continue
        try:
            RUNNERS[group](case)
        except AssertionError as e:
            failures.append(f"{name}: {e}")
        except Exception as e:  # any other exception is a failure of this case, named
            failures.append(f"{name}: raised {type(e).__name__}: {e}")
        ran += 1
    assert not failures, "\n".join(failures)
    assert ran == len(cases) == EXPECTED_COUNTS[group], f"{group}: ran {ran} of {len(cases)} cases"
    print(f"rollout vectors {group}: {ran} passed")


def test_the_vectors_sign_the_prefix_this_library_signs() -> None:
    assert _vectors()["signed_message_prefix"].encode("ascii") == SIGNED_MESSAGE_PREFIX


def test_all_87_cases_are_counted() -> None:
    data = _vectors()
    assert sum(len(data[g]) for g in EXPECTED_COUNTS) == sum(EXPECTED_COUNTS.values()) == 87
