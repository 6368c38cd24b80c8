// The Node replica (REPLICA contract, issue 6): a thin wrapper around the
// dispatcher example. C workers take events "node-<pid>-<i>" until N are
// started (or --deadline-ms passed); each is delivered by Dispatcher.deliver,
// which asks RetryPolicy.step after every attempt: evaluate, at most
// ONE Redis command (EVALSHA `record` for a decided first attempt,
// `record_reserve` for a first attempt whose retry needs the budget,
// `reserve` for a later one), settle. A Redis failure or timeout fails a
// pending retry closed (`budget_unavailable`) and never a first attempt's
// delivery. It sleeps the decided delay. At the end: ONE JSON line on stdout.
// The policy artifact (--artifact, else RETRY_POLICY_ARTIFACT, else the
// package's copy) is logged on stderr at load and at every swap
// (--watch-artifact-ms) and exported on /metrics (--metrics-addr). Without
// --policy the document is the one the artifact embeds (retry-policy
// bundle), followed across swaps; an artifact that embeds none is an
// argument error (exit 2).
//
// Run: host-examples/node/replica --help
import { RetryPolicy, InMemoryBudgetStore, RedisBudgetStore, PolicyError, ArtifactError, artifactInfo, checkEviction } from '@webhook/retry-policy';
import { Metrics, serveMetrics } from '../dispatcher/metrics.mjs';
import { trackPolicyArtifact } from '../dispatcher/policy-artifact.mjs';
import { Dispatcher } from '../dispatcher/dispatcher.mjs';
import { parseArgs, UsageError, USAGE, EVENT_CLASS } from './args.mjs';
import { connectRedis, countingClient, redact } from './redis-client.mjs';
import { fileSigner } from '../dispatcher/signer.mjs';

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

/** Logs the first of a kind, then every 1000th (an outage fails every call). */
function rateLimited(what) {
  let n = 0;
  return (line) => {
    n += 1;
    if (n === 1 || n % 1000 === 0) log(`${what} (${n} so far): ${line}`);
  };
}

function loadPolicy(opts, store) {
  const storeError = rateLimited('budget store call failed');
  const disagreement = rateLimited('budget store disagreed with the policy (its verdict stands)');
  const offset = opts.clockOffsetMs;
  const clock = { nowMs: () => Date.now() + offset };
  const where = opts.policyPath === null ? "the artifact's embedded document" : `--policy ${opts.policyPath}`;
  if (opts.policyPath === null && artifactInfo().document_version === null) {
    const { sha256, source } = artifactInfo();
    throw new UsageError(`no --policy FILE given, and the artifact (sha256 ${sha256}, source ${source}) embeds no policy document `
      + '(custom section webhook-retry-policy:document): pass --policy FILE, or an artifact made by retry-policy bundle');
  }
  try {
    const policy = new RetryPolicy(opts.policyText, {
      store,
      clock,
      storeTimeoutMs: opts.storeTimeoutMs,
      onStoreError: (e, { operation, timedOut }) => storeError(`${operation}${timedOut ? ' timed out' : ''}: ${redact(e.message)}`),
      onBudgetDisagreement: ({ request, reply }) => disagreement(`${request.op} answered reserved=${reply.reserved}`),
    });
    policy.policy(EVENT_CLASS); // the class must exist (unknown_event_class otherwise)
    return policy;
  } catch (e) {
    if (e instanceof PolicyError) throw new UsageError(`${where}: ${e.code} at ${e.field}: ${e.message}`);
    throw e;
  }
}

async function run(opts) {
  const startMs = performance.now();
  const metrics = new Metrics();
  let tracked;
  let policy = null; // set below, before /metrics is served: it names the document the replica decides with
  try {
    tracked = trackPolicyArtifact(metrics, log, {
      source: opts.artifact,
      watchMs: opts.watchArtifactMs,
      documentVersion: () => policy.version, // /metrics is served once the policy is loaded
    });
  } catch (e) {
    if (e instanceof ArtifactError || e instanceof TypeError) throw new UsageError(e.message);
    throw e;
  }
  let redis = null;
  let counter = { roundTrips: 0 };
  let store = new InMemoryBudgetStore();
  const policyCheck = loadPolicy(opts, store); // refuse a bad document before connecting anywhere
  if (opts.redis !== null || opts.redisCluster !== null) {
    redis = await connectRedis(opts.redis ?? opts.redisCluster, log, { cluster: opts.redisCluster !== null, ca: opts.caCerts });
    const eviction = await checkEviction(redis);
    if (eviction !== null) log(`WARNING: ${eviction}`);
    const counting = countingClient(redis);
    counter = counting.counter;
    store = new RedisBudgetStore(counting.client);
  }
  policy = redis === null ? policyCheck : loadPolicy(opts, store);
  const server = opts.metricsAddr === null ? null : await serveMetrics(metrics, opts.metricsAddr);
  if (server !== null) log(`metrics on ${server.url}`);
  const dispatcher = new Dispatcher(policy, {
    metrics,
    attemptDeadlineMs: opts.attemptDeadlineMs,
    allowPrivateTargets: opts.allowPrivateTargets,
    signer: opts.signingSecrets === null ? null : fileSigner(opts.signingSecrets),
    ca: opts.caCerts,
  });
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
  dispatcher.close();
  tracked.close();
  await server?.close();

  const attempts = metrics.get('webhook_attempts_total');
  const summary = {
    host: 'node',
    events: started,
    attempts,
    first_attempts: started,
    retries: attempts - started,
    stop_reasons: stopReasons,
    redis_round_trips: counter.roundTrips,
    budget_disagreements: policy.budgetDisagreements,
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
