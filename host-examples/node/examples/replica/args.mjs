// The REPLICA command line (issue 6, fleet tests): parse and check the flags.
// Bad arguments throw UsageError; main.mjs prints it and exits 2.
import fs from 'node:fs';
import os from 'node:os';
import { redactText } from '../dispatcher/redact.mjs';
import { readCaFile, CaFileError } from '../dispatcher/trust.mjs';
import { rollout, RolloutError } from '@webhook/retry-policy';

export const USAGE = `usage: replica --help | --version
       replica replay --store FILE --policy FILE [...]   (replica replay --help)
       replica --target URL --endpoint-id ID --events N [--policy FILE]
               [--concurrency C] [--redis redis[s]://[user:pass@]host:port/db | --redis-cluster redis[s]://seed:port]
               [--deadline-ms N] [--rate N] [--store-timeout-ms N] [--clock-offset-ms N]
               [--attempt-deadline-ms N] [--allow-private-targets] [--signing-secrets FILE]
               [--artifact FILE] [--watch-artifact-ms N] [--metrics-addr HOST:PORT]
               [--ca-file PEM] [--drain-ms N] [--store FILE] [--resume FILE]
               [--artifact-from-redis --trust-key PEM [--replica-id ID] [--rollout-poll-ms N]]

Delivers N events (POST, ids "node-<pid>-<i>") to URL through the retry policy
(class "storm" of the policy document FILE; without --policy, of the document
embedded in the artifact (retry-policy bundle), which then follows artifact
swaps; an error when it embeds none), at most C events open at once (default
8; an event is open from its admission to its stop, retry waits included),
every decision the delivery engine's (docs/engine.md). With --redis the retry budget is the fleet's shared one
(fleet/README.md; --redis-cluster: a Redis Cluster through one seed node);
without it, an in-memory budget. --deadline-ms: stop starting new events after
N ms (events already started run to their stop). --rate N: admissions per
second (a number > 0; not part of the contract, as the Rust replica's): the
k-th event (k from 0) is admitted no earlier than k * 1000 / N ms after the
run's first admission (its start). --store-timeout-ms: longest
wait for one store call (default 250; then the retry fails closed).
--clock-offset-ms: add N ms (may be negative) to this replica's clock (a
skewed replica, for the fleet's clock-skew test). --attempt-deadline-ms: the
total deadline of one delivery attempt (default 30000). Targets resolving to
loopback, private, link-local or other internal addresses are refused
(destination_refused, terminal) unless --allow-private-targets. With
--signing-secrets FILE (JSON: endpoint id -> "whsec_new whsec_old" or a list)
every attempt is signed (Standard Webhooks); re-read on refresh_credentials.
--artifact: the policy artifact (default RETRY_POLICY_ARTIFACT, else the
package's copy); --watch-artifact-ms N: poll that file every N ms and swap
when its sha256 changes (checked first; a refused file keeps the current
one). --metrics-addr HOST:PORT: serve /metrics there (port 0: any free
port, printed on stderr; e.g. 127.0.0.1:0), with webhook_policy_info{artifact_sha256,abi,document_version}.
--ca-file PEM: CA certificates trusted in addition to the platform's roots,
for https:// targets and rediss:// stores (verification is never skipped).
--drain-ms N: on SIGTERM/SIGINT, admit nothing more, start no attempt, let
attempts in progress finish for up to N ms (default 5000), print the summary
("drained": true; unfinished events are "pending") and exit 0.
--store FILE: journal every event to FILE (journal format 2, docs/journal.md:
each attempt's record fsynced before its request is sent, one writer by its
lock file); its own pending and held events are continued first (a restart
after a crash). --resume FILE: then continue the pending and held events of
another replica's journal (any language), each under the policy it was
admitted with (never --policy's); they are copied into --store's journal
when given. --events 0 --resume FILE
only resumes. A drained run leaves its unfinished events pending in the journal.
A --policy document with health sections (format 3) gates every send, holds
(journaled as held, resumed by --store/--resume) and probes
(docs/health-dispatch.md).
--artifact-from-redis: follow the artifact the fleet publishes in --redis /
--redis-cluster (docs/rollout.md; retry-policy publish): one tick before the
first admission, then every --rollout-poll-ms N ms (default 500, 50..60000),
in the background; an artifact whose Ed25519 signature is not by a key of
--trust-key PEM (required with it; PEM PUBLIC KEY blocks) is refused and the
running one kept. --replica-id ID: this replica's id in the status records
and the canary rule (1 to 200 bytes; default node-<hostname>-<pid>).
Excludes --watch-artifact-ms. Prints one JSON summary line on stdout;
diagnostics go to stderr.`;

export const EVENT_CLASS = 'storm';

export class UsageError extends Error {}
/** A setup file refused (docs/rollout.md: the trust file): one line on stderr, no usage text; exit 2 too. */
export class SetupError extends UsageError {}

