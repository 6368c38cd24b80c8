"""Every language's replica runs (REPLICA contract): it delivers two events
to a healthy loopback endpoint and prints its one summary line, within a
bounded time. A replica that cannot run yet fails here, naming the
language; the fleet tests that need it are skipped with a pointer here, so
the languages that do run are still measured."""

from __future__ import annotations

import pytest

import fleetlib


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_the_replica_runs(lang):
    why = fleetlib.probe_replica(lang)
    assert why is None, why
