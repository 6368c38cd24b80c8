// The delivery engine row of the bench (run.mjs; alone: node benchmarks/engine.mjs):
// one delivered event through DeliveryEngine (memory_store) is two batches,
// `[admit]` (answered with its send) and `[result 200]` (answered with
// `delivered`): the time per delivered event, per crossing, and the
// crossings counted per `delivered` action seen. Beside it the same two
// batches through jco's glue alone (JSON text in, text out, no
// JSON.stringify/parse), which shows what the wrapper's own JSON costs.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { DeliveryEngine } from '@webhook/retry-policy';

const require = createRequire(import.meta.url);
const { artifact } = require('../lib/artifact/current.cjs');

const CONFIG = {
  document: {
    version: 'bench',
    classes: { n: { window_ms: 900_000, hard_cap: 16, backoff: { base_ms: 2000, factor: 2.0, cap_ms: 300_000, jitter: 'full' } } },
  },
  memory_store: true,
};
const T0 = 1_800_000_000_000;
const ENDPOINTS = 200;

/** Median ns per delivered event of `deliver(i)` over rounds of `events`. */
function nsPerEvent(deliver, { events = 10_000, rounds = 7 } = {}) {
  let i = 0;
  for (let w = 0; w < 5000; w++) deliver(i++); // warm-up
  const times = [];
  for (let r = 0; r < rounds; r++) {
    const t = process.hrtime.bigint();
    for (let k = 0; k < events; k++) deliver(i++);
    times.push(Number(process.hrtime.bigint() - t) / events);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const admit = (i) => ({ op: 'admit', now_ms: T0 + i, event_id: `evt_${i}`, endpoint_id: `ep_${i % ENDPOINTS}`, target: `https://hooks.example.com/ep_${i % ENDPOINTS}`, class: 'n' });
const ok = (i) => ({ op: 'result', now_ms: T0 + i, event_id: `evt_${i}`, attempt: 1, status: 200 });
const count = (answer, action) => answer.outputs.reduce((n, o) => n + (o.action === action ? 1 : 0), 0);

/** One event through DeliveryEngine (objects in, parsed answers out), checked; returns the `delivered` actions seen. */
function deliverer(engine) {
  return (i) => {
    const sent = engine.feed([admit(i)]);
    if (sent.errors.length || count(sent, 'send') !== 1) throw new Error(`admit ${i}: ${JSON.stringify(sent)}`);
    const done = engine.feed([ok(i)]);
    if (done.errors.length) throw new Error(`result ${i}: ${JSON.stringify(done)}`);
    return count(done, 'delivered');
  };
}

/** Crossings into the component per delivered event: engine-feed calls counted on the instance, untimed. */
function crossingsPerEvent(events = 1000) {
  const api = artifact().run((a) => a); // the instance DeliveryEngine runs on (the primary)
  const feed = api.engineFeed;
  let crossings = 0;
  api.engineFeed = (...args) => ((crossings += 1), feed(...args));
  const engine = DeliveryEngine.open(CONFIG);
  let delivered = 0;
  try {
    const deliver = deliverer(engine);
    for (let i = 0; i < events; i++) delivered += deliver(i);
  } finally {
    api.engineFeed = feed;
    engine.close();
  }
  return crossings / delivered;
}

/** Through the package: DeliveryEngine.feed, every answer checked. */
function throughWrapper() {
  const engine = DeliveryEngine.open(CONFIG);
  const ns = nsPerEvent(deliverer(engine));
  engine.close();
  return ns;
}

/** jco's glue alone: the same batches as JSON text, the answers left as text. */
function glueAlone() {
  const api = artifact().run((a) => a); // the primary instance's interface, for this measurement only
  const handle = api.engineOpen(JSON.stringify(CONFIG));
  const ns = nsPerEvent((i) => {
    api.engineFeed(handle, JSON.stringify([admit(i)]));
    const done = api.engineFeed(handle, JSON.stringify([ok(i)]));
    if (!done.includes('"delivered"')) throw new Error(`result ${i}: ${done}`);
  });
  api.engineClose(handle);
  return ns;
}

/** The rows as a Markdown table. */
export function engineTable() {
  const crossings = crossingsPerEvent();
  const w = throughWrapper();
  const g = glueAlone();
  const us = (ns) => (ns / 1000).toFixed(2);
  return [
    '| delivery engine, memory_store, 200 endpoints (median of 7 rounds of 10,000 events) | µs per delivered event | µs per crossing | crossings per delivered event (counted) |',
    '|---|---:|---:|---:|',
    `| DeliveryEngine.feed([admit]) + feed([result 200]) | ${us(w)} | ${us(w / crossings)} | ${crossings.toFixed(2)} |`,
    `|   the same batches through jco's glue alone (JSON text, no parse) | ${us(g)} | ${us(g / crossings)} | |`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(engineTable());
