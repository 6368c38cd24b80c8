// npm run bench: decisions per second through the package against the
// plain-JS baseline port (benchmarks/baseline-decide.cjs, BigInt u64 hashing)
// and a hand-tuned variant of it (baseline-decide-u32.cjs, Math.imul on 32-bit
// halves), measured in this one run, plus the package's wasm + glue size, raw
// and gzipped.
//
// Workload: WORKLOAD_SIZE distinct decide inputs (event ids of 12-40
// characters, a mix of 2xx / 5xx with and without Retry-After / 410 / 401 /
// transport errors, attempts 1..16, budget counts around the threshold),
// replayed in order. Each path's time is the median of ROUNDS rounds.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { createRequire } from 'node:module';
import { compilePolicy, decide } from '@webhook/retry-policy';

const require = createRequire(import.meta.url);
const baseline = require('./baseline-decide.cjs');
const tunedBaseline = require('./baseline-decide-u32.cjs');
const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(here, '..');

const WORKLOAD_SIZE = 4096;
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const policy = {
  backoff: { base_ms: 2000, factor: 2.0, cap_ms: 300_000, jitter: 'full' },
  window_ms: 900_000,
  hard_cap: 16,
  budget: { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true },
};

function workload() {
  let seed = 0x2545f491;
  const rnd = (n) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const outcomes = [
    { status: 503 },
    { status: 500 },
    { status: 429, retry_after_ms: 30_000 },
    { status: 204 },
    { status: 410 },
    { status: 401 },
    { error_kind: 'connect_timeout' },
    { error_kind: 'invalid_url' },
  ];
  const t0 = 1_700_000_000_000;
  return Array.from({ length: WORKLOAD_SIZE }, (_, i) => {
    const idLen = 12 + rnd(29);
    const state = {
      event_id: `evt_${i.toString(36)}_${'x'.repeat(idLen)}`.slice(0, idLen),
      endpoint_id: `ep_${rnd(200)}`,
      attempt: 1 + rnd(16),
      max_attempts: 13,
      first_attempted_at_ms: t0,
      credentials_refreshed: rnd(2) === 1,
    };
    const total = 40 + rnd(200);
    return {
      state,
      outcome: outcomes[rnd(outcomes.length)],
      nowMs: t0 + rnd(1_000_000),
      counts: {
        current: { total, retries: rnd(Math.ceil(total / 8)) },
        previous: { total: 100 + rnd(100), retries: rnd(20) },
      },
    };
  });
}

function timePerDecisionNs(fn, cases) {
  const n = cases.length;
  let sink = 0;
  for (let i = 0; i < 20_000; i++) sink += fn(cases[i % n]) === null ? 1 : 0; // warm-up
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < ITERATIONS; i++) sink += fn(cases[i % n]) === null ? 1 : 0;
    rounds.push(Number(process.hrtime.bigint() - t) / ITERATIONS);
  }
  if (sink < 0) console.log(sink);
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(rounds.length / 2)];
}

const cases = workload();
const compiled = compilePolicy(policy);
const paths = [
  ['plain JS baseline (benchmarks/, not shipped)', (c) => baseline.decide(policy, c.state, c.outcome, c.nowMs, c.counts)],
  ['plain JS, hand-tuned u64 hash (benchmarks/, not shipped)', (c) => tunedBaseline.decide(policy, c.state, c.outcome, c.nowMs, c.counts)],
  ['package: compilePolicy(p).decide (fast path)', (c) => compiled.decide(c.state, c.outcome, c.nowMs, c.counts)],
  ['package: decide(policy, ...) (object path)', (c) => decide(policy, c.state, c.outcome, c.nowMs, c.counts)],
];

// Like for like: every path gives the same decision on every case.
for (const c of cases) {
  const want = baseline.decide(policy, c.state, c.outcome, c.nowMs, c.counts);
  for (const [name, fn] of paths.slice(1)) {
    if (!isDeepStrictEqual(fn(c), want)) throw new Error(`${name} disagrees with the baseline on ${JSON.stringify(c)}`);
  }
}

const results = paths.map(([name, fn]) => [name, timePerDecisionNs(fn, cases)]);
const baseNs = results[0][1];
console.log(`decide: ${WORKLOAD_SIZE} distinct inputs, ${ITERATIONS} decisions x ${ROUNDS} rounds (median), node ${process.version}`);
const tunedNs = results[1][1];
console.log('| path | ns/decision | decisions/s | time vs plain JS | time vs tuned JS |');
console.log('|---|---:|---:|---:|---:|');
for (const [name, ns] of results) {
  const row = [name, ns.toFixed(0), Math.round(1e9 / ns).toLocaleString('en-US'), `${(ns / baseNs).toFixed(2)}x`, `${(ns / tunedNs).toFixed(2)}x`];
  console.log(`| ${row.join(' | ')} |`);
}

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
console.log(`| lib/wasm/retry_policy.js (glue) | ${kib(glue[0])} | ${kib(glue[1])} |`);
console.log(`| wasm + glue | ${kib(wasm[0] + glue[0])} | ${kib(wasm[1] + glue[1])} |`);
try {
  const [info] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: pkg, encoding: 'utf8' }));
  console.log(`| whole npm package (${info.entryCount} files) | ${kib(info.unpackedSize)} unpacked | ${kib(info.size)} tarball |`);
} catch (e) {
  console.log(`| whole npm package | npm pack --dry-run failed: ${e.message.split('\n')[0]} | |`);
}
