"""Budget window rollovers: no reset spike with the sliding estimate.

Short budget windows (400 ms) and a steady storm on a 503 endpoint, with
the shared Redis budget. The endpoint logs every request (Unix ms and
attempt number), so the retry share right after each boundary can be set
against the ratio. Fixed windows hand the endpoint a fresh sample floor at
every boundary — the sawtooth the design note warns about; the sliding
estimate weights the previous bucket and shows no spike.
"""

from __future__ import annotations

from fleetlib import Endpoints, assert_nothing_lost, start_replica, write_policy

WINDOW_MS = 400
HEAD_MS = 80  # the first 20% of each budget window
RATIO = 0.1


def head_shares(log: list[dict]) -> list[float]:
    """Retry share of the requests in the head of each full budget window."""
    buckets: dict[int, list[int]] = {}
    for x in log:
        if x["t_ms"] % WINDOW_MS < HEAD_MS:
            b = buckets.setdefault(x["t_ms"] // WINDOW_MS, [0, 0])
            b[0] += 1
            b[1] += x["attempt"] > 1
    keys = sorted(buckets)[1:-1]  # the first window has no history; the last may be cut short
    return [buckets[k][1] / buckets[k][0] for k in keys if buckets[k][0] >= 10]


def run(tmp_path, redis_url: str, sliding: bool, endpoint_id: str) -> list[float]:
    policy = write_policy(tmp_path / f"policy-{sliding}.json", ratio=RATIO, min_sample=30, sliding=sliding,
                          budget_window_ms=WINDOW_MS, window_ms=3000)
    with Endpoints(log=True, broken=503) as eps:
        rep = start_replica("rust", target=eps.urls["broken"], endpoint_id=endpoint_id, events=1200, policy=policy,
                            redis=redis_url, concurrency=4, extra=("--rate", "400"))
        s = rep.result()
        log = eps.log("broken")
    assert_nothing_lost(s)
    return head_shares(log)


def test_fixed_windows_spike_at_every_rollover_and_the_sliding_estimate_does_not(tmp_path, redis_db, rust_replica):
    fixed = run(tmp_path, redis_db.url, False, "ep-fixed")
    sliding = run(tmp_path, redis_db.url, True, "ep-sliding")
    print(f"retry share in the first {HEAD_MS} ms of each {WINDOW_MS} ms window:")
    print(f"  fixed:   {[round(x, 2) for x in fixed]}")
    print(f"  sliding: {[round(x, 2) for x in sliding]}")
    assert len(fixed) >= 4 and len(sliding) >= 4, "too few windows observed"
    # Fixed: a fresh floor at (nearly) every boundary.
    spikes = [x for x in fixed if x > 2.5 * RATIO]
    assert len(spikes) >= len(fixed) - 1, f"fixed windows should spike at every rollover: {fixed}"
    # Sliding: the head of a window looks like the rest of it.
    assert max(sliding) <= 2 * RATIO, f"the sliding estimate spiked at a rollover: {sliding}"
