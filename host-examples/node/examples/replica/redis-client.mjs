// The replica's Redis connection for RedisBudgetStore, tuned to FAIL FAST:
// while Redis is unreachable every command rejects at once (no offline
// queue, no retry of in-flight commands, short timeouts), so the policy
// decides `budget_unavailable` immediately instead of holding a retry; the
// client keeps reconnecting in the background (every <= 250 ms), so the
// budget works again as soon as Redis is back.
//
// `countingClient` wraps it for RedisBudgetStore and counts round trips:
// commands Redis answered (a reply or a Redis error reply), not commands
// refused locally while disconnected.
import Redis from 'ioredis';

export async function connectRedis(url, log) {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectTimeout: 500,
    commandTimeout: 1000,
    retryStrategy: (times) => Math.min(50 * times, 250),
  });
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
    script: (...args) => answered(redis.script(...args)),
    evalsha: (...args) => answered(redis.evalsha(...args)),
    eval: (...args) => answered(redis.eval(...args)),
  };
  return { client, counter };
}
