// Run: node examples/dispatcher/main.mjs [--serve]
// Starts the local endpoints and a /metrics server, delivers three events
// (healthy, always-503, 410) with virtual time (a 10-minute window passes
// at once), prints the dead letters and the metrics. With --serve, keeps
// /metrics up until Ctrl-C. With REDIS_URL set (e.g. redis://127.0.0.1:6379),
// the retry budget is the fleet's shared one in Redis (fleet/README.md).
import { RetryPolicy, ManualClock, RedisBudgetStore, InMemoryBudgetStore } from '@webhook/retry-policy';
import { startEndpoints } from './endpoints.mjs';
import { Metrics, serveMetrics } from './metrics.mjs';
import { Dispatcher, virtualScheduler } from './dispatcher.mjs';
import { trackPolicyArtifact } from './policy-artifact.mjs';

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

const endpoints = await startEndpoints();
const metrics = new Metrics();
// The policy artifact: logged at load (and at every swap), exported as webhook_policy_info.
let policy = null; // assigned below, before any scrape can name its version
const artifact = trackPolicyArtifact(metrics, (line) => console.error(line), { documentVersion: () => policy?.version ?? null });
const server = await serveMetrics(metrics);
const clock = new ManualClock(Date.now());
let redis = null;
if (process.env.REDIS_URL) {
  const { default: Redis } = await import('ioredis');
  redis = new Redis(process.env.REDIS_URL, { maxRetriesPerRequest: 1 });
}
const store = redis ? new RedisBudgetStore(redis) : new InMemoryBudgetStore();
const onStoreError = (e, ctx) => console.error(`budget store ${ctx.operation} failed (${ctx.endpointId}): ${e.message}`);
policy = new RetryPolicy(EXAMPLE_DOCUMENT, { clock, store, onStoreError });
// The example's endpoints are on loopback, refused by default: allowed here explicitly.
const dispatcher = new Dispatcher(policy, { metrics, scheduler: virtualScheduler(clock), allowPrivateTargets: true });

for (const [id, path] of [['evt_ok', '/healthy'], ['evt_busy', '/always-503'], ['evt_gone', '/gone']]) {
  const d = await dispatcher.deliver({ id, class: 'notification', endpoint_id: `ep${path}`, url: endpoints.url(path), body: { id } });
  console.log(`${id} -> ${d.stop_reason}`);
}
console.log('dead letters:', JSON.stringify(dispatcher.deadLetters, null, 2));
console.log(await (await fetch(server.url)).text());
await endpoints.close();
dispatcher.close();
redis?.disconnect();
artifact.close();
if (process.argv.includes('--serve')) {
  console.log(`serving ${server.url} (Ctrl-C to stop)`);
} else {
  await server.close();
}
