'use strict';
// The fleet's shared retry budget in Redis (fleet/README.md): every replica,
// whatever its language, counts attempts with the same script
// (fleet/budget.lua, copied into lib/fleet/ by scripts/build-wasm) under the
// same keys, so the budget holds fleet-wide.
//
//   rb:{<endpoint_id>}:<window_ms>:<bucket>   hash: t = attempts, r = retries
//
// Works with an ioredis client (or anything with the same `script`,
// `evalsha` and `eval` methods). `reserve` checks the budget and counts the
// retry in one atomic round trip; RetryPolicy uses it when present.
const fs = require('node:fs');
const path = require('node:path');

const SCRIPT_PATH = path.join(__dirname, 'fleet', 'budget.lua');

function bucketKey(endpointId, windowMs, bucket) {
  return `rb:{${endpointId}}:${windowMs}:${bucket}`;
}

function counts(reply) {
  if (!Array.isArray(reply) || reply.length !== 5) throw new Error(`budget.lua: unexpected reply ${JSON.stringify(reply)}`);
  const [ct, cr, pt, pr, reserved] = reply.map(Number);
  return {
    counts: { current: { total: ct, retries: cr }, previous: { total: pt, retries: pr } },
    reserved: reserved === 1,
  };
}

class RedisBudgetStore {
  #redis;
  #script;
  #sha = null;

  /**
   * @param redis  an ioredis client (or Cluster)
   * @param options {script}: the Lua source (defaults to the shipped fleet/budget.lua)
   */
  constructor(redis, options = {}) {
    if (redis === null || typeof redis !== 'object' || typeof redis.evalsha !== 'function' || typeof redis.eval !== 'function') {
      throw new TypeError('RedisBudgetStore: expected an ioredis client (with evalsha and eval)');
    }
    this.#redis = redis;
    this.#script = options.script ?? fs.readFileSync(SCRIPT_PATH, 'utf8');
  }

  async #run(endpointId, windowMs, bucket, args) {
    const keys = [bucketKey(endpointId, windowMs, bucket), bucketKey(endpointId, windowMs, bucket - 1)];
    if (this.#sha === null) this.#sha = await this.#redis.script('LOAD', this.#script);
    try {
      return counts(await this.#redis.evalsha(this.#sha, 2, ...keys, ...args));
    } catch (e) {
      // The server forgot the script (restart, SCRIPT FLUSH, failover): send it whole.
      if (!/NOSCRIPT/.test(String(e && e.message))) throw e;
      return counts(await this.#redis.eval(this.#script, 2, ...keys, ...args));
    }
  }

  /** Counts of `bucket` and `bucket - 1`. */
  async read(endpointId, windowMs, bucket) {
    return (await this.#run(endpointId, windowMs, bucket, ['read', '0', '0', String(windowMs), '0', '0', '0'])).counts;
  }

  /** Count one attempt (and one retry if `isRetry`). */
  async recordAttempt(endpointId, windowMs, bucket, isRetry) {
    await this.#run(endpointId, windowMs, bucket, ['record', isRetry ? '1' : '0', '0', String(windowMs), '0', '0', '0']);
  }

  /** Atomically: if the budget allows, count the retry. The counts are those before. */
  async reserve(endpointId, windowMs, bucket, nowMs, budget) {
    return this.#run(endpointId, windowMs, bucket, [
      'reserve',
      '0',
      String(nowMs),
      String(windowMs),
      String(budget.ratio),
      String(budget.min_sample),
      budget.sliding ? '1' : '0',
    ]);
  }
}

module.exports = { RedisBudgetStore, bucketKey };
