'use strict';
// Budget stores: what a RetryPolicy sends its one store request per attempt
// to (BudgetStore in index.d.cts, the component's `budget-store.call`: one
// call, atomic per endpoint; `decide` needs a synchronous answer, `step` takes both).
const { storeApply, EMPTY_HELD } = require('./ops.cjs');

/**
 * Process-local counts: each request is answered by the component's
 * `store-apply` on what this store holds for the endpoint and bucket width
 * (the host never computes a bucket nor judges a reply). Synchronous, so it
 * serves `decide` too. Right for one process; a fleet shares one store
 * (RedisBudgetStore).
 */
class InMemoryBudgetStore {
  /** window_ms -> endpoint_id -> held buckets */
  #held = new Map();

  call(request, budget, nowMs) {
    let byEndpoint = this.#held.get(request.window_ms);
    if (byEndpoint === undefined) {
      byEndpoint = new Map();
      this.#held.set(request.window_ms, byEndpoint);
    }
    const { reply, held } = storeApply(request, budget, nowMs, byEndpoint.get(request.endpoint_id) ?? EMPTY_HELD);
    byEndpoint.set(request.endpoint_id, held);
    return reply;
  }
}

/** A store call that did not answer in time. */
class StoreTimeoutError extends Error {
  constructor(ms) {
    super(`budget store did not answer within ${ms} ms`);
    this.name = 'StoreTimeoutError';
  }
}

/**
 * `promise`, or a rejection with `late()` (default a StoreTimeoutError) after
 * `ms`; the timer is cleared as soon as it settles, and a late answer is ignored.
 */
function withTimeout(promise, ms, late = () => new StoreTimeoutError(ms)) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

module.exports = { InMemoryBudgetStore, StoreTimeoutError, withTimeout };
