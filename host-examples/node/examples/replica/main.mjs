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
// argument error (exit 2). SIGTERM/SIGINT drain (docs/replica.md): admit
// nothing more, start no attempt, give attempts in progress --drain-ms,
// print the summary with "drained": true and the unfinished events as
// "pending", exit 0. --store FILE journals the run (journal format 2; held records too) and
// --resume FILE continues another replica's pending events, each under its
// admitted policy (stored-events.mjs); a drain leaves the unfinished ones
// pending in the journal, resumable. A --policy document with health
// sections (format 3), or without --policy an embedded one with them
// (docs/artifact.md step 6), runs the send loop of docs/health-dispatch.md
// (HealthPolicy, health-loop.mjs): gate, hold, probe, wake; the summary adds
// holds, held, probe_calls and wake_calls. `replica replay ...` replays dead
// letters of a journal (replay-command.mjs).
//
// Run: host-examples/node/replica --help
import { RetryPolicy, InMemoryBudgetStore, RedisBudgetStore, PolicyError, ArtifactError, artifactInfo, embeddedDocument, onArtifactChange, checkEviction, TRANSPORT_KIND_NAMES } from '@webhook/retry-policy';
import { meteredStore } from '../dispatcher/metered-store.mjs';
import { Metrics, serveMetrics } from '../dispatcher/metrics.mjs';
import { trackPolicyArtifact } from '../dispatcher/policy-artifact.mjs';
import { Dispatcher } from '../dispatcher/dispatcher.mjs';
import { parseArgs, UsageError, USAGE, EVENT_CLASS } from './args.mjs';
import { connectRedis, countingClient, redact } from './redis-client.mjs';
import { fileSigner } from '../dispatcher/signer.mjs';
import { requireSupportedNode } from '../dispatcher/node-version.mjs';
import { openStoredEvents, admittedPolicies } from './stored-events.mjs';
import { HealthPolicy, hasHealth } from '../dispatcher/health-policy.mjs';
import { HOLD_REASONS } from '../dispatcher/metrics.mjs';
import { replayCommand } from './replay-command.mjs';
import fs from 'node:fs';

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

/** The options of every RetryPolicy of the run (the document's, and those journaled events were admitted under): one metered store, one clock. */
function policyOptions(opts, store, metrics) {
  const storeError = rateLimited('budget store call failed');
  const disagreement = rateLimited('budget store disagreed with the policy (its verdict stands)');
  const offset = opts.clockOffsetMs;
  return {
    store: meteredStore(store, metrics, { timeoutMs: opts.storeTimeoutMs }),
    clock: { nowMs: () => Date.now() + offset },
    storeTimeoutMs: opts.storeTimeoutMs,
    onStoreError: (e, { operation, timedOut }) => {
      metrics.inc('webhook_budget_store_errors_total');
      storeError(`${operation}${timedOut ? ' timed out' : ''}: ${redact(e.message)}`);
    },
    onBudgetDisagreement: ({ request, reply }) => disagreement(`${request.op} answered reserved=${reply.reserved}`),
  };
}

/** A format-2 policy whose run resumes a record with `health` runs as format 3 (its events keep their own policy). */
function resumesHealth(policy, resumed, opts, options) {
  if (policy instanceof HealthPolicy || !resumed.some((r) => r.policy.health !== undefined)) return policy;
  if (opts.policyText === null) throw new UsageError('the journal holds format-3 records (a health section): pass --policy FILE to resume them');
  return new HealthPolicy(opts.policyText, options);
}

function loadPolicy(opts, options) {
  const where = opts.policyPath === null ? "the artifact's embedded document" : `--policy ${opts.policyPath}`;
  if (opts.policyPath === null && artifactInfo().document_version === null) {
    const { sha256, source } = artifactInfo();
    throw new UsageError(`no --policy FILE given, and the artifact (sha256 ${sha256}, source ${source}) embeds no policy document `
      + '(custom section webhook-retry-policy:document): pass --policy FILE, or an artifact made by retry-policy bundle');
  }
  try {
    const embeddedHealth = opts.policyText === null && embeddedDocument()?.hasHealth === true;
    if (embeddedHealth || (opts.policyText !== null && healthSections(opts.policyText))) {
      // Format 3 (docs/health-dispatch.md): gate, hold, probe; every class on its compiled handle.
      // The artifact's embedded format-3 document runs so too (docs/artifact.md step 6), followed across swaps.
      const policy = new HealthPolicy(opts.policyText, options);
      policy.compiled(EVENT_CLASS);
      return policy;
    }
    const policy = new RetryPolicy(opts.policyText, options);
    policy.policy(EVENT_CLASS); // the class must exist (unknown_event_class otherwise)
    return policy;
  } catch (e) {
    if (e instanceof PolicyError) throw new UsageError(`${where}: ${e.code} at ${e.field}: ${e.message}`);
    throw e;
  }
}

