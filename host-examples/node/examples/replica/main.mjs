// The Node replica (REPLICA contract, docs/replica.md): the dispatcher
// (examples/dispatcher/driver.mjs) run from the contract's flags, on ONE
// engine opened on --policy's document, else the artifact's embedded one.
// SIGTERM/SIGINT feed `drain`; the run ends at `drained` or --drain-ms, then
// ONE JSON summary line on stdout. An artifact swap (--watch-artifact-ms, or
// the fleet's rollout with --artifact-from-redis: one tick before the first
// admission, then in the background) moves the run to a new engine.
// The command line is judged by the artifact (args.mjs); `replica replay
// ...`: replay-command.mjs.
//
// Run: host-examples/node/replica --help
import fs from 'node:fs';
import {
  DeliveryEngine, RedisBudgetStore, PolicyError, ArtifactError, artifactInfo, embeddedDocument, loadHealthDocument,
  onArtifactChange, checkEviction, TRANSPORT_KIND_NAMES, STOP_REASONS, rollout,
} from '@webhook/retry-policy';
import { Metrics, serveMetrics } from '../dispatcher/metrics.mjs';
import { loadPolicyArtifact, trackPolicyArtifact } from '../dispatcher/policy-artifact.mjs';
import { Driver, rateLimited } from '../dispatcher/driver.mjs';
import { AdmissionPace } from '../dispatcher/admission-pace.mjs';
import { Sender } from '../dispatcher/send.mjs';
import { StoreCaller } from '../dispatcher/store-call.mjs';
import { JournalFile, JournalError } from '../dispatcher/journal-file.mjs';
import { fileSigner } from '../dispatcher/signer.mjs';
import { requireSupportedNode } from '../dispatcher/node-version.mjs';
import { commandLine, answeredEarly, artifactArg, replicaOptions, UsageError, EVENT_CLASS } from './args.mjs';
import { redactText as redact } from '../dispatcher/redact.mjs';
import { connectRedis, countingClient } from './redis-client.mjs';
import { replayCommand } from './replay-command.mjs';

const log = (line) => process.stderr.write(`replica: ${line}\n`);

/** Events finished (delivered or dead-lettered) and dead-lettered so far by `driver` (null: none yet). */
function finishedCounts(driver) {
  if (driver === null) return { events: 0, dead_letters: 0 };
  let events = 0;
  for (const reason of STOP_REASONS) events += driver.stopReasons.get(reason) ?? 0;
  return { events, dead_letters: events - (driver.stopReasons.get('delivered') ?? 0) };
}

/** The document the engine runs (--policy's text, else the artifact's embedded one) and its version; UsageError when refused. */
function policyDocument(opts) {
  const where = opts.policy === null ? "the artifact's embedded document" : `--policy ${opts.policy}`;
  const text = opts.policy_text ?? embeddedDocument()?.text ?? null;
  if (text === null) {
    const { sha256, source } = artifactInfo();
    throw new UsageError(`no --policy FILE given, and the artifact (sha256 ${sha256}, source ${source}) embeds no policy document `
      + '(custom section webhook-retry-policy:document): pass --policy FILE, or an artifact made by retry-policy bundle');
  }
  let doc;
  try {
    doc = loadHealthDocument(text);
  } catch (e) {
    if (e instanceof PolicyError) throw new UsageError(`${where}: ${e.code} at ${e.field}: ${e.message}`);
    throw e;
  }
  if (!doc.classes.some((c) => c.name === EVENT_CLASS)) throw new UsageError(`${where}: unknown_event_class at ${EVENT_CLASS}: the document has no class "${EVENT_CLASS}"`);
  return { text, version: doc.version };
}

/** SIGTERM / SIGINT: the first one calls `onSignal(name)`; a second one during the drain is ignored. */
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

/** Open --store's journal; UsageError naming the flag when it is refused. */
function openJournal(opts) {
  if (opts.store === null) return null;
  try {
    return new JournalFile(opts.store, { log });
  } catch (e) {
    if (e instanceof JournalError) throw new UsageError(`--store ${opts.store}: ${e.message}`);
    throw e;
  }
}

/** --store's own bytes, then --resume's (copied into --store's journal), into the engine; UsageError naming the flag when refused. */
function resumeJournals(driver, journal, opts) {
  const own = journal === null ? Buffer.alloc(0) : journal.bytes();
  let other = null;
  if (opts.resume !== null && opts.resume !== opts.store) {
    try {
      other = fs.readFileSync(opts.resume);
    } catch (e) {
      throw new UsageError(`--resume ${opts.resume}: journal_io: ${e.message}`);
    }
  }
  const feed = (bytes, flag, path, options) => {
    const refused = driver.resume(bytes, options);
    if (refused !== null) throw new UsageError(`${flag} ${path}: ${refused.message.startsWith(refused.error) ? '' : `${refused.error}: `}${refused.message}`);
  };
  if (own.length > 0) feed(own, '--store', opts.store, { own: true });
  if (other !== null) feed(other, '--resume', opts.resume, { own: false, copy: journal !== null });
}

