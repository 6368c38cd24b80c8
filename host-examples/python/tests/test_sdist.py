"""A git or pip install of host-examples/python carries its data files: the
committed copy of fleet/budget.lua is the
fleet's current file. That the sdist built from a clean checkout (`python
-m build`: setuptools >= 77 in an environment of its own) and the wheel
built from that sdist hold them, the artifact and the other package data is
tested by tests/install/python, which installs that wheel as the README
says."""

from __future__ import annotations

import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
ROOT = HERE.parents[1]
PKG = "webhook_retry_policy"
FLEET_COPIES = ("budget.lua",)


def test_the_committed_copies_of_fleet_files_are_current():
    def at_head(path: str) -> bytes:
        return subprocess.run(["git", "show", f"HEAD:{path}"], cwd=ROOT, capture_output=True, check=True).stdout

    for f in FLEET_COPIES:
        assert at_head(f"host-examples/python/src/{PKG}/{f}") == at_head(f"fleet/{f}"), \
            f"src/{PKG}/{f} is stale: run host-examples/python/setup and commit it"
