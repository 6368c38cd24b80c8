// --artifact-from-redis (docs/rollout.md): the package's RolloutFollower on
// the replica's own Redis connection (redis-client.mjs: redis:// or
// rediss:// with --ca-file, ACL users, --redis-cluster; commands fail fast
// while Redis is down). Its swaps go through the package's swapArtifact,
// so the replica's artifact listener (main.mjs) moves the driver to the new
// artifact's engine exactly as a --watch-artifact-ms swap does, and
// /metrics' webhook_policy_info names the new sha256.
import { rollout, STOP_REASONS } from '@webhook/retry-policy';
import { redact } from './redis-client.mjs';

/** Events finished (delivered or dead-lettered) and dead-lettered so far by `driver` (null: none yet). */
export function finishedCounts(driver) {
  if (driver === null) return { events: 0, dead_letters: 0 };
  let events = 0;
  for (const reason of STOP_REASONS) events += driver.stopReasons.get(reason) ?? 0;
  return { events, dead_letters: events - (driver.stopReasons.get('delivered') ?? 0) };
}

/**
 * The follower of `opts` (parseArgs: trusted, replicaId, storeTimeoutMs
 * bounds each command) on `redis`; it logs refusals, `onRefusal` counts
 * them (webhook_policy_reloads_total{result="refused"}).
 */
export function rolloutFollower(opts, redis, { log, onRefusal, counts, documentVersion }) {
  return new rollout.RolloutFollower({
    redis,
    trusted: opts.trusted,
    replicaId: opts.replicaId,
    language: 'node',
    timeoutMs: opts.storeTimeoutMs,
    documentVersion,
    counts,
    log: (line) => log(redact(line)),
    onRefusal,
  });
}
