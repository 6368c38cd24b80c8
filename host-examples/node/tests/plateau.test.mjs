// Plateau: 10^5 mixed calls (FUZZ_LONG=1: 10^6) through the one module
// instance the package runs, sampling the wasm linear memory
// (the artifact's instances' `memory`, artifact().memoryBytes()) and
// process.memoryUsage(). The wasm memory must level off: no growth over the
// last half of the calls. The mix: every step through RetryPolicy and the
// plain functions (decide through its imports), refusals, stores, documents,
// delivery engines opened, fed and closed, Retry-After,
// event ids up to 4 KiB, a refused (> 1 MiB) document every 20,000 calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import {
  RetryPolicy,
  InMemoryBudgetStore,
  DeliveryEngine,
  evaluate,
  settle,
  decide,
  loadHealthDocument,
  retryAfter,
  plan,
  classifyStatus,
  classifyError,
  storeKey,
  storeApply,
  EMPTY_HELD,
  PolicyError,
} from '@webhook/retry-policy';

const CALLS = process.env.FUZZ_LONG === '1' ? 1_000_000 : 100_000;
const SAMPLES = 20;
// The package's current artifact (same require cache): its instances' linear memory.
const { artifact } = createRequire(import.meta.url)('../lib/artifact/current.cjs');

const policy = {
  backoff: { base_ms: 1000, factor: 2, cap_ms: 300_000, jitter: 'full' },
  window_ms: 3_600_000,
  hard_cap: 20,
  budget: { ratio: 0.2, window_ms: 10_000, min_sample: 10, sliding: true },
};
const document = JSON.stringify({ version: 'plateau', classes: { c: { window_ms: 3_600_000, backoff: { base_ms: 1000, factor: 2, cap_ms: 300_000 } } } });
const HUGE_DOC = `{"classes":{"c":${' '.repeat(1 << 20)}}}`;

test(`plateau: ${CALLS} mixed calls, the wasm memory levels off`, () => {
  const store = new InMemoryBudgetStore();
  const retry = new RetryPolicy(document, { store, clock: { nowMs: () => 1_000_000 } });
  let held = EMPTY_HELD;
  const samples = [];
  const sample = (i) => {
    const m = process.memoryUsage();
    samples.push({ calls: i, wasm: artifact().memoryBytes(), rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers });
  };
  let refused = 0;
  const t0 = process.hrtime.bigint();
  sample(0);
  for (let i = 1; i <= CALLS; i++) {
    const id = i % 997 === 0 ? `evt_${'x'.repeat(4096)}` : `evt_${i}`;
    const state = { event_id: id, endpoint_id: `ep_${i % 13}`, attempt: 1 + (i % 12), max_attempts: 12, first_attempted_at_ms: 1_000_000, credentials_refreshed: false };
    const now = 1_000_000 + (i % 5000) * 1000;
    const outcome = i % 5 === 0 ? { error_kind: 'read_timeout' } : { status: [503, 429, 500, 200, 410, 401][i % 6], retry_after_ms: i % 7 === 0 ? 30_000 : null };
    try {
      switch (i % 16) {
        case 0: retry.settle({ ...state, class: 'c' }, outcome, now, { unavailable: true }); break;
        case 1: settle(policy, state, outcome, now, i % 3 ? { unavailable: true } : { reserved: true, counts: held }); break;
        case 2: decide(policy, state, outcome, { store, clock: { nowMs: () => now } }); break;
        case 3: retry.decide({ ...state, class: 'c' }, outcome); break;
        case 4: retry.evaluate({ ...state, class: 'c' }, outcome, now); break;
        case 5: evaluate(policy, state, outcome, BigInt(now)); break;
        case 6: settle(policy, state, outcome, now, { unavailable: true }); break;
        case 7: decide(policy, { ...state, attempt: 0 }, outcome, { store }); break; // refused: invalid_state
        case 8: loadHealthDocument(document); break;
        case 9: retryAfter(i % 2 ? `${i}` : 'Sun, 06 Nov 1994 08:49:37 GMT', now); break;
        case 10: {
          const request = { op: ['record', 'reserve', 'record_reserve'][i % 3], endpoint_id: `ep_${i % 13}`, window_ms: 10_000, bucket: Math.floor(now / 10_000) };
          held = storeApply(request, policy.budget, now, held).held;
          storeKey(request);
          break;
        }
        case 11: plan(policy.backoff, 3_600_000, 20); break;
        case 12: {
          if (i % 100 !== 12) evaluate(policy, { ...state, max_attempts: 101 }, outcome, now); // refused: invalid_state
          else {
            const engine = new DeliveryEngine({ document, memory_store: true });
            engine.feed([{ op: 'admit', now_ms: now, event_id: id, endpoint_id: 'p', target: 'https://example.com/', class: 'c' }]);
            engine.close();
          }
          break;
        }
        case 13: classifyStatus(i % 700); break; // refused below 100 and above 599
        case 14: classifyError(i % 2 ? 'connect_timeout' : 'nope'); break;
        case 15: {
          if (i % 20_000 === 15) new RetryPolicy(HUGE_DOC); // refused: document_too_large
          else if (i % 1000 === 15) retry.admit('c', now);
          else evaluate(policy, { ...state, attempt: -1 }, outcome, now); // refused
          break;
        }
      }
    } catch (e) {
      if (!(e instanceof PolicyError)) throw e;
      refused++;
    }
    if (i % (CALLS / SAMPLES) === 0) sample(i);
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const kib = (b) => `${Math.round(b / 1024)} KiB`;
  const mib = (b) => `${(b / 1048576).toFixed(1)} MiB`;
  console.log(`# ${CALLS} calls (${refused} refused) in ${seconds.toFixed(1)} s, ${((seconds * 1e6) / CALLS).toFixed(1)} us per call`);
  for (const s of samples) {
    console.log(`# calls ${String(s.calls).padStart(8)}: wasm ${kib(s.wasm)}, rss ${mib(s.rss)}, heapUsed ${mib(s.heapUsed)}, external ${mib(s.external)}, arrayBuffers ${mib(s.arrayBuffers)}`);
  }
  const half = samples.filter((s) => s.calls >= CALLS / 2);
  const growth = half[half.length - 1].wasm - half[0].wasm;
  assert.equal(growth, 0, `the wasm memory grew by ${growth} bytes over the last half`);
  assert.ok(refused > 0);
});
