"""Every vector case (tests/vectors, or --vectors DIR; formats 1 and 2)
through this host's public package, and the conformance executable's
contract: one summary line, failing cases named, broken vectors refused."""

from __future__ import annotations

import json
import subprocess
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
    through = [line for line in out.stderr.splitlines() if line.startswith("decide cases also run through the imports")]
    assert through and int(through[0].rsplit(" ", 1)[1]) > 0, out.stderr


def test_a_decide_case_fails_when_the_imports_driven_decide_disagrees_with_decide_with(vectors_dir, monkeypatch):
    case = next(c for c in json.loads((vectors_dir / "decide.json").read_text())["cases"]
                if c["expect"].get("retry") and c["input"]["budget_counts"] is not None)  # a retry the budget allowed
    r = Runner()
    assert r.run_case(case) is None
    monkeypatch.setattr(r.store, "call", lambda *a: (_ for _ in ()).throw(ConnectionError("down")))
    assert "decide through the imports gave" in (r.run_case(case) or "")
