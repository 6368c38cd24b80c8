// host-examples/node/bench (npm run bench): one table, every ratio measured
// in this one run on this machine:
//
//   * the package's calls through the ONE artifact (the component's main
//     module through jco's glue): the step (evaluate + settle, goal <= 3 us,
//     issue 26; before and after side by side: step-before-after.mjs),
//     the imports-driven decide (one call), RetryPolicy's evaluate + settle,
//     decide and step, retryAfter (goal <= 1 us); jco's glue alone (the
//     same call with arguments already in jco's shape) shows what the
//     package's own conversion costs; against the design note's path in
//     plain JS, the validated plain-JS port, and one loopback POST;
//   * every input shape the types allow against the canonical one;
//   * the delivery engine: one delivered event through DeliveryEngine
//     (memory_store: an admit batch + a result batch), its crossings
//     counted, beside jco's glue alone (engine.mjs);
//   * cold start in fresh processes (import + load the artifact + the first
//     step; goal <= 5 ms), with the code cache and without it;
//   * the dispatcher row (dispatcher-share.mjs): the example dispatcher
//     delivering to a loopback endpoint as fast as it can, and the policy's
//     share of its process's CPU time (goal <= 2%);
//   * the artifact + glue size, raw and gzipped, and the hand-kept glue
//     lines now and before the component build (git: the commit before it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { evaluate, settle, decide, retryAfter, RetryPolicy, ManualClock, InMemoryBudgetStore } from '@webhook/retry-policy';
import { POLICY, DOCUMENT, workload, nsPerCall, nsPerAsyncCall } from './workload.mjs';
import { loopbackPostNs } from './loopback.mjs';
import { engineTable } from './engine.mjs';

const require = createRequire(import.meta.url);
const designNote = require('./baseline-design-note.cjs');
const ported = require('./baseline-decide.cjs');
const lower = require('../lib/lower.cjs');
const { artifact } = require('../lib/artifact/current.cjs');
const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(here, '..');
const root = path.resolve(pkg, '../..');

const cases = workload();
// Built as a dispatcher builds its states (a literal; V8 gives `{...state, class}`
// copies slow property access, for any code that reads them).
const classed = cases.map((c) => {
  const s = c.state;
  const state = { class: 'bench', event_id: s.event_id, endpoint_id: s.endpoint_id, attempt: s.attempt, max_attempts: s.max_attempts, first_attempted_at_ms: s.first_attempted_at_ms, credentials_refreshed: s.credentials_refreshed };
  return { ...c, state };
});
const clock = new ManualClock(1_700_000_000_000);
const rp = new RetryPolicy(DOCUMENT, { clock });
const store = new InMemoryBudgetStore();
const imports = { store, clock };
const plainStep = (c) => {
  const s = evaluate(POLICY, c.state, c.outcome, c.nowMs);
  return s.decision ?? settle(POLICY, c.state, c.outcome, c.nowMs, c.reply).decision;
};
const rpStep = (c) => {
  const s = rp.evaluate(c.state, c.outcome, c.nowMs);
  return s.decision ?? rp.settle(c.state, c.outcome, c.nowMs, c.reply).decision;
};
// jco's glue alone: the same evaluate with its arguments converted once, beforehand.
const jcoCases = cases.map((c) => ({
  p: lower.policy(POLICY, 'policy'),
  s: lower.state(c.state, 'state'),
  o: lower.outcome(c.outcome, 'outcome'),
  now: BigInt(c.nowMs),
}));
const jcoApi = artifact().run((api) => api); // the primary instance's interface, for this measurement only

const rows = [];
const add = (what, ns, goal = '') => rows.push([what, ns, goal]);
add('design note in plain JS (random jitter, no validation)', nsPerCall((c) => designNote.decide(POLICY, c.state, c.outcome, c.nowMs, c.counts), cases));
add('plain-JS port, validated (benchmarks/baseline-decide.cjs)', nsPerCall((c) => ported.decide(POLICY, c.state, c.outcome, c.nowMs, c.counts), cases));
add("jco's glue alone: evaluate, arguments pre-converted", nsPerCall((c) => jcoApi.evaluate(c.p, c.s, c.o, c.now), jcoCases));
add('step: evaluate(policy, ...) + settle(policy, ...)', nsPerCall(plainStep, cases), '<= 3 us (issue 26)');
add('decide(policy, ..., {store, clock}) (one call; clock + in-memory store imports)', nsPerCall((c) => decide(POLICY, c.state, c.outcome, imports), cases));
add('RetryPolicy evaluate + settle (classed state)', nsPerCall(rpStep, classed));
add('RetryPolicy decide (one call, in-memory store)', nsPerCall((c) => rp.decide(c.state, c.outcome), classed));
add('RetryPolicy step, in-memory store (whole step, async: evaluate, store, settle)', await nsPerAsyncCall((c) => rp.step(c.state, c.outcome), classed));
add("retryAfter('120', now)", nsPerCall((c) => retryAfter('120', c.nowMs), cases), '<= 1 us');
add("RetryPolicy.retryAfter('120')", nsPerCall(() => rp.retryAfter('120'), cases), '<= 1 us');
const post = await loopbackPostNs();
add('one loopback POST, fetch (undici), keep-alive', post.fetch);
add('one loopback POST, node:http, keep-alive agent', post.http);

