"""The benchmark's pure-Python BASELINE agrees with the component on every
decide vector (so the benchmark compares like with like): the artifact's
``vector-case`` confirms the component answers each case's ``expect``, and
the baseline answers the same. The package never imports it."""

from __future__ import annotations

import sys
from pathlib import Path

from webhook_retry_policy import conformance_json as cj

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import baseline_decide  # noqa: E402
import run as bench_run  # noqa: E402


def test_the_baseline_decides_every_decide_vector_like_the_component(vectors_dir):
    cases = bench_run.load_expected(vectors_dir)
    assert len(cases) > 100
    for *args, expect in cases:
        assert cj.decision_to_json(baseline_decide.decide_with(*args)) == expect


def test_the_package_never_imports_the_baseline():
    src = Path(__file__).resolve().parent.parent / "src"
    assert not any("baseline" in p.read_text() for p in src.rglob("*.py"))
