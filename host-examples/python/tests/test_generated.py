"""The generated glue (``_generated/``: types, ABI, adapter) is exactly what
``witgen python`` emits from ``wit/`` today, and every generated file names
its regeneration command."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent.parent
ROOT = HERE.parent.parent
GENERATED = HERE / "src" / "webhook_retry_policy" / "_generated"


def test_every_generated_file_is_marked_generated_with_its_regeneration_command():
    files = sorted(GENERATED.glob("*.*"))
    assert {f.name for f in files} >= {"__init__.py", "types.py", "abi.py", "adapter.wat"}
    for f in files:
        head = f.read_text(encoding="utf-8").splitlines()[:2]
        assert "GENERATED - DO NOT EDIT" in head[0] and "witgen -- python" in head[1], f.name


def test_the_generated_files_are_what_witgen_emits_from_the_wit_today():
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("cargo is not installed: cannot run tools/witgen to check the generated files")
    out = subprocess.run([cargo, "run", "-q", "-p", "witgen", "--", "check", "python", str(GENERATED)],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, (
        f"witgen check python failed (exit {out.returncode}); regenerate with "
        f"`cargo run -q -p witgen -- python {GENERATED.relative_to(ROOT)}`:\n{out.stderr[-3000:]}"
    )


def test_the_shipped_core_module_is_the_one_witgen_extracts_from_the_component(tmp_path):
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("cargo is not installed: cannot run witgen core")
    out = subprocess.run([cargo, "run", "-q", "-p", "witgen", "--", "core", str(ROOT / "dist" / "retry_policy.wasm"),
                          str(tmp_path / "core.wasm")], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    assert (tmp_path / "core.wasm").read_bytes() == (HERE / "src" / "webhook_retry_policy" / "retry_policy.core.wasm").read_bytes()