async function run(opts) {
  const startMs = performance.now();
  let driver = null;
  let signalled = null;
  onFirstSignal((name) => {
    signalled = name;
    log(`${name}: draining (admitting nothing, starting no attempt; in-progress attempts get up to ${opts.drain_ms} ms)`);
    driver?.drain(opts.drain_ms);
  });
  let version = null;
  // Without --policy, a swapped-in artifact's document is fed to the engine
  // first (so the swap's log line and /metrics name the document now run).
  let onSwap = () => {};
  const stopSwaps = onArtifactChange((e) => onSwap(e));
  let metrics;
  let tracked;
  try {
    metrics = new Metrics(); // its families: the schema of the artifact just loaded, read once
    tracked = trackPolicyArtifact(metrics, log, { source: opts.artifact, watchMs: opts.watch_artifact_ms, documentVersion: () => version });
  } catch (e) {
    if (e instanceof ArtifactError || e instanceof TypeError) throw new UsageError(e.message);
    throw e;
  }
  const doc = policyDocument(opts); // refuse a bad document before connecting anywhere
  version = doc.version;
  const memoryStore = opts.redis === null && opts.redis_cluster === null;
  // max_open: the engine bounds the open events by --concurrency (the driver offers admissions past it with each batch's inputs).
  const openEngine = (text) => new DeliveryEngine({ document: text, max_in_flight: opts.concurrency, max_open: opts.concurrency, memory_store: memoryStore });
  let engine;
  try {
    engine = openEngine(doc.text);
  } catch (e) {
    if (e instanceof PolicyError) throw new UsageError(`the delivery engine refused the document: ${e.code}: ${e.message}`);
    throw e;
  }
  if (!opts.artifact_from_redis) tracked.announce(); // else after the first rollout tick: it names what runs then
  let redis = null;
  let counter = { roundTrips: 0 };
  let store = null;
  if (opts.redis !== null || opts.redis_cluster !== null) {
    redis = await connectRedis(opts.redis ?? opts.redis_cluster, log, { cluster: opts.redis_cluster !== null, ca: opts.ca_certs });
    const eviction = await checkEviction(redis);
    if (eviction !== null) log(`WARNING: ${eviction}`);
    const counting = countingClient(redis);
    counter = counting.counter;
    const failed = rateLimited(log, 'budget store call failed');
    store = new StoreCaller({ store: new RedisBudgetStore(counting.client), metrics, timeoutMs: opts.store_timeout_ms, onError: (m) => failed(redact(m)) });
  }
  // The first rollout tick, before the driver exists (nothing admitted yet):
  // a swap reopens the engine on the new artifact's embedded document.
  let follower = null;
  if (opts.artifact_from_redis) {
    let started = false; // a refusal on the first tick is logged, not counted (docs/rollout.md)
    follower = new rollout.RolloutFollower({
      redis, trusted: opts.trusted, replicaId: opts.replica_id, language: 'node', timeoutMs: opts.store_timeout_ms,
      documentVersion: () => version, counts: () => finishedCounts(driver), log: (line) => log(redact(line)),
      onRefusal: () => started && metrics.inc('webhook_policy_reloads_total', { result: 'refused' }),
    });
    onSwap = (e) => {
      if (e.kind !== 'swapped') return;
      const text = opts.policy_text ?? embeddedDocument()?.text ?? doc.text;
      try {
        const fresh = openEngine(text);
        engine.close();
        engine = fresh;
        version = loadHealthDocument(text).version;
      } catch (err) {
        log(`the swapped-in artifact's document is refused by its engine (${err.message}); it runs document_version=${version}`);
      }
    };
    await follower.tick();
    started = true;
    tracked.announce();
  }
  const journal = openJournal(opts);
  let next = 0;
  const pace = new AdmissionPace({ ratePerS: opts.rate, deadlineAt: opts.deadline_ms === null ? Infinity : startMs + opts.deadline_ms });
  const nextEvent = () => {
    if (next >= opts.events) return null;
    const id = `node-${process.pid}-${next++}`;
    return { event_id: id, endpoint_id: opts.endpoint_id, target: opts.target, class: EVENT_CLASS };
  };
  const sender = new Sender({
    nowMs: () => driver.nowMs(),
    metrics,
    attemptDeadlineMs: opts.attempt_deadline_ms,
    allowPrivateTargets: opts.allow_private_targets,
    ca: opts.ca_certs,
    signer: opts.signing_secrets === null ? null : fileSigner(opts.signing_secrets),
  });
  driver = new Driver({ engine, journal, sender, store, metrics, log, concurrency: opts.concurrency, nextEvent, clockOffsetMs: opts.clock_offset_ms, pace });
  try {
    resumeJournals(driver, journal, opts);
  } catch (e) {
    journal?.closeSync(); // before the usage error exits: the lock is removed
    throw e;
  }
  // A new artifact is a new engine (docs/engine.md section 11): the old one
  // drains, its snapshot is resumed by one opened on the new artifact, with
  // --policy's document or the new artifact's embedded one.
  onSwap = (e) => {
    if (e.kind !== 'swapped') return;
    const text = opts.policy_text ?? embeddedDocument()?.text ?? doc.text;
    driver.swapArtifact(() => {
      try {
        return openEngine(text);
      } catch (err) {
        log(`the swapped-in artifact's document is refused by its engine (${err.message}); it runs document_version=${version}`);
        return openEngine(doc.text);
      }
    });
    try {
      version = loadHealthDocument(text).version;
    } catch {
      // refused: the version stays
    }
  };
  follower?.start(opts.rollout_poll_ms);
  const server = opts.metrics_addr === null ? null : await serveMetrics(metrics, opts.metrics_addr);
  if (server !== null) log(`metrics on ${server.url}`);
  if (signalled !== null) driver.drain(opts.drain_ms);
  const { how, abandoned } = await driver.run();
  if (how === 'deadline' && abandoned.first + abandoned.retry > 0) {
    log(`drain: ${abandoned.first + abandoned.retry} attempt(s) still running at ${opts.drain_ms} ms abandoned; their events are pending`);
  }
  const counted = (name, labels) => metrics.get(name, labels);
  const firsts = counted('webhook_attempts_total', { kind: 'first' }) + abandoned.first;
  const retries = counted('webhook_attempts_total', { kind: 'retry' }) + abandoned.retry;
  const summary = {
    host: 'node',
    events: driver.admitted + driver.resumed,
    attempts: firsts + retries,
    first_attempts: firsts,
    retries,
    stop_reasons: Object.fromEntries(STOP_REASONS.map((r) => [r, driver.stopReasons.get(r) ?? 0])),
    pending: driver.open,
    drained: signalled !== null,
    transport_errors: Object.fromEntries(TRANSPORT_KIND_NAMES.map((k) => [k, counted('webhook_transport_errors_total', { kind: k })])),
    redis_round_trips: counter.roundTrips,
    store_errors: counted('webhook_budget_store_errors_total'),
    budget_disagreements: counted('webhook_budget_disagreements_total'),
    elapsed_ms: Math.round(performance.now() - startMs),
    holds: Object.fromEntries(metrics.labelValues('webhook_holds_total').map((r) => [r, counted('webhook_holds_total', { reason: r })])),
    held: driver.held,
    probe_calls: metrics.total('webhook_probe_calls_total'),
  };
  // The journal is synced and unlocked before the summary: a reader of the
  // summary finds it whole (a drain's pending events resumable).
  await journal?.close().catch((e) => log(`--store ${opts.store}: ${redact(e.message)}`));
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  follower?.close();
  redis?.disconnect();
  driver.close();
  driver.engine.close();
  tracked.close();
  stopSwaps();
  await server?.close();
  if (how === 'deadline') process.exit(0); // abandoned attempts may still hold sockets and timers
  return 0;
}

requireSupportedNode('replica');
await main(process.argv.slice(2));

/** --help and --version (exit 0) and an unknown flag (exit 2) before the artifact loads; then the command. */
async function main(argv) {
  const { command, args } = commandLine(argv);
  try {
    const early = answeredEarly(command, args);
    if (early !== null) {
      process.stdout.write(early.stdout); // docs/replica.md: on stdout, exit 0
      process.exit(0);
    }
    loadPolicyArtifact(artifactArg(args));
    process.exitCode = command === 'replay' ? await replayCommand(args) : await run(replicaOptions(args));
  } catch (e) {
    if (!(e instanceof UsageError || e instanceof ArtifactError)) throw e;
    process.stderr.write(`${command === 'replay' ? 'replica replay' : 'replica'}: ${e.message}\n`);
    process.exit(2);
  }
}
