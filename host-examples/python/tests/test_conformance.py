"""Every vector case (tests/vectors, or --vectors DIR; formats 1, 2 and 3)
through this host's public package, and the conformance executable's
contract: one summary line, failing cases named, broken vectors refused."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from webhook_retry_policy.conformance import IN_ARTIFACT, Runner, raw_cases, raw_json
from webhook_retry_policy.conformance_engine import FORMAT as ENGINE_FORMAT
from webhook_retry_policy.conformance_health import FORMAT as HEALTH_FORMAT
from webhook_retry_policy.conformance_health import same

HERE = Path(__file__).resolve().parent.parent


def _file(path: Path):
    """``(kind, format text, cases, raw cases)`` of a vector file."""
    text = path.read_text()
    doc = json.loads(text)
    format_text, raws = raw_cases(text)
    return ("health" if doc.get("format") == HEALTH_FORMAT else "policy"), format_text, doc["cases"], raws


def _cases(directory: Path):
    """Every case of the policy and health vector files (the engine traces,
    ``engine-*.json``, run in test_delivery_engine.py)."""
    for path in sorted(directory.glob("*.json")):
        if json.loads(path.read_text()).get("format") == ENGINE_FORMAT:
            continue
        kind, format_text, cases, raws = _file(path)
        for case, raw in zip(cases, raws, strict=True):
            yield pytest.param((kind, format_text, case, raw), id=f"{path.stem}:{case.get('name')}")


def pytest_generate_tests(metafunc):
    if "vector_case" in metafunc.fixturenames:
        chosen = metafunc.config.getoption("--vectors")
        directory = Path(chosen) if chosen else HERE.parent.parent / "tests" / "vectors"
        metafunc.parametrize("vector_case", list(_cases(directory)))


@pytest.fixture(scope="module")
def runner():
    return Runner()


def test_the_vector_case_passes(runner, vector_case):
    kind, format_text, case, raw = vector_case
    assert runner.run_case_text(kind, case, format_text, raw) is None


def _case(vectors_dir: Path, name: str, op: str):
    kind, format_text, cases, raws = _file(vectors_dir / name)
    i = next(i for i, c in enumerate(cases) if c["op"] == op)
    return kind, format_text, cases[i], raws[i]


def _run(kind, format_text, case):
    """A case edited in the test: its raw form is its JSON text."""
    return Runner().run_case_text(kind, case, format_text, json.loads(json.dumps(case)))


@pytest.mark.parametrize(("name", "op"), [
    ("format3-gate.json", "gate"), ("format3-gate.json", "after_probe"), ("format3-settle.json", "settle"),
    ("format3-store.json", "apply"), ("format3-pacer.json", "pace"),
    ("format3-pacer.json", "normal_per_s"), ("format3-documents.json", "parse_document"), ("decide.json", "decide"),
    ("delay.json", "delay"), ("budget.json", "budget"), ("resume.json", "resume"), ("step.json", "evaluate"),
    ("plan.json", "plan")])
def test_a_case_with_a_wrong_expectation_fails_naming_both_answers(vectors_dir, name, op):
    kind, format_text, case, raw = _case(vectors_dir, name, op)
    assert Runner().run_case_text(kind, case, format_text, raw) is None
    problem = _run(kind, format_text, {**case, "expect": {"answer": "not this"}}) or ""
    assert problem.startswith("expected ") and "not this" in problem and "got " in problem, problem


def test_the_ops_run_inside_the_artifact_are_exactly_those_abi_1_no_longer_exports():
    assert IN_ARTIFACT["policy"] == {"delay", "budget", "decide", "resume"}
    assert "parse_document" not in IN_ARTIFACT["health"] and len(IN_ARTIFACT["health"]) == 8


def test_an_input_with_an_unknown_field_is_a_broken_vector_in_the_glue_and_in_the_artifact(vectors_dir):
    for name, op in [("format3-gate.json", "gate"), ("delay.json", "delay"), ("format3-documents.json", "parse_document"),
                     ("step.json", "evaluate")]:
        kind, format_text, case, _ = _case(vectors_dir, name, op)
        problem = _run(kind, format_text, {**case, "input": {**case["input"], "extra": 1}}) or ""
        assert "extra" in problem, (op, problem)  # a failure naming the field (format 3: as its answer)
    kind, format_text, case, _ = _case(vectors_dir, "delay.json", "delay")
    assert _run(kind, format_text, {**case, "op": "jitter"}) == "broken vector: op: unknown op 'jitter'"


def test_numbers_reach_the_artifact_spelled_as_in_the_file():
    text = '{"format": 1, "cases": [{"a": 18446744073709551615, "b": 2e3, "c": 900000.0, "d": -0, "e": [1.5E+2, "x"]}]}'
    format_text, raws = raw_cases(text)
    assert format_text == "1"
    assert raw_json(raws[0]) == '{"a":18446744073709551615,"b":2e3,"c":900000.0,"d":-0,"e":[1.5E+2,"x"]}'


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
    inside = [line for line in out.stderr.splitlines() if line.startswith("cases run inside the artifact (vector-case)")]
    assert inside and int(inside[0].rsplit(" ", 1)[1]) > 0, out.stderr
