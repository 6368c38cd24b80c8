// Run: node examples/dispatcher/main.mjs [--serve] [--journal FILE] [--real-time] [--drain-ms N]
// Starts the local endpoints and a /metrics server, delivers three events
// (healthy, always-503, 410) with virtual time (a 10-minute window passes
// at once), prints the dead letters and the metrics. With --serve, keeps
// /metrics up until Ctrl-C. With REDIS_URL set (e.g. redis://127.0.0.1:6379),
// the retry budget is the fleet's shared one in Redis (fleet/README.md).
//
// --journal FILE journals the events (journal format 2, docs/journal.md) and
// first continues the file's pending events, each under its recorded policy.
// --real-time sleeps the decided delays for real (the always-503 event then
// waits for its retries). SIGTERM/SIGINT drain: no event is taken and no
// attempt started from then on, attempts in flight get --drain-ms (default
// 2000) to finish, what is left stays pending in the journal; the results so
// far (pending ones included) are printed and the exit code is 0.
import { setTimeout as sleep } from 'node:timers/promises';
import { RetryPolicy, ManualClock, RedisBudgetStore, InMemoryBudgetStore, systemClock } from '@webhook/retry-policy';
import { startEndpoints } from './endpoints.mjs';
import { Metrics, serveMetrics } from './metrics.mjs';
import { Dispatcher, virtualScheduler, realScheduler } from './dispatcher.mjs';
import { trackPolicyArtifact } from './policy-artifact.mjs';
import { Journal } from './journal.mjs';
import { hashDocument } from './journal-record.mjs';

export const EXAMPLE_DOCUMENT = {
  version: 'example-1',
  classes: {
    notification: {
      window_ms: 600_000,
      hard_cap: 16,
      backoff: { base_ms: 1000, factor: 2.0, cap_ms: 120_000, jitter: 'full' },
    },
  },
};

function flags(argv) {
  const o = { serve: false, realTime: false, journal: null, drainMs: 2000 };
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i];
    if (f === '--serve') o.serve = true;
    else if (f === '--real-time') o.realTime = true;
    else if (f === '--journal' && i + 1 < argv.length) o.journal = argv[++i];
    else if (f === '--drain-ms' && /^\d+$/.test(argv[i + 1] ?? '')) o.drainMs = Number(argv[++i]);
    else throw new Error(`unknown or incomplete argument ${JSON.stringify(f)} (usage: main.mjs [--serve] [--journal FILE] [--real-time] [--drain-ms N])`);
  }
  return o;
}

let opts;
try {
  opts = flags(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`example: ${e.message}\n`);
  process.exit(2);
}

// The first SIGTERM/SIGINT drains; a second one during the drain is ignored.
let signalled = null;
let onSignal;
const signal = new Promise((resolve) => (onSignal = resolve));
for (const name of ['SIGTERM', 'SIGINT']) {
  process.on(name, () => {
    if (signalled !== null) return console.error(`${name} ignored: already draining`);
    signalled = name;
    console.error(`${name}: draining (no new event or attempt; attempts in flight get ${opts.drainMs} ms)`);
    onSignal();
  });
}

let journal = null;
try {
  journal = opts.journal === null ? null : new Journal(opts.journal, { log: (line) => console.error(line) });
} catch (e) {
  console.error(`example: --journal ${opts.journal}: ${e.message}`);
  process.exit(2);
}
const endpoints = await startEndpoints();
const metrics = new Metrics();
// The policy artifact: logged at load (and at every swap), exported as webhook_policy_info.
let policy = null; // assigned below, before any scrape can name its version
const artifact = trackPolicyArtifact(metrics, (line) => console.error(line), { documentVersion: () => policy?.version ?? null, announce: false });
const server = await serveMetrics(metrics);
const clock = opts.realTime ? systemClock : new ManualClock(Date.now());
let redis = null;
if (process.env.REDIS_URL) {
  const { default: Redis } = await import('ioredis');
  redis = new Redis(process.env.REDIS_URL, { maxRetriesPerRequest: 1 });
}
const store = redis ? new RedisBudgetStore(redis) : new InMemoryBudgetStore();
const onStoreError = (e, ctx) => console.error(`budget store ${ctx.operation} failed (${ctx.endpointId}): ${e.message}`);
policy = new RetryPolicy(EXAMPLE_DOCUMENT, { clock, store, onStoreError });
artifact.announce(); // the "loaded" line, naming the version of the document just loaded
const admitted = new Map(); // a journaled event's own policy, one RetryPolicy per admitted document
const admittedPolicy = (rec) => {
  const doc = hashDocument(rec);
  if (!admitted.has(doc)) admitted.set(doc, new RetryPolicy(doc, { clock, store, onStoreError }));
  return admitted.get(doc);
};
// The example's endpoints are on loopback, refused by default: allowed here explicitly.
const dispatcher = new Dispatcher(policy, {
  metrics,
  scheduler: opts.realTime ? realScheduler : virtualScheduler(clock),
  allowPrivateTargets: true,
  journal,
  admittedPolicy,
});
signal.then(() => dispatcher.drain());

const results = new Map(); // event id -> stop reason, or 'pending'
const report = (id, d) => {
  results.set(id, d.pending === true ? 'pending' : d.stop_reason);
  console.log(`${id} -> ${results.get(id)}`);
};
async function deliverAll() {
  for (const rec of journal?.events().filter((r) => r.status === 'pending') ?? []) {
    if (dispatcher.draining) return;
    report(rec.event_id, await dispatcher.resumeRecord(rec));
  }
  for (const [id, path] of [['evt_ok', '/healthy'], ['evt_busy', '/always-503'], ['evt_gone', '/gone']]) {
    if (dispatcher.draining) return; // a drain takes no new event
    report(id, await dispatcher.deliver({ id, class: 'notification', endpoint_id: `ep${path}`, url: endpoints.url(path), body: { id } }));
  }
}
const how = await Promise.race([deliverAll().then(() => 'finished'), signal.then(() => sleep(opts.drainMs)).then(() => 'deadline')]);
if (how === 'deadline') {
  const n = dispatcher.abandon(); // counted as made; journaled as pending
  if (n > 0) console.error(`drain: ${n} attempt(s) still running at ${opts.drainMs} ms abandoned; their events stay pending`);
}
await journal?.close(); // synced, and the lock removed
if (signalled !== null) {
  const pending = [...results.values()].filter((r) => r === 'pending').length;
  console.log(`drained (${signalled}): ${results.size} event(s) ran, ${pending} left pending${journal === null ? '' : ` in ${opts.journal}`}`);
}
console.log('dead letters:', JSON.stringify(dispatcher.deadLetters, null, 2));
console.log(await (await fetch(server.url)).text());
await endpoints.close();
dispatcher.close();
redis?.disconnect();
artifact.close();
if (opts.serve && signalled === null) {
  console.log(`serving ${server.url} (Ctrl-C to stop)`);
  await signal;
}
await server.close();
process.exit(0); // an abandoned attempt may still hold a socket or a timer
