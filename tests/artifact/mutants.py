"""Components built from this tree's sources with one line changed: real
artifacts that load everywhere and answer differently. Used by
tests/artifact/mutant (408 made terminal: every host fails the same vector
cases) and tests/fleet/test_rollout.py (Retry-After read as 1001 ms a
second: every host's self-test refuses it). Builds under
target/artifact-mutant/ (one cargo target for all of them: a rebuild is
incremental)."""
import os
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORK = ROOT / "target" / "artifact-mutant"
CRATES = ["policy-core", "wasm/alloc-classes", "wasm/component", "wit", "scripts/finish-component.py"]


def build(name: str, path: str, original: str, mutated: str) -> pathlib.Path:
    """The component with `original` replaced by `mutated` in `path` (a
    file under policy-core), at target/artifact-mutant/<name>.wasm."""
    src = WORK / ("src" if name == "mutant" else f"src-{name}")
    src.mkdir(parents=True, exist_ok=True)
    for c in CRATES:
        dst = src / c
        if dst.is_dir():
            shutil.rmtree(dst)
        dst.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if (ROOT / c).is_dir() else shutil.copy)(ROOT / c, dst)
    manifest = (ROOT / "Cargo.toml").read_text()
    keep = manifest[manifest.index("[workspace.package]"):]
    (src / "Cargo.toml").write_text(
        '[workspace]\nresolver = "2"\nmembers = ["policy-core", "wasm/alloc-classes", "wasm/component"]\n\n' + keep)
    shutil.copy(ROOT / "Cargo.lock", src / "Cargo.lock")
    target = src / path
    text = target.read_text()
    if original not in text:
        sys.exit(f"mutant {name}: {target} no longer has the line this test changes: {original!r}")
    target.write_text(text.replace(original, mutated))
    subprocess.run(["git", "init", "-q"], cwd=src, check=True)
    subprocess.run(["git", "add", "-A"], cwd=src, check=True)
    flags = subprocess.run([str(ROOT / "scripts/component-rustflags")], check=True, capture_output=True, text=True).stdout
    env = dict(os.environ, CARGO_TARGET_DIR=str(WORK / "target"), RUSTFLAGS=flags)
    subprocess.run(["cargo", "build", "-q", "-p", "retry-policy-component", "--target", "wasm32-wasip2",
                    "--profile", "wasm"], cwd=src, env=env, check=True)
    out = WORK / f"{name}.wasm"
    subprocess.run([sys.executable, "scripts/finish-component.py",
                    str(WORK / "target/wasm32-wasip2/wasm/retry_policy_component.wasm"), str(out)],
                   cwd=src, check=True)
    return out
