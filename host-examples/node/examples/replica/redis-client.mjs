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
import Redis from 'ioredis';

const OPTIONS = {
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  connectTimeout: 500,
  retryStrategy: (times) => Math.min(50 * times, 250),
};

/** A standalone client for `url`, or (`cluster`) a Cluster client seeded by it. */
export async function connectRedis(url, log, { cluster = false } = {}) {
  let redis;
  if (cluster) {
    const u = new URL(url);
    redis = new Redis.Cluster([{ host: u.hostname, port: Number(u.port || 6379) }], {
      lazyConnect: true,
      enableOfflineQueue: false,
      clusterRetryStrategy: (times) => Math.min(50 * times, 250),
      redisOptions: { ...OPTIONS, lazyConnect: false },
    });
  } else {
    redis = new Redis(url, OPTIONS);
  }
  let lastError = '';
  redis.on('error', (e) => {
    // One line per distinct error, not one per reconnect attempt.
    if (e.message !== lastError) log(`redis: ${e.message}`);
    lastError = e.message;
  });
  redis.on('ready', () => {
    if (lastError !== '') log('redis: connected again');
    lastError = '';
  });
  try {
    await redis.connect();
  } catch (e) {
    log(`redis: not reachable at start (${e.message}); the budget fails closed until it is`);
  }
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
    evalsha: (...args) => answered(redis.evalsha(...args)),
    eval: (...args) => answered(redis.eval(...args)),
  };
  return { client, counter };
}
