"""Every vector case (tests/vectors, or --vectors DIR; formats 1 and 2)
through this host's public package, and the conformance executable's
contract: one summary line, failing cases named, broken vectors refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from webhook_retry_policy.conformance import Runner

HERE = Path(__file__).resolve().parent.parent


def _cases(directory: Path):
    for path in sorted(directory.glob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            yield pytest.param(case, id=f"{path.stem}:{case.get('name')}")


def pytest_generate_tests(metafunc):
    if "vector_case" in metafunc.fixturenames:
        chosen = metafunc.config.getoption("--vectors")
        directory = Path(chosen) if chosen else HERE.parent.parent / "tests" / "vectors"
        metafunc.parametrize("vector_case", list(_cases(directory)))


@pytest.fixture(scope="module")
def runner():
    return Runner()


def test_the_vector_case_passes(runner, vector_case):
    assert runner.run_case(vector_case) is None


def test_the_conformance_executable_prints_one_summary_line(vectors_dir):
    out = subprocess.run([str(HERE / "conformance"), str(vectors_dir)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    last = out.stdout.strip().splitlines()[-1]
    assert last.startswith("python: ") and last.endswith(" passed, 0 failed")


def test_the_conformance_executable_fails_on_a_wrong_expectation_and_a_broken_vector(tmp_path, vectors_dir):
    cases = json.loads((vectors_dir / "step.json").read_text())["cases"][:3]
    cases[0]["expect"] = {"decision": None, "store": None}
    cases[1]["op"] = "deliver"
    cases[2]["input"]["surprise"] = True
    (tmp_path / "broken.json").write_text(json.dumps({"format": 2, "suite": "broken", "cases": cases}))
    out = subprocess.run([str(HERE / "conformance"), str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 1
    lines = out.stdout.strip().splitlines()
    assert lines[-1] == "python: 0 passed, 3 failed"
    assert any("unknown op" in line for line in lines) and any("unknown field" in line for line in lines)
    assert all(line.startswith("FAIL broken.json: ") for line in lines[:-1])


def test_the_conformance_module_rejects_an_empty_directory(tmp_path):
    out = subprocess.run([sys.executable, "-m", "webhook_retry_policy.conformance", str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 1
