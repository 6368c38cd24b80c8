// The dispatcher row (issue 20): the example dispatcher (examples/dispatcher)
// delivering to a loopback endpoint in another process (loopback-endpoint.mjs:
// 204, and 503 for one request in five) as fast as it can: CONCURRENCY
// events in flight, retries not slept (the scheduler returns at once; the
// policy's clock is the system clock), DELIVERIES events after a warm-up.
// Measures this process's CPU time (process.cpuUsage: only the dispatcher,
// the endpoint is another process) and the time spent inside the policy's
// calls: RetryPolicy's methods the dispatcher calls (admit, policy, resume,
// retryAfter, and step up to its store await: evaluate + the in-memory
// budget store) and the settle after that await, each wrapped HERE (bench
// only) with performance.now accumulators; a call made inside another is
// not counted twice. Prints a table; `--json` prints the figures instead.
//   node benchmarks/dispatcher-share.mjs [--deliveries N] [--concurrency C] [--json]
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { RetryPolicy, InMemoryBudgetStore, systemClock } from '@webhook/retry-policy';
import { Dispatcher } from '../examples/dispatcher/dispatcher.mjs';
import { Metrics } from '../examples/dispatcher/metrics.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { CompiledPolicy } = createRequire(import.meta.url)('../lib/compiled.cjs');

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  if (i < 0) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!(Number.isInteger(n) && n > 0)) throw new TypeError(`${name} expects a positive integer`);
  return n;
}
const DELIVERIES = option('--deliveries', 5000);
const CONCURRENCY = option('--concurrency', 16);
const WARM_UP = 500;

const DOCUMENT = {
  version: 'bench-dispatcher-1',
  classes: {
    notification: {
      window_ms: 600_000,
      hard_cap: 16,
      backoff: { base_ms: 1000, factor: 2.0, cap_ms: 120_000, jitter: 'full' },
      budget: { ratio: 0.5, window_ms: 60_000, min_sample: 50, sliding: true },
    },
  },
};

// The accumulators (bench only): time inside the outermost policy call.
const spent = { ms: 0, calls: 0, steps: 0, by: {} };
let depth = 0;
function timed(proto, name) {
  const original = proto[name];
  proto[name] = function timedCall(...args) {
    if (depth > 0) return original.apply(this, args);
    depth = 1;
    const t = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      const ms = performance.now() - t;
      const by = (spent.by[name] ??= { ms: 0, calls: 0 });
      by.ms += ms;
      by.calls += 1;
      spent.ms += ms;
      spent.calls += 1;
      depth = 0;
    }
  };
}
for (const name of ['admit', 'policy', 'resume', 'retryAfter', 'step']) timed(RetryPolicy.prototype, name);
timed(CompiledPolicy.prototype, '_settle'); // step's part after its store await
const step = RetryPolicy.prototype.step;
RetryPolicy.prototype.step = function countedStep(...args) {
  spent.steps += 1;
  return step.apply(this, args);
};

/** What one performance.now() pair costs (the accumulators' own overhead per call). */
function timerPairNs() {
  const n = 200_000;
  let sink = 0;
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) sink += performance.now() - performance.now();
  return [Number(process.hrtime.bigint() - t) / n, sink];
}

async function startEndpoint() {
  const child = spawn(process.execPath, [path.join(here, 'loopback-endpoint.mjs'), '--every-503', '5'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = await once(child.stdout, 'data');
  return { url: `http://127.0.0.1:${Number(String(line).trim())}/hook`, close: () => child.stdin.end() };
}

async function run(dispatcher, url, count, first) {
  let next = 0;
  const stops = new Map();
  const worker = async () => {
    while (next < count) {
      const i = first + next++;
      const d = await dispatcher.deliver({ id: `evt_${i}`, class: 'notification', endpoint_id: `ep_${i % 64}`, url, body: { id: `evt_${i}`, type: 'invoice.paid', data: { amount: 4200 } } });
      stops.set(d.stop_reason, (stops.get(d.stop_reason) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return stops;
}

const endpoint = await startEndpoint();
const policy = new RetryPolicy(DOCUMENT, { clock: systemClock, store: new InMemoryBudgetStore() });
const dispatcher = new Dispatcher(policy, { metrics: new Metrics(), scheduler: { sleep: async () => {} }, allowPrivateTargets: true });
await run(dispatcher, endpoint.url, WARM_UP, 0);
Object.assign(spent, { ms: 0, calls: 0, steps: 0, by: {} });
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const stops = await run(dispatcher, endpoint.url, DELIVERIES, WARM_UP);
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
dispatcher.close();
endpoint.close();
const cpuMs = (cpu.user + cpu.system) / 1000;
const [pairNs] = timerPairNs();
const figures = {
  deliveries: DELIVERIES,
  concurrency: CONCURRENCY,
  attempts: spent.steps,
  stops: Object.fromEntries(stops),
  wall_ms: wallMs,
  deliveries_per_s: (DELIVERIES * 1000) / wallMs,
  cpu_ms: cpuMs,
  cpu_user_ms: cpu.user / 1000,
  cpu_system_ms: cpu.system / 1000,
  policy_ms: spent.ms,
  policy_calls: spent.calls,
  timer_pair_ns: pairNs,
  policy_share_pct: (100 * spent.ms) / cpuMs,
  by_call: spent.by,
  load_average_1m: os.loadavg()[0],
};
if (process.argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify(figures)}\n`);
} else {
  const us = (ms, n) => ((1000 * ms) / n).toFixed(1);
  console.log(`| dispatcher row: example dispatcher -> loopback endpoint (another process, 1 in 5 answers 503), ${CONCURRENCY} in flight, ${DELIVERIES} events | value |`);
  console.log('|---|---:|');
  console.log(`| attempts (stops: ${Object.entries(figures.stops).map(([k, v]) => `${k} ${v}`).join(', ')}) | ${figures.attempts} |`);
  console.log(`| events delivered per second (wall ${(wallMs / 1000).toFixed(2)} s) | ${figures.deliveries_per_s.toFixed(0)} |`);
  console.log(`| dispatcher process CPU, µs per attempt (user ${figures.cpu_user_ms.toFixed(0)} ms + system ${figures.cpu_system_ms.toFixed(0)} ms) | ${us(cpuMs, figures.attempts)} |`);
  console.log(`| inside the policy's calls, µs per attempt (${figures.policy_calls} calls; timer pair ${pairNs.toFixed(0)} ns each, included) | ${us(spent.ms, figures.attempts)} |`);
  console.log(`| **policy share of the dispatcher's CPU** (goal <= 2%) | **${figures.policy_share_pct.toFixed(2)}%** |`);
  console.log(`| (the accumulators are wall time: on a busy machine a call also counts time it was descheduled; 1-min load average ${figures.load_average_1m.toFixed(2)} on ${os.availableParallelism()} CPUs) | |`);
  const label = { step: 'step up to its store await (evaluate + in-memory store)', _settle: "step's settle after the await" };
  console.log('');
  console.log('| policy call (outermost; RetryPolicy unless noted) | calls | µs per call | share of the policy time |');
  console.log('|---|---:|---:|---:|');
  for (const [name, { ms, calls }] of Object.entries(spent.by).sort((a, b) => b[1].ms - a[1].ms)) {
    console.log(`| ${label[name] ?? name} | ${calls} | ${((1000 * ms) / calls).toFixed(1)} | ${((100 * ms) / spent.ms).toFixed(1)}% |`);
  }
}
