"""The harness's down-then-healthy endpoints (``NAME=DOWN[+RA<S>]~UP@DOWN_MS``),
in both implementations: ``tests/fleet/endpoints.py`` and
``retry-policy-dispatcher endpoints`` (when built). Down from the first
POST for DOWN_MS (with ``Retry-After`` in the ``+RA`` form), then healthy
forever; ``/__stats`` reports ``up_at_ms``; every request is logged.
test_health_fleet.py reads its outage instants from here, so a wrong clock
would make every figure there wrong.
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.request

import fleetlib
import pytest
from endpoints import SpecError, parse_spec
from fleetlib import Endpoints


def post(url: str) -> tuple[int, str | None]:
    req = urllib.request.Request(url, data=b"{}", method="POST", headers={"X-Attempt": "1", "X-Event-Id": "e1"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers.get("Retry-After")
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Retry-After")


def test_the_python_spec_parser_reads_the_down_form_and_the_old_forms():
    assert parse_spec("a=503~200@5000") == ("a", {"status": 200, "latency_ms": 0, "down": (503, None, 5000)})
    assert parse_spec("a=429+RA3~200@4000@25") == ("a", {"status": 200, "latency_ms": 25, "down": (429, 3, 4000)})
    assert parse_spec("b=200:503/3@10") == ("b", {"status": 200, "latency_ms": 10, "alt_status": 503, "every": 3})
    assert parse_spec("c=410") == ("c", {"status": 410, "latency_ms": 0, "alt_status": 0, "every": 0})


@pytest.mark.parametrize("bad", ["a=503~200", "a=503~200@x", "a=503~200@-1", "a=503+3~200@10", "a=503+RA~200@10",
                                 "a=5x~200@10", "a=503~700@10", "a=503~200@1@2@3", "=200", "a"])
def test_a_malformed_spec_is_a_spec_error_naming_it(bad):
    with pytest.raises(SpecError, match=bad.replace("+", r"\+")):
        parse_spec(bad)


def impls() -> list[str]:
    return ["python"] + (["rust"] if (fleetlib.RELEASE / "retry-policy-dispatcher").exists() else [])


@pytest.mark.parametrize("impl", impls())
def test_a_down_endpoint_answers_down_from_its_first_post_then_healthy_forever(impl, monkeypatch):
    monkeypatch.setenv("FLEET_ENDPOINTS", impl)
    with Endpoints(log=True, paused="429+RA2~200@600", outage="503~200@600", ok=200) as eps:
        if impl == "rust":
            assert eps.impl == "rust", "the down form must not force the Python endpoints"
        time.sleep(0.7)  # longer than the outage: only a POST starts its clock
        assert eps.stats("paused")["up_at_ms"] is None
        t0 = int(time.time() * 1000)
        assert post(eps.urls["paused"]) == (429, "2")
        assert post(eps.urls["outage"]) == (503, None)
        st = eps.stats("paused")
        assert (st["down_status"], st["down_ms"], st["status"]) == (429, 600, 200)
        up_at = st["up_at_ms"]
        assert t0 + 600 <= up_at <= t0 + 900, (t0, st)
        assert post(eps.urls["paused"]) == (429, "2")
        time.sleep(max(0, up_at - time.time() * 1000) / 1000 + 0.05)
        for _ in range(3):
            assert post(eps.urls["paused"]) == (200, None)
        assert post(eps.urls["ok"]) == (200, None)
        assert "up_at_ms" not in eps.stats("ok")
        log = eps.log("paused")
    assert len(log) == 5 and all(x["event_id"] == "e1" and x["attempt"] == 1 for x in log), log
    assert [x["t_ms"] < up_at for x in log] == [True, True, False, False, False], (up_at, log)


@pytest.mark.parametrize("impl", impls())
def test_a_malformed_down_form_stops_the_endpoints_with_exit_2(impl):
    exe = ([str(fleetlib.RELEASE / "retry-policy-dispatcher"), "endpoints"] if impl == "rust"
           else [sys.executable, str(fleetlib.ENDPOINTS_PY)])
    r = subprocess.run(exe + ["a=503~200"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
                       check=False)
    assert r.returncode == 2 and "503~200" in r.stderr and not r.stdout.strip(), (r.returncode, r.stdout, r.stderr)
