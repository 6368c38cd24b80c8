// node benchmarks/compiled-step.mjs: the compiled step of ABI 0.3 (a
// component handle: advance, + finish when the store answers) beside the
// 0.2 step it replaces (evaluate + settle, the policy record lowered each
// call), for CompiledPolicy and for RetryPolicy.step (the dispatcher's path)
// against the 0.2 path written out (evaluate, the store, settle). The two
// sides of a pair run in alternating rounds of the same loop, so a busy
// machine slows both alike; medians of the rounds, and their ratio.
// Also printed: component calls per step (counted, not timed).
import { createRequire } from 'node:module';
import { compilePolicy, RetryPolicy, ManualClock, InMemoryBudgetStore } from '@webhook/retry-policy';
import { POLICY, DOCUMENT, workload } from './workload.mjs';

const require = createRequire(import.meta.url);
const { Artifact } = require('../lib/artifact/load.cjs');

const ROUNDS = 15;
const cases = workload();
const classed = cases.map((c) => ({ ...c, state: { class: 'bench', ...c.state } }));
const clock = new ManualClock(1_700_000_000_000);
const compiled = compilePolicy(POLICY);
const rp = new RetryPolicy(DOCUMENT, { clock, store: new InMemoryBudgetStore() });
const store = new InMemoryBudgetStore();
const budget = rp.policy('bench').toJSON().budget;

const oldStep = (c) => {
  const s = compiled.evaluate(c.state, c.outcome, c.nowMs);
  return s.decision ?? compiled.settle(c.state, c.outcome, c.nowMs, c.reply).decision;
};
const newStep = (c) => {
  const r = compiled.advance(c.state, c.outcome, c.nowMs);
  return r.action === 'decided' ? r.decision : compiled.finish(c.state, c.outcome, c.nowMs, c.reply).verdict;
};
const rpOld = async (c) => {
  const nowMs = clock.nowMs();
  const s = rp.evaluate(c.state, c.outcome, nowMs);
  if (s.store === null) return s.decision;
  const reply = store.call(s.store, budget, nowMs);
  return s.decision ?? rp.settle(c.state, c.outcome, nowMs, reply).decision;
};
const rpNew = (c) => rp.step(c.state, c.outcome);

/** Median ns per call of `a` and `b`, in alternating rounds. */
async function pair(a, b, list, iterations) {
  const n = list.length;
  for (let i = 0; i < 10_000; i++) {
    await a(list[i % n]);
    await b(list[i % n]);
  }
  const ta = [];
  const tb = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const [f, out] of r % 2 === 0 ? [[a, ta], [b, tb]] : [[b, tb], [a, ta]]) {
      const t = process.hrtime.bigint();
      for (let i = 0; i < iterations; i++) await f(list[i % n]);
      out.push(Number(process.hrtime.bigint() - t) / iterations);
    }
  }
  const med = (x) => x.sort((p, q) => p - q)[Math.floor(x.length / 2)];
  return [med(ta), med(tb)];
}

/** Component calls per step of `f` over the workload (mean), and the share of one-call steps. */
async function callsPerStep(f, list) {
  const original = Artifact.prototype.run;
  let calls = 0;
  Artifact.prototype.run = function run(g) {
    calls += 1;
    return original.call(this, g);
  };
  let single = 0;
  try {
    for (const c of list) {
      const before = calls;
      await f(c);
      if (calls - before === 1) single += 1;
    }
  } finally {
    Artifact.prototype.run = original;
  }
  return [calls / list.length, single / list.length];
}

const syncPair = await pair(oldStep, newStep, cases, 40_000);
const asyncPair = await pair(rpOld, rpNew, classed, 20_000);
const rows = [
  ['CompiledPolicy: 0.2 evaluate + settle', syncPair[0], await callsPerStep(oldStep, cases)],
  ['CompiledPolicy: 0.3 advance (+ finish)', syncPair[1], await callsPerStep(newStep, cases)],
  ['RetryPolicy: 0.2 path evaluate, store, settle (async)', asyncPair[0], await callsPerStep(rpOld, classed)],
  ['RetryPolicy.step: 0.3 advance, store, finish (async)', asyncPair[1], await callsPerStep(rpNew, classed)],
];
console.log(`node ${process.version}, ${cases.length} distinct inputs, ${ROUNDS} alternating rounds, medians`);
console.log('| step | µs | 0.2 / 0.3 | component calls per step (in-memory store included) | one-call steps |');
console.log('|---|---:|---:|---:|---:|');
rows.forEach(([what, ns, [calls, single]], i) => {
  const ratio = i % 2 === 1 ? `${(rows[i - 1][1] / ns).toFixed(2)}x` : '';
  console.log(`| ${what} | ${(ns / 1000).toFixed(3)} | ${ratio} | ${calls.toFixed(2)} | ${(100 * single).toFixed(1)}% |`);
});
