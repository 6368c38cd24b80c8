#!/usr/bin/env python3
"""Writes tests/vectors/format3-*.json: the format 3 (endpoint health)
vectors of docs/health.md section 7.

Regenerate (from the repository root; Python 3.9+, no packages):

    python3 tests/vectors-health/generate.py

Every expectation is computed by model.py, an independent model of
docs/health.md written from the text (no code shared with policy-core), and
the key cases are first checked against values computed by hand
(`fixtures.hand`; the arithmetic is in the comments of cases_*.py).
cases_draft4.py pins what draft 4 of the text settles (names `draft 4: ...`). The vectors need only a JSON
parser. Runner: policy-core/tests/health_vectors.rs (rejects unknown
fields, prints the failing case's name).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cases_gate_settle import gates, pacers, settles  # noqa: E402
from cases_section_store import documents, store  # noqa: E402
import cases_draft4 as d4  # noqa: E402

HERE = Path(__file__).resolve().parent
REGEN = "python3 tests/vectors-health/generate.py"


def write(suite: str, cases: list[dict[str, Any]]) -> None:
    names = [c["name"] for c in cases]
    assert len(set(names)) == len(names), f"{suite}: case names are unique"
    doc = {"format": "webhook-retry-policy/health-vectors 1", "suite": suite, "spec": "docs/health.md",
           "regenerate": REGEN, "cases": cases}
    (HERE.parent / "vectors" / f"{suite}.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"{suite}.json: {len(cases)} cases")


if __name__ == "__main__":
    write("format3-documents", documents() + d4.documents())
    write("format3-store", store() + d4.store())
    write("format3-gate", gates() + d4.gates())
    write("format3-settle", settles() + d4.settles())
    write("format3-pacer", pacers() + d4.pacers())
