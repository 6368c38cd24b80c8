// host-examples/node/bench (npm run bench): one table, every ratio measured
// in this one run on this machine:
//
//   * one delivery step (evaluate + settle) and one decide through the
//     package's typed API (CompiledPolicy, RetryPolicy; the object path for
//     reference), against the design note's path in plain JS (random
//     jitter, no validation: benchmarks/baseline-design-note.cjs), the
//     validated plain-JS port (baseline-decide.cjs), and one loopback POST
//     with fetch (and node:http);
//   * every input shape the types allow against the canonical one (goal:
//     none above 2x);
//   * cold start in fresh processes (import + compile + instantiate + the
//     first step; goal <= 5 ms);
//   * the wasm + glue size, raw and gzipped, and the hand-kept glue lines.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { compilePolicy, decide, RetryPolicy, ManualClock } from '@webhook/retry-policy';
import { POLICY, DOCUMENT, workload, nsPerCall, nsPerAsyncCall } from './workload.mjs';
import { loopbackPostNs } from './loopback.mjs';

const require = createRequire(import.meta.url);
const designNote = require('./baseline-design-note.cjs');
const ported = require('./baseline-decide.cjs');
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
const compiled = compilePolicy(POLICY);
const rp = new RetryPolicy(DOCUMENT, { clock: new ManualClock(1_700_000_000_000) });
const step = (p) => (c) => {
  const s = p.evaluate(c.state, c.outcome, c.nowMs);
  return s.decision ?? p.settle(c.state, c.outcome, c.nowMs, c.reply).decision;
};

const rows = [];
const add = (what, ns) => rows.push([what, ns]);
add('design note in plain JS (random jitter, no validation)', nsPerCall((c) => designNote.decide(POLICY, c.state, c.outcome, c.nowMs, c.counts), cases));
add('plain-JS port, validated (benchmarks/baseline-decide.cjs)', nsPerCall((c) => ported.decide(POLICY, c.state, c.outcome, c.nowMs, c.counts), cases));
add('package: CompiledPolicy evaluate + settle (one step)', nsPerCall(step(compiled), cases));
add('package: CompiledPolicy decide', nsPerCall((c) => compiled.decide(c.state, c.outcome, c.nowMs, c.counts), cases));
add('package: RetryPolicy evaluate + settle (classed state)', nsPerCall(step(rp), classed));
add('package: RetryPolicy decide (classed state)', nsPerCall((c) => rp.decide(c.state, c.outcome, c.nowMs, c.counts), classed));
add('package: RetryPolicy afterAttempt, in-memory store (whole step, async)', await nsPerAsyncCall((c) => rp.afterAttempt(c.state, c.outcome), classed));
add('package: decide(policy, ...) (object path, policy decoded per call)', nsPerCall((c) => decide(POLICY, c.state, c.outcome, c.nowMs, c.counts), cases, { iterations: 20_000 }));
const post = await loopbackPostNs();
add('one loopback POST, fetch (undici), keep-alive', post.fetch);
add('one loopback POST, node:http, keep-alive agent', post.http);

const noteNs = rows[0][1];
console.log(`node ${process.version}, ${cases.length} distinct inputs replayed, medians`);
console.log('| call | µs | vs design note in JS | vs one loopback POST (fetch) |');
console.log('|---|---:|---:|---:|');
for (const [what, ns] of rows) {
  console.log(`| ${what} | ${(ns / 1000).toFixed(3)} | ${(ns / noteNs).toFixed(1)}x | ${((100 * ns) / post.fetch).toFixed(2)}% |`);
}

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
const shapeNs = shapes.map(([what, s, o, now, reply]) => [what, nsPerCall(step(compiled), [{ state: s, outcome: o, nowMs: now, reply }])]);
console.log('');
console.log('| input shape (CompiledPolicy evaluate + settle) | µs | vs canonical |');
console.log('|---|---:|---:|');
for (const [what, ns] of shapeNs) console.log(`| ${what} | ${(ns / 1000).toFixed(3)} | ${(ns / shapeNs[0][1]).toFixed(2)}x |`);

// Cold start: fresh processes.
const runs = Array.from({ length: 7 }, () => JSON.parse(execFileSync(process.execPath, [path.join(here, 'cold-start.mjs')], { cwd: pkg, encoding: 'utf8' })));
const med = (k) => runs.map((r) => r[k]).sort((a, b) => a - b)[3];
console.log('');
console.log('| cold start, fresh process (median of 7) | ms |');
console.log('|---|---:|');
console.log(`| import (read + compile + instantiate the wasm) | ${med('import_ms').toFixed(2)} |`);
console.log(`| first compilePolicy + evaluate + settle | ${med('first_step_ms').toFixed(2)} |`);
console.log(`| import to first decision | ${med('total_ms').toFixed(2)} |`);
console.log(`| (node's own boot before the import, not the package's) | ${med('boot_ms').toFixed(1)} |`);

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const size = (file) => {
  const bytes = fs.readFileSync(path.join(pkg, file));
  return [bytes.length, zlib.gzipSync(bytes, { level: 9 }).length];
};
const wasm = size('lib/wasm/retry_policy_bg.wasm');
const glue = size('lib/wasm/retry_policy.js');
console.log('');
console.log('| artifact | raw | gzip -9 |');
console.log('|---|---:|---:|');
console.log(`| lib/wasm/retry_policy_bg.wasm | ${kib(wasm[0])} | ${kib(wasm[1])} |`);
console.log(`| lib/wasm/retry_policy.js (wasm-bindgen glue, generated) | ${kib(glue[0])} | ${kib(glue[1])} |`);
console.log(`| wasm + glue | ${kib(wasm[0] + glue[0])} | ${kib(wasm[1] + glue[1])} |`);

const lines = (dir, re) =>
  fs
    .readdirSync(dir)
    .filter((f) => re.test(f) && f !== 'types.d.cts')
    .reduce((n, f) => n + fs.readFileSync(path.join(dir, f), 'utf8').split('\n').length - 1, 0);
const js = lines(path.join(pkg, 'lib'), /\.(cjs|mjs)$/);
const dts = lines(path.join(pkg, 'lib'), /\.d\.(cts|mts)$/);
const rs = lines(path.join(root, 'wasm/npm/src'), /\.rs$/);
console.log('');
console.log(`hand-kept glue lines: lib/*.cjs+*.mjs ${js}, lib/*.d.cts+*.d.mts ${dts} (types.d.cts is generated), wasm/npm/src/*.rs ${rs}; total ${js + dts + rs}`);