const noteNs = rows[0][1];
const info = artifact().info;
console.log(`node ${process.version}, artifact sha256 ${info.sha256.slice(0, 16)}... (${info.source}), ${cases.length} distinct inputs replayed, medians`);
console.log('| call | µs | vs the row above | vs design note in JS | vs one loopback POST (fetch) | goal |');
console.log('|---|---:|---:|---:|---:|---|');
rows.forEach(([what, ns, goal], i) => {
  const above = what.startsWith('  ') ? `${(ns / rows[i - 1][1]).toFixed(2)}x` : '';
  console.log(`| ${what} | ${(ns / 1000).toFixed(3)} | ${above} | ${(ns / noteNs).toFixed(1)}x | ${((100 * ns) / post.fetch).toFixed(2)}% | ${goal} |`);
});

// Every input shape the types allow, one step each (same values).
const base = { event_id: 'evt_0123456789abcdef', endpoint_id: 'ep_1', attempt: 2, max_attempts: 13, first_attempted_at_ms: 1_700_000_000_000, credentials_refreshed: false };
const counts = { current: { total: 100, retries: 3 }, previous: { total: 100, retries: 3 } };
const big = { ...base, attempt: 2n, max_attempts: 13n, first_attempted_at_ms: 1_700_000_000_000n };
const bigCounts = { current: { total: 100n, retries: 3n }, previous: { total: 100n, retries: 3n } };
const shapes = [
  ['canonical: {status: 503}', base, { status: 503 }, 1_700_000_001_000, { reserved: true, counts }],
  ['{status: 503, retry_after_ms: null}', base, { status: 503, retry_after_ms: null }, 1_700_000_001_000, { reserved: true, counts }],
  ['{status: 503, retry_after_ms: undefined}', base, { status: 503, retry_after_ms: undefined }, 1_700_000_001_000, { reserved: true, counts }],
  ['{status: 503, retry_after_ms: 1000}', base, { status: 503, retry_after_ms: 1000 }, 1_700_000_001_000, { reserved: true, counts }],
  ['bigint state, now and counts', big, { status: 503n }, 1_700_000_001_000n, { reserved: true, counts: bigCounts }],
  ['{error_kind: "connect_timeout"}', base, { error_kind: 'connect_timeout' }, 1_700_000_001_000, { reserved: true, counts }],
  ['store unavailable', base, { status: 503 }, 1_700_000_001_000, { unavailable: true }],
];
const shapeNs = shapes.map(([what, s, o, now, reply]) => [what, nsPerCall(plainStep, [{ state: s, outcome: o, nowMs: now, reply }])]);
console.log('');
console.log('| input shape (evaluate + settle) | µs | vs canonical |');
console.log('|---|---:|---:|');
for (const [what, ns] of shapeNs) console.log(`| ${what} | ${(ns / 1000).toFixed(3)} | ${(ns / shapeNs[0][1]).toFixed(2)}x |`);

// The delivery engine (docs/engine.md) through DeliveryEngine: one delivered event, its crossings (engine.mjs).
console.log('');
console.log(engineTable());

