"""Before/after, side by side: this tree against an earlier revision of the
package (default: the commit before the artifact work, when the package
embedded the extracted core module and linked trapping import stubs).

    host-examples/python/bench --before [REV]

Per tree, in fresh processes (same inputs: every non-error decide vector
of tests/vectors, cycled; best of R rounds, the trees' rounds interleaved):
``step`` (evaluate -> in-memory store-apply -> settle; called ``decide``
before), the imports-driven ``decide`` (ONE call; not available before:
its imports trapped), and the cold start (fresh process: import, artifact
or core module, instantiate, first decision; median of 5, module cache
warm).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BEFORE = "cb1c7b7"

PER_CALL = r"""
import json, sys, time
from pathlib import Path
import webhook_retry_policy as w
from webhook_retry_policy import conformance_json as cj
cases = []
for path in sorted(Path(sys.argv[1]).glob("*.json")):
    for case in json.loads(path.read_text())["cases"]:
        if case["op"] == "decide" and "error" not in case["expect"]:
            i = case["input"]
            cases.append((cj.policy(i["policy"]), cj.state(i["state"]), cj.outcome(i["outcome"]), i["now_ms"]))
class Fixed:
    t = 0
    def now_ms(self): return self.t
clock = Fixed()
rp = w.RetryPolicy(clock)
step = getattr(rp, "step", None) or rp.decide  # before: `decide` was evaluate -> store -> settle
has_decide = hasattr(rp, "step")
def run_step():
    for p, s, o, t in cases: step(p, s, o, t)
def run_decide():
    for p, s, o, t in cases:
        clock.t = t
        rp.decide(p, s, o)
out = {}
for name, fn in (("step", run_step), ("decide", run_decide if has_decide else None)):
    if fn is None:
        continue
    fn()
    best = float("inf")
    for _ in range(int(sys.argv[2])):
        t0 = time.perf_counter(); fn(); best = min(best, (time.perf_counter() - t0) / len(cases))
    out[name] = best * 1e6
print(json.dumps(out))
"""

COLD = r"""
import time; t0 = time.perf_counter()
import webhook_retry_policy as w
p = w.Policy(w.Backoff(2000, 2.0, 300000, 'full'), 900000, 16, w.Budget(0.1, 60000, 50, True))
rp = w.RetryPolicy()
s = w.DeliveryState('evt_1', 'ep_42', 1, 13, rp.clock.now_ms())
rp.decide(p, s, w.HttpResponse(503))  # before: evaluate -> store -> settle; after: ONE call through the imports
print((time.perf_counter() - t0) * 1000)
"""


def export_before(rev: str, into: Path) -> Path:
    """``rev``'s package in ``into`` with the core module it expects, extracted by witgen."""
    archive = subprocess.run(["git", "archive", rev, "host-examples/python/src"], cwd=ROOT, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    src = into / "host-examples" / "python" / "src"
    core = src / "webhook_retry_policy" / "retry_policy.core.wasm"
    subprocess.run(["cargo", "run", "-q", "-p", "witgen", "--", "core", str(ROOT / "dist" / "retry_policy.wasm"),
                    str(core)], cwd=ROOT, check=True)
    return src


def main(argv: list[str]) -> None:
    rev = argv[0] if argv else BEFORE
    vectors, rounds = ROOT / "tests" / "vectors", 7
    with tempfile.TemporaryDirectory() as tmp:
        trees = {f"before ({rev})": export_before(rev, Path(tmp)), "after (this tree)": ROOT / "host-examples/python/src"}
        env = {name: dict(os.environ, PYTHONPATH=str(src)) for name, src in trees.items()}
        for e in env.values():
            e.pop("PYTHONDONTWRITEBYTECODE", None)
            e.pop("RETRY_POLICY_ARTIFACT", None)
        per_call: dict[str, dict[str, float]] = {name: {} for name in trees}
        cold: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(3):  # interleaved: both trees see the same machine load
            for name in trees:
                got = json.loads(subprocess.run([sys.executable, "-c", PER_CALL, str(vectors), str(rounds)], env=env[name],
                                                capture_output=True, text=True, check=True).stdout)
                for k, v in got.items():
                    per_call[name][k] = min(v, per_call[name].get(k, float("inf")))
        for name in trees:
            subprocess.run([sys.executable, "-c", COLD], env=env[name], capture_output=True, check=True)  # warm caches
        for _ in range(5):
            for name in trees:
                out = subprocess.run([sys.executable, "-c", COLD], env=env[name], capture_output=True, text=True, check=True)
                cold[name].append(float(out.stdout.split()[-1]))
    names = list(trees)
    print(f"| µs per call / ms | {' | '.join(names)} |\n|---|---:|---:|")
    rows = [("step: evaluate -> in-memory store -> settle (µs)", "step"),
            ("decide: ONE call, clock + store through the imports (µs)", "decide")]
    for label, key in rows:
        cells = [f"{per_call[n][key]:.2f}" if key in per_call[n] else "n/a (imports trapped)" for n in names]
        print(f"| {label} | {' | '.join(cells)} |")
    print(f"| cold start, fresh process to first decision, median of 5 (ms) | "
          f"{' | '.join(f'{statistics.median(cold[n]):.1f}' for n in names)} |")


if __name__ == "__main__":
    main(sys.argv[1:])
