"""The transport kinds' constants (transport_kinds.py) are the fleet's table
(fleet/transport-kinds.json) and the shipped artifact's classify_error
agrees with every class; nothing else in the package spells a kind; a
misspelt constant is a mypy error."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from webhook_retry_policy.transport_kinds import ALL_KINDS, KIND_CLASS, TransportKind, zero_counts

HERE = Path(__file__).resolve().parents[1]
SRC = HERE / "src"
TABLE = Path(__file__).resolve().parents[3] / "fleet" / "transport-kinds.json"


def _table() -> list[tuple[str, str]]:
    doc = json.loads(TABLE.read_text(encoding="utf-8"))
    return [(k["kind"], k["class"]) for k in doc["kinds"]]


def test_the_constants_are_the_fleet_table_kind_by_kind_class_by_class_in_order():
    assert [(k.value, KIND_CLASS[k]) for k in ALL_KINDS] == _table()
    assert set(KIND_CLASS) == set(TransportKind)
    assert list(zero_counts()) == [kind for kind, _ in _table()] and set(zero_counts().values()) == {0}


def test_the_shipped_artifacts_classify_error_gives_every_kind_the_tables_class():
    # a fresh process on the package's own artifact copy (no RETRY_POLICY_ARTIFACT override)
    code = ("import json, sys, webhook_retry_policy as w; rp = w.RetryPolicy();"
            "print(json.dumps([rp.artifact_info().source, {k: rp.classify_error(k).value for k in json.loads(sys.argv[1])}]))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RETRY_POLICY_ARTIFACT")}
    env["PYTHONPATH"] = str(SRC)
    kinds = [kind for kind, _ in _table()]
    out = subprocess.run([sys.executable, "-c", code, json.dumps(kinds)], env=env, capture_output=True, text=True, check=True)
    source, classes = json.loads(out.stdout)
    assert source == "embedded"
    assert classes == dict(_table())


def test_no_module_but_transport_kinds_spells_a_kind_as_a_string():
    alternatives = "|".join(k.value for k in TransportKind)
    spelled = re.compile("[\"'](" + alternatives + ")[\"']")
    offenders = []
    for path in (SRC / "webhook_retry_policy").rglob("*.py"):
        if path.name == "transport_kinds.py" or "_generated" in path.parts:
            continue
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if spelled.search(line):
                offenders.append(f"{path.relative_to(SRC)}:{no}: {line.strip()}")
    assert offenders == []


def test_mypy_rejects_a_misspelt_kind(tmp_path):
    bad = tmp_path / "misspelt.py"
    bad.write_text("from webhook_retry_policy.transport_kinds import TransportKind\n"
                   "kind: TransportKind = TransportKind.CONECT_ERROR\n")
    env = dict(os.environ, MYPYPATH=str(SRC))
    out = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent", str(bad)],
                         env=env, capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    assert 'has no attribute "CONECT_ERROR"' in out.stdout
