// The dispatcher row (issues 20, 26): the dispatcher (examples/dispatcher/
// driver.mjs, a driver of the delivery engine) delivering to a loopback
// endpoint in another process (loopback-endpoint.mjs: 204, and 503 for one
// request in five) as fast as it can: CONCURRENCY events open at once, the
// engine's memory store, retries after the document's short backoff,
// DELIVERIES events after a warm-up. Measures this process's CPU time
// (process.cpuUsage: only the dispatcher, the endpoint is another process),
// the time spent inside the engine's crossings (DeliveryEngine feed and
// resume, wrapped HERE, bench only: performance.now accumulators, wall time,
// and process.cpuUsage ones, CPU time, which a descheduled crossing does
// not inflate), the
// crossings per delivered event, and the admissions the engine refused
// at_capacity (its max_open = CONCURRENCY, as the replica opens it: offered
// with results that freed no place, offered again). Prints a table; `--json`
// the figures.
//   node benchmarks/dispatcher-share.mjs [--deliveries N] [--concurrency C] [--json]
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { DeliveryEngine } from '@webhook/retry-policy';
import { Driver } from '../examples/dispatcher/driver.mjs';
import { Sender } from '../examples/dispatcher/send.mjs';
import { Metrics } from '../examples/dispatcher/metrics.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

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
  version: 'bench-dispatcher-2',
  classes: {
    notification: {
      window_ms: 600_000,
      hard_cap: 16,
      backoff: { base_ms: 1, factor: 2.0, cap_ms: 4, jitter: 'full' },
      budget: { ratio: 0.5, window_ms: 60_000, min_sample: 50, sliding: true },
    },
  },
};

// The accumulators (bench only): time inside the engine's crossings.
const spent = { ms: 0, cpuUs: 0, crossings: 0, admits: 0, atCapacity: 0 };
for (const name of ['feed', 'resume']) {
  const original = DeliveryEngine.prototype[name];
  DeliveryEngine.prototype[name] = function timedCrossing(...args) {
    const t = performance.now();
    const c = process.cpuUsage();
    try {
      const answer = original.apply(this, args);
      if (name === 'feed') {
        spent.admits += args[0].filter((i) => i.op === 'admit').length;
        spent.atCapacity += answer.errors.filter((e) => e.error === 'at_capacity').length;
      }
      return answer;
    } finally {
      spent.ms += performance.now() - t;
      const dc = process.cpuUsage(c);
      spent.cpuUs += dc.user + dc.system;
      spent.crossings += 1;
    }
  };
}

async function startEndpoint() {
  const child = spawn(process.execPath, [path.join(here, 'loopback-endpoint.mjs'), '--every-503', '5'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = await once(child.stdout, 'data');
  return { url: `http://127.0.0.1:${Number(String(line).trim())}/hook`, close: () => child.stdin.end() };
}

/** Deliver `count` events (ids from `first`) through one engine and driver; the driver's tallies. */
async function run(url, count, first) {
  const metrics = new Metrics();
  const engine = new DeliveryEngine({ document: DOCUMENT, max_in_flight: CONCURRENCY, max_open: CONCURRENCY, memory_store: true }); // as the replica opens it
  let next = 0;
  let driver;
  const sender = new Sender({ nowMs: () => driver.nowMs(), metrics, attemptDeadlineMs: 5000, allowPrivateTargets: true });
  driver = new Driver({
    engine, sender, metrics, log: (line) => process.stderr.write(`${line}\n`), concurrency: CONCURRENCY,
    nextEvent: () => (next < count ? { event_id: `evt_${first + next}`, endpoint_id: `ep_${(first + next++) % 64}`, target: url, class: 'notification' } : null),
  });
  await driver.run();
  driver.close();
  engine.close();
  return { stops: driver.stopReasons, attempts: metrics.total('webhook_attempts_total') };
}

const endpoint = await startEndpoint();
await run(endpoint.url, WARM_UP, 0);
Object.assign(spent, { ms: 0, cpuUs: 0, crossings: 0, admits: 0, atCapacity: 0 });
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const { stops, attempts } = await run(endpoint.url, DELIVERIES, WARM_UP);
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
endpoint.close();
const cpuMs = (cpu.user + cpu.system) / 1000;
const delivered = stops.get('delivered') ?? 0;
const figures = {
  deliveries: DELIVERIES,
  concurrency: CONCURRENCY,
  attempts,
  stops: Object.fromEntries(stops),
  wall_ms: wallMs,
  deliveries_per_s: (DELIVERIES * 1000) / wallMs,
  cpu_ms: cpuMs,
  cpu_user_ms: cpu.user / 1000,
  cpu_system_ms: cpu.system / 1000,
  engine_ms: spent.ms,
  crossings: spent.crossings,
  crossings_per_delivered: spent.crossings / delivered,
  admissions_offered: spent.admits,
  admissions_refused_at_capacity: spent.atCapacity,
  engine_us_per_delivered: (1000 * spent.ms) / delivered,
  engine_share_pct: (100 * spent.ms) / cpuMs,
  engine_cpu_us_per_delivered: spent.cpuUs / delivered,
  engine_cpu_share_pct: (100 * spent.cpuUs) / 1000 / cpuMs,
  load_average_1m: os.loadavg()[0],
};
if (process.argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify(figures)}\n`);
} else {
  const us = (ms, n) => ((1000 * ms) / n).toFixed(1);
  console.log(`| dispatcher row: the engine driver -> loopback endpoint (another process, 1 in 5 answers 503), ${CONCURRENCY} open, ${DELIVERIES} events | value |`);
  console.log('|---|---:|');
  console.log(`| attempts (stops: ${Object.entries(figures.stops).map(([k, v]) => `${k} ${v}`).join(', ')}) | ${attempts} |`);
  console.log(`| events delivered per second (wall ${(wallMs / 1000).toFixed(2)} s) | ${figures.deliveries_per_s.toFixed(0)} |`);
  console.log(`| dispatcher process CPU, µs per delivered event (user ${figures.cpu_user_ms.toFixed(0)} ms + system ${figures.cpu_system_ms.toFixed(0)} ms) | ${us(cpuMs, delivered)} |`);
  console.log(`| engine crossings per delivered event (batched: everything that arrived together is one crossing) | ${figures.crossings_per_delivered.toFixed(2)} |`);
  console.log(`| admissions offered (refused at_capacity, offered again) | ${spent.admits} (${spent.atCapacity}) |`);
  console.log(`| inside the engine's crossings, µs per delivered event (${spent.crossings} crossings) | ${us(spent.ms, delivered)} |`);
  console.log(`| the same, CPU time inside the crossings (process.cpuUsage), µs per delivered event | ${figures.engine_cpu_us_per_delivered.toFixed(1)} |`);
  console.log(`| **engine share of the dispatcher's CPU** (goal <= 2%), wall-time accumulators | **${figures.engine_share_pct.toFixed(2)}%** |`);
  console.log(`| **engine share of the dispatcher's CPU** (goal <= 2%), CPU-time accumulators | **${figures.engine_cpu_share_pct.toFixed(2)}%** |`);
  console.log(`| (wall-time accumulators also count time a crossing was descheduled on a busy machine, CPU-time ones do not; 1-min load average ${figures.load_average_1m.toFixed(2)} on ${os.availableParallelism()} CPUs) | |`);
}
