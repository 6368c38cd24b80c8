"""A git or pip install of host-examples/python carries its data files: the
sdist built from the files git tracks (what `pip install git+...` and a
source checkout see, not this working tree's untracked copies), and the
wheel built from that sdist, hold the artifact copy, fleet/budget.lua,
fleet/destinations.json and the other package data; the committed copies
are the fleet's current files."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1]
ROOT = HERE.parents[1]
PKG = "webhook_retry_policy"
DATA = ("retry_policy.wasm", "budget.lua", "destinations.json", "py.typed", "_generated/adapter.wat",
        "dispatcher/policy.example.toml")
FLEET_COPIES = {"budget.lua": ROOT / "fleet" / "budget.lua", "destinations.json": ROOT / "fleet" / "destinations.json"}


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> tuple[Path, Path]:
    """(sdist, wheel built from that sdist), both from a tree of git-tracked files only."""
    tree = tmp_path_factory.mktemp("tracked")
    files = subprocess.run(["git", "ls-files", "-z", "."], cwd=HERE, capture_output=True, check=True).stdout
    archive = subprocess.run(["tar", "--null", "-cf", "-", "-T", "-"], cwd=HERE, input=files, capture_output=True, check=True)
    subprocess.run(["tar", "-xf", "-"], cwd=tree, input=archive.stdout, check=True)
    out = tmp_path_factory.mktemp("dist")
    code = "import sys; from setuptools import build_meta as b; print(b.build_sdist(sys.argv[1]))"
    name = subprocess.run([sys.executable, "-c", code, str(out)], cwd=tree, capture_output=True, text=True, check=True)
    sdist = out / name.stdout.strip().splitlines()[-1]
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check",
                           "-w", str(out), str(sdist)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (wheel,) = out.glob("webhook_retry_policy-*.whl")
    return sdist, wheel


def test_the_sdist_from_git_tracked_files_holds_every_data_file(builds):
    sdist, _ = builds
    with tarfile.open(sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
        for f in DATA:
            assert f"src/{PKG}/{f}" in names, f"{f} is not in the sdist"
        member = t.extractfile(f"{sdist.name.removesuffix('.tar.gz')}/src/{PKG}/budget.lua")
        assert member is not None and member.read() == FLEET_COPIES["budget.lua"].read_bytes()


def test_the_wheel_built_from_that_sdist_holds_them_byte_for_byte(builds):
    _, wheel = builds
    z = zipfile.ZipFile(wheel)
    names = set(z.namelist())
    for f in DATA:
        assert f"{PKG}/{f}" in names, f"{f} is not in the wheel"
    assert z.read(f"{PKG}/retry_policy.wasm") == (HERE / "src" / PKG / "retry_policy.wasm").read_bytes()
    for f, fleet in FLEET_COPIES.items():
        assert z.read(f"{PKG}/{f}") == fleet.read_bytes(), f"{f} in the wheel is not fleet/{f}"


def test_the_committed_copies_of_fleet_files_are_current():
    def at_head(path: str) -> bytes:
        return subprocess.run(["git", "show", f"HEAD:{path}"], cwd=ROOT, capture_output=True, check=True).stdout

    for f in FLEET_COPIES:
        assert at_head(f"host-examples/python/src/{PKG}/{f}") == at_head(f"fleet/{f}"), \
            f"src/{PKG}/{f} is stale: run host-examples/python/setup and commit it"
