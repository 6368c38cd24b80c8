// The replica's Redis connection for RedisBudgetStore, tuned to FAIL FAST:
// while Redis is unreachable every command rejects at once (no offline
// queue, no retry of in-flight commands, short timeouts), so the policy
// decides `budget_unavailable` immediately instead of holding a retry; the
// client keeps reconnecting in the background (every <= 250 ms), so the
// budget works again as soon as Redis is back.
//
// `countingClient` wraps it for RedisBudgetStore and counts round trips:
// commands Redis answered (a reply or a Redis error reply), not commands
// refused locally while disconnected. The store sends ONE EVALSHA per
// request (EVAL once after NOSCRIPT); the RetryPolicy bounds each call with
// its store timeout, so no command timeout is set here.
// `rediss://` is verified, never `rejectUnauthorized: false` (redisOptions).
import Redis from 'ioredis';
import standalone from 'ioredis/built/connectors/StandaloneConnector.js';
import { redactText } from '../dispatcher/redact.mjs';
import { trustedCas } from '../dispatcher/trust.mjs';

/**
 * ioredis' connector, with an error listener that stays on the socket:
 * ioredis listens for ONE error per socket (`once`), and a TLS socket can
 * emit two (a refused certificate, then the server's alert), which would
 * crash the process as an unhandled 'error'. ioredis still gets the first
 * through its own listener and reconnects as usual.
 */
class GuardedConnector extends standalone.default {
  connect(onEvent) {
    return super.connect(onEvent).then((stream) => {
      stream.on('error', () => {});
      return stream;
    });
  }
}

const OPTIONS = {
  Connector: GuardedConnector,
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  connectTimeout: 500,
  retryStrategy: (times) => Math.min(50 * times, 250),
};

const START_TIMEOUT_MS = 3000;

/**
 * The connection options of a `redis://` or `rediss://` URL: host, port, db,
 * the ACL user (`AUTH user password`; `redis://:password@host`: the default
 * user), and for rediss the `tls` options (`ca`: the platform's roots plus
 * `ca`, the --ca-file PEMs; the name verified is the URL's host).
 */
export function redisOptions(url, ca = []) {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  const options = { host, port: Number(u.port || 6379) };
  if (u.username !== '') options.username = decodeURIComponent(u.username);
  if (u.password !== '') options.password = decodeURIComponent(u.password);
  else if (u.username !== '') options.password = ''; // `AUTH user ""`: a user without a password (nopass)
  const db = u.pathname.replace(/^\//, '');
  if (db !== '') options.db = Number(db);
  if (u.protocol === 'rediss:') {
    const roots = trustedCas(ca);
    options.tls = roots === null ? {} : { ca: roots };
  }
  return options;
}

/** A standalone client for `url`, or (`cluster`) a Cluster client seeded by it; `ca`: extra PEM CAs for rediss. */
export async function connectRedis(url, log, { cluster = false, ca = [] } = {}) {
  let redis;
  const { host, port, ...conn } = redisOptions(url, ca);
  if (cluster) {
    redis = new Redis.Cluster([{ host, port }], {
      lazyConnect: true,
      enableOfflineQueue: false,
      // ioredis 5.11's cluster ready check (CLUSTER INFO) races the pool
      // reset that follows CLUSTER SLOTS: it fails with "Connection is
      // closed", the cluster reconnects, and connect()'s promise never
      // settles (9 of 12 starts hung on the local 3-master cluster; 0 of 12
      // without it). The slots map is the readiness that matters here.
      enableReadyCheck: false,
      slotsRefreshTimeout: 1000,
      clusterRetryStrategy: (times) => Math.min(50 * times, 250),
      redisOptions: { ...OPTIONS, ...conn, lazyConnect: false },
    });
  } else {
    redis = new Redis({ ...OPTIONS, host, port, ...conn });
  }
  let lastError = '';
  redis.on('error', (e) => {
    // One line per distinct error, not one per reconnect attempt.
    if (e.message !== lastError) log(`redis: ${redactText(e.message)}`);
    lastError = e.message;
  });
  redis.on('ready', () => {
    if (lastError !== '') log('redis: connected again');
    lastError = '';
  });
  // Never wait on connect() unbounded: wait for 'ready' at most
  // START_TIMEOUT_MS, then run anyway (store calls fail closed until ready).
  const ready = new Promise((resolve) => redis.once('ready', () => resolve(true)));
  const started = redis.connect().then(
    () => true,
    (e) => {
      log(`redis: not reachable at start (${redactText(e.message)}); the budget fails closed until it is`);
      return false;
    },
  );
  let timer;
  const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve(false), START_TIMEOUT_MS)));
  const ok = await Promise.race([ready, started, timeout]);
  clearTimeout(timer);
  if (!ok && redis.status !== 'ready') log(`redis: not ready after ${START_TIMEOUT_MS} ms; the budget fails closed until it is`);
  return redis;
}

export function countingClient(redis) {
  const counter = { roundTrips: 0 };
  const answered = (p) =>
    p.then(
      (v) => {
        counter.roundTrips += 1;
        return v;
      },
      (e) => {
        if (e?.name === 'ReplyError') counter.roundTrips += 1;
        throw e;
      },
    );
  const client = {
    isCluster: redis.isCluster === true,
    evalsha: (...args) => answered(redis.evalsha(...args)),
    eval: (...args) => answered(redis.eval(...args)),
  };
  return { client, counter };
}
