"""Every case of tests/vectors-artifact/artifact.json (its ``about`` says how
a case runs): the file made in a temporary directory, the environment set,
the artifact loaded, the outcome compared. Each case is its own test, named
by the case."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from webhook_retry_policy import loader
from webhook_retry_policy.artifact import ARTIFACT_ENV, MAX_ARTIFACT_BYTES, SHA256_ENV, load_artifact
from webhook_retry_policy.errors import ArtifactError

_DOC = json.loads((Path(__file__).resolve().parents[3] / "tests" / "vectors-artifact" / "artifact.json")
                  .read_text("utf-8"))
_CASE_FIELDS = {"name", "file", "via", "env", "pin", "expect", "source"}
_FILE_FIELDS = {"shipped": {"kind"}, "shipped_prefix": {"kind", "bytes"}, "zeros": {"kind", "bytes"},
                "sparse": {"kind", "bytes"}, "text": {"kind", "text"}, "missing": {"kind"}, "directory": {"kind"},
                "device": {"kind", "path"}, "fifo": {"kind"}}


def test_the_vectors_have_only_known_fields_and_this_hosts_cap():
    assert set(_DOC) <= {"about", "cap_bytes", "cases"}, set(_DOC)
    assert _DOC["cap_bytes"] == MAX_ARTIFACT_BYTES
    assert len(_DOC["cases"]) >= 40
    for case in _DOC["cases"]:
        assert set(case) <= _CASE_FIELDS, f"{case.get('name')}: unknown fields {set(case) - _CASE_FIELDS}"
        kind = case.get("file", {"kind": "shipped"})["kind"]
        assert kind in _FILE_FIELDS, f"{case['name']}: unknown kind {kind}"
        assert set(case.get("file", {"kind": 1})) <= _FILE_FIELDS[kind], f"{case['name']}: unknown file fields"
        assert set(case.get("env", {})) <= {ARTIFACT_ENV, SHA256_ENV}, f"{case['name']}: unknown env"


def _make(spec: dict[str, Any], path: Path) -> tuple[str, bytes | None, subprocess.Popen[bytes] | None]:
    """The file ``spec`` describes, at ``path``: (its path, its bytes or None, the fifo's watchdog)."""
    kind = spec["kind"]
    data: bytes | None = None
    if kind == "shipped":
        data = loader.package_data("retry_policy.wasm")
    elif kind == "shipped_prefix":
        data = loader.package_data("retry_policy.wasm")[:spec["bytes"]]
    elif kind == "zeros":
        data = bytes(spec["bytes"])
    elif kind == "text":
        data = spec["text"].encode("utf-8")
    elif kind == "sparse":
        with open(path, "wb") as f:
            f.truncate(spec["bytes"])
    elif kind == "directory":
        path.mkdir()
    elif kind == "device":
        return spec["path"], None, None
    elif kind == "fifo":
        os.mkfifo(path)
        # After 5 s, open it for writing and close it: a loader blocked on it then reads an empty file.
        return str(path), None, subprocess.Popen(["sh", "-c", 'sleep 5; : > "$0"', str(path)])
    if data is not None:
        path.write_bytes(data)
    return str(path), data, None


def _subst(text: str, path: str | None, data: bytes | None) -> str:
    if "{path}" in text:
        assert path is not None, "{path} without a file"
        text = text.replace("{path}", path)
    if "{" in text and "sha256}" in text.lower():
        assert data is not None, "a digest of a file without bytes"
        digest = hashlib.sha256(data).hexdigest()
        text = (text.replace("{sha256}", digest).replace("{SHA256}", digest.upper())
                .replace("{Sha256}", digest[:32].upper() + digest[32:]))
    return text


@pytest.mark.parametrize("case", _DOC["cases"], ids=[c["name"] for c in _DOC["cases"]])
def test_the_artifact_vector(case, tmp_path, monkeypatch):
    path, data, watchdog = (None, None, None) if "file" not in case else _make(case["file"], tmp_path / "artifact.wasm")
    monkeypatch.delenv(ARTIFACT_ENV, raising=False)
    monkeypatch.delenv(SHA256_ENV, raising=False)
    for key, value in case.get("env", {}).items():
        monkeypatch.setenv(key, _subst(value, path, data))
    pin = _subst(case["pin"], path, data) if "pin" in case else None
    source: str | bytes | None = {"path": path, "bytes": data, "default": None}[case["via"]]
    assert case["via"] == "default" or source is not None, f"{case['name']}: via {case['via']} does not fit the file"
    try:
        loaded = load_artifact(source, pin)
        outcome, detail = "ok", ""
    except ArtifactError as e:
        outcome, detail = e.code, f" ({e})"
    finally:
        if watchdog is not None:
            watchdog.kill()
            watchdog.wait()
    assert outcome == case["expect"], f"{case['name']}: expected {case['expect']}, got {outcome}{detail}"
    if outcome == "ok" and "source" in case:
        assert loaded.info.source == {"path": path, "bytes": "bytes", "embedded": "embedded"}[case["source"]], \
            f"{case['name']}: source {loaded.info.source}"