/** `HOST:PORT` (an IPv6 host in brackets: `[::1]:0`) -> {host, port}; port 0 = any free port. */
function hostPort(flag, text) {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:\[\]]+)):(\d{1,5})$/.exec(text);
  if (m === null) throw new UsageError(`${flag}: expected HOST:PORT (e.g. 127.0.0.1:0), got ${JSON.stringify(text)}`);
  const port = Number(m[3]);
  if (port > 65535) throw new UsageError(`${flag}: port ${port} is above 65535`);
  return { host: m[1] ?? m[2], port };
}

export function integer(flag, text, min) {
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag}: expected a non-negative integer, got ${JSON.stringify(text)}`);
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`${flag}: expected an integer >= ${min}, got ${text}`);
  return n;
}

function signed(flag, text) {
  if (!/^-?\d+$/.test(text)) throw new UsageError(`${flag}: expected an integer, got ${JSON.stringify(text)}`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new UsageError(`${flag}: out of range: ${text}`);
  return n;
}

/** A finite decimal number > 0 (--rate: admissions per second). */
function positiveNumber(flag, text) {
  const n = /^\+?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : NaN;
  if (!(Number.isFinite(n) && n > 0)) throw new UsageError(`${flag}: expected a finite number > 0, got ${JSON.stringify(text)}`);
  return n;
}

function filePath(flag, text) {
  if (text === '') throw new UsageError(`${flag}: expected a file path, got ""`);
  return text;
}

function url(flag, text, protocols) {
  let u;
  try {
    u = new URL(text);
  } catch {
    throw new UsageError(`${flag}: not a URL: ${JSON.stringify(redactText(text))}`);
  }
  if (!protocols.includes(u.protocol)) {
    throw new UsageError(`${flag}: expected a ${protocols.map((p) => p.slice(0, -1)).join(' or ')} URL, got ${JSON.stringify(redactText(text))}`);
  }
  return text;
}

/** A redis:// or rediss:// URL whose path, if any, is a database number. */
function redisUrl(flag, text) {
  url(flag, text, ['redis:', 'rediss:']);
  const u = new URL(text);
  if (!/^\/?\d*$/.test(u.pathname)) throw new UsageError(`${flag}: the path must be a database number, got ${JSON.stringify(u.pathname)}`);
  if (u.hostname === '') throw new UsageError(`${flag}: no host in ${JSON.stringify(redactText(text))}`);
  return text;
}

/** The trust file's text (its keys are read at start, by the component); SetupError naming the file and rollout_trust_invalid when refused. */
function trustText(file) {
  try {
    return rollout.readTrustText(file);
  } catch (e) {
    if (e instanceof RolloutError) throw new SetupError(`--trust-key: ${e.message}`);
    throw e;
  }
}

/** --artifact-from-redis, --trust-key, --replica-id, --rollout-poll-ms (docs/replica.md), checked together. */
function rolloutOptions(seen) {
  const follow = seen.has('--artifact-from-redis');
  if (follow && !seen.has('--redis') && !seen.has('--redis-cluster')) throw new UsageError('--artifact-from-redis needs --redis or --redis-cluster');
  if (follow && !seen.has('--trust-key')) throw new UsageError('--artifact-from-redis needs --trust-key FILE');
  if (follow && seen.has('--watch-artifact-ms')) throw new UsageError('--artifact-from-redis and --watch-artifact-ms are exclusive');
  if (!follow && seen.has('--trust-key')) throw new UsageError('--trust-key is only for --artifact-from-redis');
  const replicaId = seen.get('--replica-id') ?? `node-${os.hostname()}-${process.pid}`;
  const idBytes = Buffer.byteLength(replicaId, 'utf8');
  if (idBytes < 1 || idBytes > 200) throw new UsageError(`--replica-id: expected 1 to 200 bytes of UTF-8, got ${idBytes}`);
  let rolloutPollMs = 500;
  if (seen.has('--rollout-poll-ms')) {
    rolloutPollMs = integer('--rollout-poll-ms', seen.get('--rollout-poll-ms'), 0);
    if (rolloutPollMs < 50 || rolloutPollMs > 60_000) throw new UsageError(`--rollout-poll-ms: expected an integer from 50 to 60000, got ${rolloutPollMs}`);
  }
  const trustKey = follow ? seen.get('--trust-key') : null;
  return { artifactFromRedis: follow, trustKey, trustPem: follow ? trustText(trustKey) : null, replicaId, rolloutPollMs };
}

/**
 * The flags of `argv` as a Map flag -> value (`true` for a switch): `--flag value`
 * or `--flag=value`, each at most once, only the flags of `values` and
 * `switches` (`what`: the command named in an unknown argument's error).
 */
export function readFlags(argv, values, switches = [], what = '') {
  const seen = new Map();
  for (let i = 0; i < argv.length; i++) {
    let flag = argv[i];
    let value;
    const eq = flag.indexOf('=');
    if (flag.startsWith('--') && eq > 0) {
      value = flag.slice(eq + 1);
      flag = flag.slice(0, eq);
    }
    const isSwitch = switches.includes(flag);
    if (!isSwitch && !values.includes(flag)) throw new UsageError(`${what}unknown argument ${JSON.stringify(argv[i])}`);
    if (isSwitch) {
      if (value !== undefined) throw new UsageError(`${flag} takes no value`);
      value = true;
    } else if (value === undefined) {
      if (i + 1 >= argv.length) throw new UsageError(`${flag}: missing value`);
      value = argv[++i];
    }
    if (seen.has(flag)) throw new UsageError(`${flag} given twice`);
    seen.set(flag, value);
  }
  return seen;
}

const int = (min) => (flag, text) => integer(flag, text, min);
const asIs = (_flag, text) => text;
/** flag -> [option, parse(flag, text), default], checked in this order after the flags read apart (--policy, --ca-file, rollout). */
const OPTIONS = {
  '--target': ['target', (flag, text) => url(flag, text, ['http:', 'https:'])],
  '--events': ['events', int(0)],
  '--concurrency': ['concurrency', int(1), 8],
  '--redis': ['redis', redisUrl, null],
  '--redis-cluster': ['redisCluster', redisUrl, null],
  '--deadline-ms': ['deadlineMs', int(0), null],
  '--rate': ['ratePerS', positiveNumber, null],
  '--store-timeout-ms': ['storeTimeoutMs', int(1), 250],
  '--clock-offset-ms': ['clockOffsetMs', signed, 0],
  '--attempt-deadline-ms': ['attemptDeadlineMs', int(1), 30_000],
  '--signing-secrets': ['signingSecrets', asIs, null],
  '--artifact': ['artifact', asIs, null],
  '--watch-artifact-ms': ['watchArtifactMs', int(1), null],
  '--metrics-addr': ['metricsAddr', hostPort, null],
  '--drain-ms': ['drainMs', int(0), 5000],
  '--store': ['store', filePath, null],
  '--resume': ['resume', filePath, null],
};
const VALUE_FLAGS = [...Object.keys(OPTIONS), '--endpoint-id', '--policy', '--ca-file', '--trust-key', '--replica-id', '--rollout-poll-ms'];
const SWITCHES = ['--allow-private-targets', '--artifact-from-redis'];

/**
 * argv (without node and the script) -> {help}, {version} or
 * {target, endpointId, events, concurrency, policyText, policyPath (both null without
 *  --policy: the artifact's embedded document), redis, redisCluster,
 *  deadlineMs, ratePerS (null without --rate), storeTimeoutMs, clockOffsetMs, attemptDeadlineMs, allowPrivateTargets, signingSecrets,
 *  artifact, watchArtifactMs, metricsAddr, caFile, caCerts (PEM strings, [] without --ca-file), drainMs,
 *  store, resume (journal paths, null when not given),
 *  artifactFromRedis, trustKey (the path) and trustPem (its text; both null without it), replicaId, rolloutPollMs}.
 */
export function parseArgs(argv) {
  if (argv.includes('--help') || argv.includes('-h')) return { help: true };
  if (argv.includes('--version')) return { help: false, version: true };
  const seen = readFlags(argv, VALUE_FLAGS, SWITCHES);
  for (const required of ['--target', '--endpoint-id', '--events']) {
    if (!seen.has(required)) throw new UsageError(`${required} is required`);
  }
  if (seen.has('--redis') && seen.has('--redis-cluster')) throw new UsageError('--redis and --redis-cluster are exclusive');
  const followed = rolloutOptions(seen);
  const endpointId = seen.get('--endpoint-id');
  if (endpointId === '') throw new UsageError('--endpoint-id: must not be empty');
  const policyPath = seen.get('--policy') ?? null; // null: the artifact's embedded document
  let policyText = null;
  if (policyPath !== null) {
    try {
      policyText = fs.readFileSync(policyPath, 'utf8');
    } catch (e) {
      throw new UsageError(`--policy: cannot read ${policyPath}: ${e.message}`);
    }
  }
  const caFile = seen.get('--ca-file') ?? null;
  let caCerts = [];
  if (caFile !== null) {
    try {
      caCerts = readCaFile(caFile);
    } catch (e) {
      if (e instanceof CaFileError) throw new UsageError(e.message);
      throw e;
    }
  }
  const opts = { help: false, endpointId, policyPath, policyText, allowPrivateTargets: seen.has('--allow-private-targets'), caFile, caCerts, ...followed };
  for (const [flag, [name, parse, fallback]] of Object.entries(OPTIONS)) opts[name] = seen.has(flag) ? parse(flag, seen.get(flag)) : fallback;
  return opts;
}
