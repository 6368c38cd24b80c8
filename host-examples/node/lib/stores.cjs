'use strict';
// Budget stores and clocks: what a RetryPolicy reads time and attempt counts
// from. A store may answer synchronously or with a promise (Redis).
//
// The store interface (see BudgetStore in index.d.cts):
//   read(endpointId, windowMs, bucket)                 -> counts of bucket and bucket-1
//   recordAttempt(endpointId, windowMs, bucket, isRetry)
//   reserve?(endpointId, windowMs, bucket, nowMs, budget) -> {counts, reserved}
//       optional: check the budget and count the retry atomically (Redis);
//       `counts` as they were before the change.
// `bucket` is always computed by the policy (floor(now_ms / window_ms)).
const { raw } = require('./native.cjs');
const { guarded } = require('./errors.cjs');
const { plain } = require('./snapshot.cjs');

/**
 * Process-local counts (the Rust core's InMemoryCounter): each endpoint keeps
 * its two newest buckets. Right for one process; a fleet shares one store
 * (RedisBudgetStore), or its budget holds per process only.
 */
class InMemoryBudgetStore {
  #counter = new raw.MemoryCounter();

  read(endpointId, windowMs, bucket) {
    return guarded(() => this.#counter.read(plain(endpointId, 'endpoint_id'), plain(windowMs, 'window_ms'), plain(bucket, 'bucket')));
  }

  recordAttempt(endpointId, windowMs, bucket, isRetry) {
    guarded(() =>
      this.#counter.recordAttempt(
        plain(endpointId, 'endpoint_id'),
        plain(windowMs, 'window_ms'),
        plain(bucket, 'bucket'),
        plain(isRetry, 'is_retry'),
      ),
    );
  }
}

/** Wall-clock milliseconds since the Unix epoch (`Date.now()`). */
const systemClock = Object.freeze({ nowMs: () => Date.now() });

/** A clock that moves only when told to (tests, simulations). */
class ManualClock {
  #nowMs;
  constructor(nowMs = 0) {
    this.#nowMs = nowMs;
  }
  nowMs() {
    return this.#nowMs;
  }
  set(nowMs) {
    this.#nowMs = nowMs;
  }
  advance(byMs) {
    this.#nowMs += byMs;
  }
}

module.exports = { InMemoryBudgetStore, systemClock, ManualClock };
