"""Every vector case (tests/vectors, or --vectors DIR; formats 1, 2 and 3)
through this host's public package, and the conformance executable's
contract: one summary line, failing cases named, broken vectors refused."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from webhook_retry_policy.conformance import Runner
from webhook_retry_policy.conformance_health import FORMAT as HEALTH_FORMAT
from webhook_retry_policy.conformance_health import same

HERE = Path(__file__).resolve().parent.parent


def _cases(directory: Path):
    for path in sorted(directory.glob("*.json")):
        doc = json.loads(path.read_text())
        health = doc.get("format") == HEALTH_FORMAT
        for case in doc["cases"]:
            yield pytest.param((health, case), id=f"{path.stem}:{case.get('name')}")


def pytest_generate_tests(metafunc):
    if "vector_case" in metafunc.fixturenames:
        chosen = metafunc.config.getoption("--vectors")
        directory = Path(chosen) if chosen else HERE.parent.parent / "tests" / "vectors"
        metafunc.parametrize("vector_case", list(_cases(directory)))


@pytest.fixture(scope="module")
def runner():
    return Runner()


def test_the_vector_case_passes(runner, vector_case):
    health, case = vector_case
    assert (runner.run_health_case(case) if health else runner.run_case(case)) is None


def _health_case(vectors_dir: Path, suite: str, op: str) -> dict:
    return next(c for c in json.loads((vectors_dir / f"format3-{suite}.json").read_text())["cases"] if c["op"] == op)


@pytest.mark.parametrize(("suite", "op"), [("gate", "gate"), ("gate", "after_probe"), ("settle", "settle"),
                                           ("settle", "settle_wake"), ("store", "apply"), ("pacer", "pace"),
                                           ("pacer", "normal_per_s"), ("documents", "parse_document")])
def test_a_format3_case_with_a_wrong_expectation_fails_naming_both_answers(vectors_dir, suite, op):
    case = _health_case(vectors_dir, suite, op)
    assert Runner().run_health_case(case) is None
    wrong = {**case, "expect": {"answer": "not this"}}
    problem = Runner().run_health_case(wrong) or ""
    assert problem.startswith('expected {"answer": "not this"}, got {'), problem


def test_a_format3_input_with_an_unknown_field_is_a_broken_vector(vectors_dir):
    case = _health_case(vectors_dir, "gate", "gate")
    problem = Runner().run_health_case({**case, "input": {**case["input"], "extra": 1}}) or ""
    assert problem == "broken vector: input.extra: unknown field"
    event = {**case["input"]["event"], "priority": 1}
    problem = Runner().run_health_case({**case, "input": {**case["input"], "event": event}}) or ""
    assert problem == "broken vector: event.priority: unknown field"


def test_format3_answers_compare_numbers_by_value_and_never_a_boolean_as_a_number():
    assert same({"a": 1, "b": [0.5, 0]}, {"b": [0.5, 0.0], "a": 1.0})
    assert not same({"a": 1, "b": [0.5, 0]}, {"a": 1, "b": [0.5, 1]})
    assert not same({"a": 1}, {"a": True}) and not same({"a": False}, {"a": 0}) and not same({"a": 1}, {"a": 1, "b": 2})


def test_the_conformance_executable_names_a_failing_format3_case(vectors_dir, tmp_path):
    doc = json.loads((vectors_dir / "format3-pacer.json").read_text())
    doc["cases"][0]["expect"]["pacer"]["tokens"] = 99.0
    (tmp_path / "format3-pacer.json").write_text(json.dumps(doc))
    out = subprocess.run([str(HERE / "conformance"), str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 1
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith(f"FAIL format3-pacer.json: {doc['cases'][0]['name']}: expected ")
    assert lines[-1] == f"python: {len(doc['cases']) - 1} passed, 1 failed"


def test_the_conformance_executable_prints_one_summary_line(vectors_dir):
    out = subprocess.run([str(HERE / "conformance"), str(vectors_dir)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    last = out.stdout.strip().splitlines()[-1]
    assert last.startswith("python: ") and last.endswith(" passed, 0 failed")
    through = [line for line in out.stderr.splitlines() if line.startswith("decide cases also run through the imports")]
    assert through and int(through[0].rsplit(" ", 1)[1]) > 0, out.stderr


def test_a_decide_case_fails_when_the_imports_driven_decide_disagrees_with_decide_with(vectors_dir, monkeypatch):
    case = next(c for c in json.loads((vectors_dir / "decide.json").read_text())["cases"]
                if c["expect"].get("retry") and c["input"]["budget_counts"] is not None)  # a retry the budget allowed
    r = Runner()
    assert r.run_case(case) is None
    monkeypatch.setattr(r.store, "call", lambda *a: (_ for _ in ()).throw(ConnectionError("down")))
    assert "decide through the imports gave" in (r.run_case(case) or "")
