"""The demo's build is a part of the full build: every unit (crate, target,
mode, features, profile) that `scripts/build-rust --demo` compiles is one
that `scripts/build-rust` compiles too, so CI's full build after
scripts/setup reuses them and wasmtime compiles once. A crate under
wasmtime resolved with other features (seen: semver's `std`, fnv's
`default`) would compile wasmtime a second time, minutes on 2 cores.

Reads cargo's unit graph (`-Z unstable-options --unit-graph`, nightly: it
plans the build and compiles nothing).

    python3 tests/repo/demo_build_units.py      exit 1 when a unit differs
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Set, Tuple

ROOT = Path(__file__).resolve().parents[2]

Unit = Tuple[str, str, Tuple[str, ...], str, Tuple[str, ...], str]


def build_args(which: str) -> List[str]:
    out = subprocess.run([str(ROOT / "scripts/build-rust"), "--args", which], check=True, capture_output=True, text=True)
    return out.stdout.splitlines()


def units(args: List[str]) -> Set[Unit]:
    cmd = ["cargo", "+nightly", "build", "--locked", "-Z", "unstable-options", "--unit-graph", *args]
    out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True)
    graph = json.loads(out.stdout)
    found: Set[Unit] = set()
    for u in graph["units"]:
        p = u["profile"]
        profile = json.dumps({k: p.get(k) for k in ("opt_level", "lto", "codegen_units", "debuginfo", "panic", "strip")}, sort_keys=True)
        found.add((u["pkg_id"], u["target"]["name"], tuple(u["target"]["kind"]), u["mode"], tuple(sorted(u["features"])), profile))
    return found


def not_reused(demo: Set[Unit], full: Set[Unit]) -> List[str]:
    """The demo's units the full build does not have, each with how the full build has that crate."""
    by_target: Dict[Tuple[str, str, str], List[Unit]] = {}
    for u in full:
        by_target.setdefault((u[0], u[1], u[3]), []).append(u)
    lines = []
    for u in sorted(demo - full):
        others = by_target.get((u[0], u[1], u[3]), [])
        lines.append(f"{u[0]} {u[1]} ({u[3]}): demo features {list(u[4])}; full build: "
                     + ("; ".join(f"features {list(o[4])}, profile {o[5]}" for o in others) or "not built"))
    return lines


def main() -> int:
    demo, full = units(build_args("demo")), units(build_args("all"))
    lines = not_reused(demo, full)
    for line in lines:
        print(f"FAIL not reused by the full build: {line}")
    print(f"demo build: {len(demo)} units, full build: {len(full)} units, {len(lines)} of the demo's not reused")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
