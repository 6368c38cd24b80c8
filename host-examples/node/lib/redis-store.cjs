'use strict';
// The fleet's shared retry budget in Redis (fleet/README.md): every replica,
// whatever its language, answers the policy's store requests with the same
// script (fleet/budget.lua, copied into lib/fleet/ by ./setup),
// so the budget holds fleet-wide. ONE command per request:
//
//   EVALSHA sha 1 KEYS[1]=storeKey(request)
//           ARGV = op bucket window_ms now_ms ratio min_sample sliding skew_check
//   -> [reserved (0/1), cur_total, cur_retries, prev_total, prev_retries]
//
// The store's first requests are sent as EVAL (which also caches the script
// on the server), so a fresh server costs no extra command; later ones as
// EVALSHA. On NOSCRIPT (Redis restarted, SCRIPT FLUSH, failover) nothing
// ran, so that one command is sent again as EVAL with the script. Any error rejects;
// the RetryPolicy bounds the call with its store timeout and reads every
// failure as "unavailable" (fails closed). Works with an ioredis client or
// Cluster (the key holds one hash tag per endpoint, so one slot).
const fs = require('node:fs');
const path = require('node:path');
const { storeKey } = require('./ops.cjs');
const { withTimeout } = require('./stores.cjs');

const MAX_CACHED_KEYS = 4096;
const SCRIPT_PATH = path.join(__dirname, 'fleet', 'budget.lua');

/** The script's reply as a reservation (its shape is then the core's to judge). */
function reservation(reply) {
  if (!Array.isArray(reply) || reply.length !== 5) {
    throw new Error(`budget.lua: expected [reserved, cur_total, cur_retries, prev_total, prev_retries], got ${JSON.stringify(reply)}`);
  }
  const [reserved, ct, cr, pt, pr] = reply;
  return {
    reserved: reserved === 1 ? true : reserved === 0 ? false : reserved,
    counts: { current: { total: ct, retries: cr }, previous: { total: pt, retries: pr } },
  };
}

class RedisBudgetStore {
  #redis;
  #script;
  #sha;
  #skew;
  #cached = false; // the server has answered one of our EVALs: EVALSHA from now on
  #cachedKeys = null; // on a Cluster: the keys whose node answered an EVAL (bounded)

  /** `redis`: an ioredis client or Cluster; options: RedisBudgetStoreOptions in index.d.cts. */
  constructor(redis, options = {}) {
    if (redis === null || typeof redis !== 'object' || typeof redis.evalsha !== 'function' || typeof redis.eval !== 'function') {
      throw new TypeError('RedisBudgetStore: expected an ioredis client (with evalsha and eval)');
    }
    this.#redis = redis;
    this.#script = options.script ?? fs.readFileSync(SCRIPT_PATH, 'utf8');
    // node:crypto is loaded here, not at import: most processes never build a Redis store.
    this.#sha = require('node:crypto').createHash('sha1').update(this.#script).digest('hex');
    this.#skew = options.skewCheck === false ? '0' : '1';
    // On a Cluster each node caches scripts on its own: "cached" is known
    // per key (its slot's node), so no attempt pays NOSCRIPT + EVAL.
    if (redis.isCluster === true) this.#cachedKeys = new Set();
  }

  #isCached(key) {
    return this.#cachedKeys === null ? this.#cached : this.#cachedKeys.has(key);
  }

  #markCached(key) {
    if (this.#cachedKeys === null) {
      this.#cached = true;
      return;
    }
    if (this.#cachedKeys.size >= MAX_CACHED_KEYS) this.#cachedKeys.clear();
    this.#cachedKeys.add(key);
  }

  #args(op, bucket, windowMs, nowMs, budget) {
    return [op, String(bucket), String(windowMs), String(nowMs), String(budget.ratio), String(budget.min_sample), budget.sliding ? '1' : '0', this.#skew];
  }

  /**
   * ONE script call: EVAL the first time (per key's node), then EVALSHA;
   * NOSCRIPT sends that one command again as EVAL. Also one script call
   * exactly as the delivery engine's `store_call` action gives it
   * (docs/engine.md section 6): `key` and `argv` (8 or 18 strings);
   * resolves the script's raw reply (its shape is the engine's to judge).
   */
  async command(key, args) {
    if (!this.#isCached(key)) {
      const reply = await this.#redis.eval(this.#script, 1, key, ...args);
      this.#markCached(key);
      return reply;
    }
    try {
      return await this.#redis.evalsha(this.#sha, 1, key, ...args);
    } catch (e) {
      if (!/^NOSCRIPT/.test(String(e?.message))) throw e;
      return this.#redis.eval(this.#script, 1, key, ...args);
    }
  }

  /** Answer one request from `evaluate` with one script call. */
  async call(request, budget, nowMs) {
    const key = storeKey(request);
    return reservation(await this.command(key, this.#args(request.op, request.bucket, request.window_ms, nowMs, budget)));
  }

}

/**
 * Why Redis's `maxmemory-policy` endangers the budget, or null. Under any
 * policy but `noeviction` Redis may evict budget hashes when memory is full:
 * counts silently reset and retries are silently allowed (fleet/README.md).
 */
function evictionWarning(policy) {
  if (policy === 'noeviction') return null;
  return `Redis maxmemory-policy is '${policy}': budget keys can be evicted, which silently resets the counts and allows retries; use maxmemory-policy noeviction for the budget database`;
}

/**
 * Ask Redis for its eviction policy once, at start: the warning, or null
 * (also when Redis refuses CONFIG, as managed services do: nothing known).
 * `redis` is an ioredis client or Cluster (a Cluster asks one node).
 */
async function checkEviction(redis, timeoutMs = 250) {
  try {
    const reply = await withTimeout(redis.call('CONFIG', 'GET', 'maxmemory-policy'), timeoutMs);
    return Array.isArray(reply) && reply.length === 2 ? evictionWarning(String(reply[1])) : null;
  } catch {
    return null;
  }
}

module.exports = { RedisBudgetStore, evictionWarning, checkEviction };
