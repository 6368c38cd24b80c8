// The Node replica (REPLICA contract, issue 6): a thin wrapper around the
// dispatcher example. C workers take events "node-<pid>-<i>" until N are
// started (or --deadline-ms passed); each is delivered by Dispatcher.deliver,
// which records the first attempt (recordFirstAttempt -> Redis `record`),
// asks RetryPolicy.afterAttempt after every attempt (Redis `reserve` when a
// retry is due; a Redis failure is `budget_unavailable`, failing closed) and
// sleeps the decided delay. At the end: ONE JSON line on stdout.
//
// Run: host-examples/node/replica --help
import { RetryPolicy, InMemoryBudgetStore, RedisBudgetStore, PolicyError } from '@webhook/retry-policy';
import { Metrics } from '../dispatcher/metrics.mjs';
import { Dispatcher } from '../dispatcher/dispatcher.mjs';
import { parseArgs, UsageError, USAGE, EVENT_CLASS } from './args.mjs';
import { connectRedis, countingClient } from './redis-client.mjs';

export const STOP_REASONS = [
  'delivered',
  'max_attempts_exhausted',
  'retry_budget_exhausted',
  'budget_unavailable',
  'terminal_response',
  'retry_window_elapsed',
];

const log = (line) => process.stderr.write(`replica: ${line}\n`);

function usageExit(message) {
  process.stderr.write(`replica: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function loadPolicy(opts, store) {
  let storeErrors = 0;
  const onStoreError = (e, { operation }) => {
    // Rate-limited: an outage fails every reserve; say so now and then.
    storeErrors += 1;
    if (storeErrors === 1 || storeErrors % 1000 === 0) log(`budget store ${operation} failed (${storeErrors} so far): ${e.message}`);
  };
  try {
    const policy = new RetryPolicy(opts.policyText, { store, onStoreError });
    policy.policy(EVENT_CLASS); // the class must exist (unknown_event_class otherwise)
    return policy;
  } catch (e) {
    if (e instanceof PolicyError) throw new UsageError(`--policy ${opts.policyPath}: ${e.code} at ${e.field}: ${e.message}`);
    throw e;
  }
}

async function run(opts) {
  const startMs = performance.now();
  let redis = null;
  let counter = { roundTrips: 0 };
  let store = new InMemoryBudgetStore();
  const policyCheck = loadPolicy(opts, store); // refuse a bad document before connecting anywhere
  if (opts.redis !== null) {
    redis = await connectRedis(opts.redis, log);
    const counting = countingClient(redis);
    counter = counting.counter;
    store = new RedisBudgetStore(counting.client);
  }
  const policy = redis === null ? policyCheck : loadPolicy(opts, store);
  const metrics = new Metrics();
  const dispatcher = new Dispatcher(policy, { metrics });
  const stopReasons = Object.fromEntries(STOP_REASONS.map((r) => [r, 0]));
  let started = 0;
  let crashed = 0;
  const deadlineAt = opts.deadlineMs === null ? Infinity : startMs + opts.deadlineMs;

  async function worker() {
    while (started < opts.events && performance.now() < deadlineAt) {
      const i = started++;
      const id = `node-${process.pid}-${i}`;
      try {
        const decision = await dispatcher.deliver({ id, class: EVENT_CLASS, endpoint_id: opts.endpointId, url: opts.target, body: { id, i } });
        stopReasons[decision.stop_reason] += 1;
      } catch (e) {
        crashed += 1; // a bug, never a policy outcome: reported and counted, the run exits 1
        log(`event ${id} failed: ${e?.stack ?? e}`);
      }
      dispatcher.deadLetters.length = 0; // only the counts are reported; keep memory flat
    }
  }
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  redis?.disconnect();

  const attempts = metrics.get('webhook_attempts_total');
  const summary = {
    host: 'node',
    events: started,
    attempts,
    first_attempts: started,
    retries: attempts - started,
    stop_reasons: stopReasons,
    redis_round_trips: counter.roundTrips,
    elapsed_ms: Math.round(performance.now() - startMs),
  };
  if (crashed > 0) summary.crashed = crashed;
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  return crashed > 0 ? 1 : 0;
}

let opts;
try {
  opts = parseArgs(process.argv.slice(2));
} catch (e) {
  if (e instanceof UsageError) usageExit(e.message);
  throw e;
}
if (opts.help) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(0);
}
try {
  process.exitCode = await run(opts);
} catch (e) {
  if (e instanceof UsageError) usageExit(e.message);
  throw e;
}
