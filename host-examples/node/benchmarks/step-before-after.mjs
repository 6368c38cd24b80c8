// The typed step before and after (issue 26), side by side in ONE run:
// this package's lib/ and the lib/ of git revision REV (default 4344e2d,
// the build before the step was cut from 6.9 us), both on the same inputs
// (workload.mjs). Each measurement is a fresh process running one row on
// one build (two builds, or several rows, in one process disturb each
// other's JIT state: both builds measured 1.4-1.7x slower so), and the
// processes alternate (before, after, after, before, ...) so a busy machine
// weighs on both alike. Medians of the processes' medians.
//
//   node benchmarks/step-before-after.mjs [REV] [--runs N]   (N processes per build, default 4)
//
// Each build runs its own copy of the component (its lib/retry_policy.wasm,
// or for both RETRY_POLICY_ARTIFACT when set) through its own glue.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { POLICY, DOCUMENT, workload, nsPerCall, nsPerAsyncCall } from './workload.mjs';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const self = fileURLToPath(import.meta.url);
const pkg = path.resolve(here, '..');
const root = path.resolve(pkg, '../..');

/** One build's calls (lib/ under `dir`): {name: fn(input)}, and its own lowering for the jco row. */
function calls(dir) {
  const api = require(path.join(dir, 'lib/index.cjs'));
  const lower = require(path.join(dir, 'lib/lower.cjs'));
  const { artifact } = require(path.join(dir, 'lib/artifact/current.cjs'));
  const jco = artifact().run((a) => a);
  const clock = new api.ManualClock(1_700_000_000_000);
  const rp = new api.RetryPolicy(DOCUMENT, { clock });
  const imports = { store: new api.InMemoryBudgetStore(), clock };
  return {
    lowered: (c) => ({ p: lower.policy(POLICY, 'policy'), s: lower.state(c.state, 'state'), o: lower.outcome(c.outcome, 'outcome'), now: BigInt(c.nowMs) }),
    jco: (l) => jco.evaluate(l.p, l.s, l.o, l.now),
    step: (c) => api.evaluate(POLICY, c.state, c.outcome, c.nowMs).decision ?? api.settle(POLICY, c.state, c.outcome, c.nowMs, c.reply).decision,
    decide: (c) => api.decide(POLICY, c.state, c.outcome, imports),
    rpStep: (c) => rp.evaluate(c.classed, c.outcome, c.nowMs).decision ?? rp.settle(c.classed, c.outcome, c.nowMs, c.reply).decision,
    rpDecide: (c) => rp.decide(c.classed, c.outcome),
    rpAsync: (c) => rp.step(c.classed, c.outcome),
  };
}

const ROWS = [
  ['jco', "jco's glue alone: evaluate, arguments pre-converted (each build's own lowering)"],
  ['step', '**step: evaluate(policy, ...) + settle(policy, ...)** (issue 26: goal <= 3 us)'],
  ['big', '  the same, bigint state, now and counts (one input)'],
  ['decide', 'decide(policy, ..., {store, clock}) (one call; clock + in-memory store imports)'],
  ['rpStep', 'RetryPolicy evaluate + settle (classed state)'],
  ['rpDecide', 'RetryPolicy decide (one call, in-memory store)'],
  ['rpAsync', 'RetryPolicy step, in-memory store (async: evaluate, store, settle)'],
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The child: one row on the build under `dir`, its median ns as JSON on stdout. */
async function child(dir, only) {
  const build = calls(dir);
  // only what the row reads (objects built for other rows change what V8 makes of this one)
  const cases = only.startsWith('rp')
    ? workload().map((c) => {
      const s = c.state;
      return { ...c, classed: { class: 'bench', event_id: s.event_id, endpoint_id: s.endpoint_id, attempt: s.attempt, max_attempts: s.max_attempts, first_attempted_at_ms: s.first_attempted_at_ms, credentials_refreshed: s.credentials_refreshed } };
    })
    : workload();
  const big = [{
    state: { event_id: 'evt_0123456789abcdef', endpoint_id: 'ep_1', attempt: 2n, max_attempts: 13n, first_attempted_at_ms: 1_700_000_000_000n, credentials_refreshed: false },
    outcome: { status: 503n },
    nowMs: 1_700_000_001_000n,
    reply: { reserved: true, counts: { current: { total: 100n, retries: 3n }, previous: { total: 100n, retries: 3n } } },
  }];
  const inputs = { jco: only === 'jco' ? cases.map(build.lowered) : null, big };
  const f = build[only === 'big' ? 'step' : only];
  const cs = inputs[only] ?? cases;
  const ns = only === 'rpAsync' ? await nsPerAsyncCall(f, cs, { iterations: 20_000, rounds: 5 }) : nsPerCall(f, cs, { iterations: 100_000, rounds: 5 });
  process.stdout.write(JSON.stringify(ns));
}

async function parent(rev, runs) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'step-before-'));
  try {
    const tar = execFileSync('git', ['archive', rev, 'host-examples/node/lib', 'host-examples/node/package.json'], { cwd: root, maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', tmp], { input: tar });
    const dirs = { before: path.join(tmp, 'host-examples/node'), after: pkg };
    const seen = { before: {}, after: {} };
    for (let r = 0; r < runs; r++) {
      for (const [row] of ROWS) {
        for (const b of r % 2 === 0 ? ['before', 'after'] : ['after', 'before']) {
          const ns = JSON.parse(execFileSync(process.execPath, [self, '--child', dirs[b], row], { cwd: pkg, encoding: 'utf8' }));
          (seen[b][row] ??= []).push(ns);
        }
      }
    }
    const load = os.loadavg()[0].toFixed(2);
    console.log(`node ${process.version}; before: lib/ of ${rev}, after: this lib/; ${runs} processes per row and build, alternated; medians; 1-min load average ${load} on ${os.cpus().length} CPUs`);
    console.log('| call | before µs | after µs | after / before |');
    console.log('|---|---:|---:|---:|');
    for (const [row, what] of ROWS) {
      const b = median(seen.before[row]);
      const a = median(seen.after[row]);
      console.log(`| ${what} | ${(b / 1000).toFixed(3)} | ${(a / 1000).toFixed(3)} | ${(a / b).toFixed(2)}x |`);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  await child(args[1], args[2]);
} else {
  const i = args.indexOf('--runs');
  const runs = i >= 0 ? Number(args[i + 1]) : 4;
  if (!(Number.isInteger(runs) && runs > 0)) throw new Error('step-before-after: --runs takes a positive integer');
  const rest = args.filter((a, j) => !(i >= 0 && (j === i || j === i + 1)));
  await parent(rest[0] ?? '4344e2d', runs);
}
