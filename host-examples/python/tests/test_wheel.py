"""The built wheel ships the artifact (and the generated glue, the Redis
script, the example document) and an installed copy finds them via
importlib.resources, away from the source tree."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check", "-w", str(out), str(HERE)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    (path,) = out.glob("webhook_retry_policy-*.whl")
    return path


def test_the_wheel_contains_the_component_and_its_data_files(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for f in ("retry_policy.wasm", "budget.lua", "_generated/adapter.wat", "_generated/abi.py", "py.typed",
              "dispatcher/policy.example.toml", "rollout/follower.py", "rollout/trust_file.py"):
        assert f"webhook_retry_policy/{f}" in names
    metadata = next(zipfile.ZipFile(wheel).read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    assert "Provides-Extra: rollout" not in metadata  # Ed25519 is the component's: only the tests sign
    assert [line for line in metadata.splitlines() if "cryptography" in line] == \
        ['Requires-Dist: cryptography>=42; extra == "test"']
    shipped = zipfile.ZipFile(wheel).read("webhook_retry_policy/retry_policy.wasm")
    assert shipped == (HERE / "src" / "webhook_retry_policy" / "retry_policy.wasm").read_bytes()


def test_an_installed_wheel_decides_from_its_own_copy(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--disable-pip-version-check",
                    "--target", str(target), str(wheel)], check=True, capture_output=True)
    code = (
        "import webhook_retry_policy as w, sys;"
        "assert w.__file__.startswith(sys.argv[1]), w.__file__;"
        "p = w.Policy(w.Backoff(2000, 2.0, 300000, 'full'), 900000, 16, w.Budget(0.1, 60000, 50, True));"
        "s = w.DeliveryState('evt_1', 'ep_42', 1, 13, 0);"
        "z = w.BucketCounts(0, 0);"
        "print(w.RetryPolicy().settle(p, s, w.HttpResponse(503), 100, w.Reservation(True, w.BudgetCounts(z, z))).decision,"
        " w.RetryPolicy().step(p, s, w.HttpResponse(503), 100), w.RetryPolicy().artifact_info().source)"
    )
    env = dict(os.environ, PYTHONPATH=str(target))
    env.pop("RETRY_POLICY_ARTIFACT", None)
    env.pop("RETRY_POLICY_ARTIFACT_SHA256", None)
    out = subprocess.run([sys.executable, "-c", code, str(target)], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "Retry(delay_ms=8, refresh_credentials=False) Retry(delay_ms=8, refresh_credentials=False) embedded"