// Cold start: fresh processes, alternating with the cache (a fresh
// directory, primed by one run) and without it (WEBHOOK_RETRY_POLICY_CACHE=off).
const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wrp-bench-cache-'));
const cold = (cache) => JSON.parse(execFileSync(process.execPath, [path.join(here, 'cold-start.mjs')], { cwd: pkg, encoding: 'utf8', env: { ...process.env, WEBHOOK_RETRY_POLICY_CACHE: cache } }));
cold(cacheDir); // writes the entry
const runs = { on: [], off: [] };
for (let i = 0; i < 7; i++) {
  runs.on.push(cold(cacheDir));
  runs.off.push(cold('off'));
}
fs.rmSync(cacheDir, { recursive: true, force: true });
const med = (which, k) => runs[which].map((r) => r[k]).sort((a, b) => a - b)[3];
const coldRow = (what, k) => `| ${what} | ${med('on', k).toFixed(2)} | ${med('off', k).toFixed(2)} | ${(med('on', k) / med('off', k)).toFixed(2)}x |`;
console.log('');
console.log('| cold start, fresh process (median of 7 each, alternating) | ms, cache on | ms, cache off | on / off |');
console.log('|---|---:|---:|---:|');
console.log(coldRow("import (the package's modules; the artifact loads on first use)", 'import_ms'));
console.log(coldRow('first evaluate + settle (read + check + compile + instantiate the artifact)', 'first_step_ms'));
console.log(`${coldRow('**import to first decision** (goal <= 5 ms with the cache)', 'total_ms')}`);
console.log(coldRow('  the same, CPU time of the process (all its threads)', 'cpu_ms'));
console.log(coldRow("(node's own boot before the import, not the package's)", 'boot_ms'));

// The dispatcher row: its own fresh process (its CPU time is the dispatcher's alone).
console.log('');
process.stdout.write(execFileSync(process.execPath, [path.join(here, 'dispatcher-share.mjs')], { cwd: pkg, encoding: 'utf8' }));

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const size = (file) => {
  const bytes = fs.readFileSync(path.join(pkg, file));
  return [bytes.length, zlib.gzipSync(bytes, { level: 9 }).length];
};
const wasm = size('lib/retry_policy.wasm');
const mainModule = require('../lib/artifact/reader.cjs').readComponent(fs.readFileSync(path.join(pkg, 'lib/retry_policy.wasm'))).main;
const main = [mainModule.length, zlib.gzipSync(mainModule, { level: 9 }).length];
const glue = size('lib/component/glue.cjs');
console.log('');
console.log('| artifact | raw | gzip -9 |');
console.log('|---|---:|---:|');
console.log(`| lib/retry_policy.wasm (the component, = dist/retry_policy.wasm) | ${kib(wasm[0])} | ${kib(wasm[1])} |`);
console.log(`| its main core module (what runs) | ${kib(main[0])} | ${kib(main[1])} |`);
console.log(`| lib/component/glue.cjs (jco, generated) | ${kib(glue[0])} | ${kib(glue[1])} |`);
console.log(`| component + glue | ${kib(wasm[0] + glue[0])} | ${kib(wasm[1] + glue[1])} |`);

// Hand-kept glue: the code between the public API and the wasm (not the
// dispatcher features: stores, signing, reload). Before: the wasm-bindgen
// build at BEFORE (its JS glue and the wasm/npm Rust crate).
const BEFORE = 'cb1c7b7';
const GLUE_NOW = ['lib/artifact/code-cache.cjs', 'lib/artifact/current.cjs', 'lib/artifact/instance.cjs', 'lib/artifact/load.cjs', 'lib/artifact/reader.cjs', 'lib/call.cjs', 'lib/document.cjs', 'lib/errors.cjs', 'lib/lower.cjs', 'lib/ops.cjs', 'lib/read-step.cjs', 'lib/snapshot.cjs', 'lib/constants.cjs'];
const GLUE_BEFORE = ['host-examples/node/lib/compiled.cjs', 'host-examples/node/lib/errors.cjs', 'host-examples/node/lib/fast.cjs', 'host-examples/node/lib/native.cjs', 'host-examples/node/lib/ops.cjs', 'host-examples/node/lib/snapshot.cjs'];
const count = (text) => text.split('\n').length - 1;
const now = GLUE_NOW.reduce((n, f) => n + count(fs.readFileSync(path.join(pkg, f), 'utf8')), 0);
let before = 'git not available';
try {
  const show = (f) => execFileSync('git', ['show', `${BEFORE}:${f}`], { cwd: root, encoding: 'utf8' });
  const js = GLUE_BEFORE.reduce((n, f) => n + count(show(f)), 0);
  const rsFiles = execFileSync('git', ['ls-tree', '--name-only', `${BEFORE}`, 'wasm/npm/src/'], { cwd: root, encoding: 'utf8' }).trim().split('\n');
  const rs = rsFiles.reduce((n, f) => n + count(show(f)), 0);
  before = `${js} JS (${GLUE_BEFORE.length} files) + ${rs} Rust (wasm/npm/src) = ${js + rs}`;
} catch {
  // a tarball without history
}
console.log('');
console.log(`hand-kept glue lines: now ${now} JS (${GLUE_NOW.length} files; lib/component/glue.cjs is generated); before (${BEFORE}, wasm-bindgen): ${before}`);