/**
 * A replica on the embedded format-2 document (a RetryPolicy following the
 * artifact) does not switch send loops at a swap: a swapped-in document with
 * health sections is not applied (the RetryPolicy keeps its document), and
 * that is said, once per swap. A restart runs it with the health send loop.
 * Returns a function that stops listening.
 */
function noticeFormatThreeSwaps(policy, opts) {
  if (!(policy instanceof RetryPolicy) || opts.policyText !== null) return () => {};
  return onArtifactChange((e) => {
    if (e.kind !== 'swapped' || embeddedDocument()?.hasHealth !== true) return;
    log(`policy artifact swapped to a document with health sections (format 3, document_version=${e.info.document_version}): `
      + `not applied, this replica started on format 2 and keeps document_version=${policy.version}; restart it to run the health send loop`);
  });
}

/** Whether the document has `health` sections (a text load-health-document refuses is left to RetryPolicy's own error). */
function healthSections(text) {
  try {
    return hasHealth(text);
  } catch (e) {
    if (e instanceof PolicyError) return false;
    throw e;
  }
}

/**
 * SIGTERM / SIGINT: the first one calls `onSignal(name)`; a second one
 * during the drain is ignored (SIGKILL is the operator's hard stop).
 */
function onFirstSignal(onSignal) {
  let seen = false;
  const handler = (name) => {
    if (seen) return log(`${name} ignored: already draining`);
    seen = true;
    onSignal(name);
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

async function run(opts) {
  const startMs = performance.now();
  const metrics = new Metrics();
  // Draining from the first signal on, even one that lands during setup.
  let drainStarted = null; // resolves when a signal arrives
  let signalled = null;
  const signal = new Promise((resolve) => (drainStarted = resolve));
  let dispatcher = null;
  onFirstSignal((name) => {
    signalled = name;
    log(`${name}: draining (admitting nothing, starting no attempt; in-progress attempts get up to ${opts.drainMs} ms)`);
    dispatcher?.drain();
    drainStarted();
  });
  let tracked;
  let policy = null; // set below, before /metrics is served: it names the document the replica decides with
  try {
    tracked = trackPolicyArtifact(metrics, log, {
      source: opts.artifact,
      watchMs: opts.watchArtifactMs,
      documentVersion: () => policy?.version ?? null, // /metrics is served once the policy is loaded
      announce: false, // logged once the policy is loaded: the line names its version
    });
  } catch (e) {
    if (e instanceof ArtifactError || e instanceof TypeError) throw new UsageError(e.message);
    throw e;
  }
  let redis = null;
  let counter = { roundTrips: 0 };
  let store = new InMemoryBudgetStore();
  let options = policyOptions(opts, store, metrics);
  const policyCheck = loadPolicy(opts, options); // refuse a bad document before connecting anywhere
  if (opts.redis !== null || opts.redisCluster !== null) {
    redis = await connectRedis(opts.redis ?? opts.redisCluster, log, { cluster: opts.redisCluster !== null, ca: opts.caCerts });
    const eviction = await checkEviction(redis);
    if (eviction !== null) log(`WARNING: ${eviction}`);
    const counting = countingClient(redis);
    counter = counting.counter;
    store = new RedisBudgetStore(counting.client);
  }
  if (redis !== null) options = policyOptions(opts, store, metrics);
  policy = redis === null ? policyCheck : loadPolicy(opts, options);
  tracked.announce();
  const { journal, resumed } = openStoredEvents(opts, log);
  try {
    policy = resumesHealth(policy, resumed, opts, options);
  } catch (e) {
    journal?.closeSync(); // before the usage error exits: the lock is removed
    throw e;
  }
  const stopNotice = noticeFormatThreeSwaps(policy, opts);
  const journalError = rateLimited('journal write failed (the run goes on; the journal stays whole)');
  const server = opts.metricsAddr === null ? null : await serveMetrics(metrics, opts.metricsAddr);
  if (server !== null) log(`metrics on ${server.url}`);
  dispatcher = new Dispatcher(policy, {
    metrics,
    attemptDeadlineMs: opts.attemptDeadlineMs,
    allowPrivateTargets: opts.allowPrivateTargets,
    signer: opts.signingSecrets === null ? null : fileSigner(opts.signingSecrets),
    ca: opts.caCerts,
    journal,
    admittedPolicy: admittedPolicies(options),
    onJournalError: (e) => journalError(redact(e.message)),
  });
  if (signalled !== null) dispatcher.drain();
  // This journal knows every event it continues (--resume's written to --store's).
  if (journal !== null) await Promise.all(resumed.map((r) => journal.append(r).catch((e) => journalError(redact(e.message)))));
  const stopReasons = Object.fromEntries(STOP_REASONS.map((r) => [r, 0]));
  let started = 0;
  let pending = 0;
  let crashed = 0;
  const deadlineAt = opts.deadlineMs === null ? Infinity : startMs + opts.deadlineMs;

  // Resumed events first, then new ones: at most --concurrency in progress at once.
  let resumedTaken = 0;
  async function worker() {
    for (;;) {
      if (signalled !== null) return;
      let id;
      let run;
      if (resumedTaken < resumed.length) {
        const rec = resumed[resumedTaken++];
        id = rec.event_id;
        run = () => dispatcher.resumeRecord(rec);
      } else if (started < opts.events && performance.now() < deadlineAt) {
        const i = started++;
        id = `node-${process.pid}-${i}`;
        run = () => dispatcher.deliver({ id, class: EVENT_CLASS, endpoint_id: opts.endpointId, url: opts.target, body: { id, i } });
      } else {
        return;
      }
      try {
        const decision = await run();
        if (decision.pending === true) pending += 1;
        else stopReasons[decision.stop_reason] += 1;
      } catch (e) {
        crashed += 1; // a bug, never a policy outcome: reported and counted, the run exits 1
        log(`event ${id} failed: ${e?.stack ?? e}`);
      }
      dispatcher.deadLetters.length = 0; // only the counts are reported; keep memory flat
    }
  }
  const finished = Promise.all(Array.from({ length: opts.concurrency }, worker));
  // After a signal, in-progress attempts get --drain-ms; then they are abandoned.
  let drainTimer;
  const drainDeadline = signal.then(() => new Promise((resolve) => (drainTimer = setTimeout(() => resolve('deadline'), opts.drainMs))));
  const how = await Promise.race([finished.then(() => 'finished'), drainDeadline]);
  clearTimeout(drainTimer);
  if (how === 'deadline') {
    const abandoned = dispatcher.abandon(); // counted as made
    const settled = Object.values(stopReasons).reduce((a, b) => a + b, 0) + pending + crashed;
    if (abandoned > 0) log(`drain: ${abandoned} attempt(s) still running at ${opts.drainMs} ms abandoned; their events are pending`);
    pending += started + resumedTaken - settled; // every event not settled yet is pending
  }
  pending += resumed.length - resumedTaken; // resumed events a drain left untouched: still pending in their journal

  const summary = {
    host: 'node',
    events: started + resumed.length,
    attempts: metrics.total('webhook_attempts_total'),
    first_attempts: metrics.get('webhook_attempts_total', { kind: 'first' }),
    retries: metrics.get('webhook_attempts_total', { kind: 'retry' }),
    stop_reasons: stopReasons,
    pending,
    drained: signalled !== null,
    transport_errors: Object.fromEntries(TRANSPORT_KIND_NAMES.map((k) => [k, metrics.get('webhook_transport_errors_total', { kind: k })])),
    redis_round_trips: counter.roundTrips,
    store_errors: metrics.get('webhook_budget_store_errors_total'),
    budget_disagreements: dispatcher.budgetDisagreements,
    elapsed_ms: Math.round(performance.now() - startMs),
    holds: Object.fromEntries(HOLD_REASONS.map((r) => [r, metrics.get('webhook_holds_total', { reason: r })])),
    held: metrics.heldNow + resumed.slice(resumedTaken).filter((r) => r.status === 'held').length, // a drain leaves untaken held records held
    probe_calls: metrics.total('webhook_probe_calls_total'),
    wake_calls: metrics.get('webhook_wake_calls_total'),
  };
  if (crashed > 0) summary.crashed = crashed;
  // The journal is synced and unlocked before the summary: a reader of the
  // summary finds it whole (a drain's pending events resumable).
  await journal?.close().catch((e) => log(`--store ${opts.store}: ${redact(e.message)}`));
  // The summary is written before anything is torn down: an abandoned
  // attempt cut by close() cannot change a count that was printed.
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  redis?.disconnect();
  dispatcher.close();
  tracked.close();
  stopNotice();
  await server?.close();
  if (how === 'deadline') process.exit(crashed > 0 ? 1 : 0); // abandoned attempts may still hold sockets and timers
  return crashed > 0 ? 1 : 0;
}

requireSupportedNode('replica');
if (process.argv[2] === 'replay') {
  process.exitCode = await replayCommand(process.argv.slice(3));
  // the command is done: nothing below runs
} else {
  await main();
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) usageExit(e.message);
    throw e;
  }
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`); // docs/replica.md: --help prints on stdout, exit 0
    process.exit(0);
  }
  if (opts.version) {
    // Without loading the artifact (docs/replica.md).
    const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    process.stdout.write(`replica (node ${process.versions.node}) ${pkg.name} ${pkg.version}\n`);
    process.exit(0);
  }
  try {
    process.exitCode = await run(opts);
  } catch (e) {
    if (e instanceof UsageError) usageExit(e.message);
    throw e;
  }
}
