"""The generated glue (``_generated/``: types, errors, ABI and imports,
adapter) is exactly what ``witgen python`` emits from ``wit/`` today, every
generated file names its regeneration command, and the artifact the package
ships is the one ``scripts/build-component`` built."""

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
    assert {f.name for f in files} >= {"__init__.py", "errors.py", "types.py", "abi.py", "adapter.wat"}
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


def test_the_shipped_artifact_copy_is_byte_identical_to_dist():
    dist = ROOT / "dist" / "retry_policy.wasm"
    if not dist.is_file():
        pytest.skip("dist/retry_policy.wasm is not built (scripts/build-component)")
    shipped = HERE / "src" / "webhook_retry_policy" / "retry_policy.wasm"
    assert shipped.read_bytes() == dist.read_bytes(), (
        "the package's retry_policy.wasm is stale: run scripts/build-component (it writes dist/ and the copies)")
