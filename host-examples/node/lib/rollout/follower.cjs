'use strict';
// The follower (docs/rollout.md "What a replica does"), driven: every
// decision is the component's (`rollout-open`, `rollout-step`: the record,
// the canary rule, the signature, what settles an epoch, the status record,
// the log lines). This file keeps the state text between steps and does the
// I/O the steps ask for: the store calls (store.cjs), the load checks and
// swap of the fetched bytes (lib/artifact/current.cjs, the same swap a file
// watch makes, source=redis), the log lines, the poll timer. A swap made
// outside the follower restarts the status's since_ms and counts once it is
// told (`artifactSwapped()`, the component's `swapped` input).
const os = require('node:os');
const { artifactInfo, swapArtifact } = require('../artifact/current.cjs');
const { openFollower, stepFollower } = require('./wire.cjs');
const { TrustedKeys } = require('./trust.cjs');
const store = require('./store.cjs');
const { callHook } = require('../hook.cjs');

/** The `source` label of an artifact swapped in from Redis (ArtifactInfo.source, refused events). */
const REDIS_SOURCE = 'redis';

class RolloutFollower {
  #redis;
  #opts;
  #state;
  #refusal = null;
  #status = null;
  #running = null;
  #timer = null;
  #run = {};

  /** The options and their defaults: FollowerOptions in index.d.cts. Throws RolloutError (rollout_input_invalid) for a replica id the component refuses. */
  constructor({ redis, trusted, replicaId, language = 'node', host = os.hostname(), timeoutMs = 250, fetchTimeoutMs = null,
    documentVersion = null, counts = null, log = () => {}, onRefusal = () => {}, nowMs = Date.now }) {
    if (redis == null || typeof redis.pipeline !== 'function') throw new TypeError('RolloutFollower: expected an ioredis client or Cluster as `redis`');
    if (!(trusted instanceof TrustedKeys)) throw new TypeError('RolloutFollower: expected `trusted` from readTrust or readTrustFile');
    if (!(Number.isSafeInteger(timeoutMs) && timeoutMs > 0)) throw new TypeError('RolloutFollower: timeoutMs must be a positive integer');
    this.#redis = redis;
    this.#opts = {
      timeoutMs, fetchTimeoutMs: fetchTimeoutMs ?? Math.max(timeoutMs, 5000),
      documentVersion: documentVersion ?? (() => artifactInfo().document_version),
      counts: counts ?? (() => ({ events: 0, dead_letters: 0 })),
      log, onRefusal, nowMs,
    };
    const config = { replica_id: replicaId, language, host, pid: process.pid, trust_pem: trusted.pem, since_ms: this.#now() };
    this.#state = openFollower(config).state;
  }

  #now() {
    return Math.floor(this.#opts.nowMs());
  }

  /** The latest refusal since start ({sha256, code, message, at_ms}), or null. */
  get refusal() {
    return this.#refusal;
  }

  /** The status record (docs/rollout.md "The status record") the last tick wrote, or null before any. */
  get lastStatus() {
    return this.#status === null ? null : JSON.parse(this.#status);
  }

  /** One tick (its TickResult kinds: index.d.cts). Never rejects; a tick called while one runs returns that one. */
  tick() {
    this.#running ??= this.#tick()
      .catch((error) => {
        this.#opts.log(`rollout: tick failed: ${error?.message ?? error}`);
        return { kind: 'error', error };
      })
      .finally(() => (this.#running = null));
    return this.#running;
  }

  /** Say that the artifact was swapped another way (swapArtifact, a file watch): the status's since_ms and counts start again now. */
  artifactSwapped() {
    this.#step(this.#runningInput('swapped'));
  }

  /** A `tick` or `swapped` input: the running artifact and the counts now. */
  #runningInput(op) {
    const c = this.#opts.counts();
    return {
      op, now_ms: this.#now(), sha256: artifactInfo().sha256, document_version: this.#opts.documentVersion() ?? '',
      events: c.events, dead_letters: c.dead_letters,
    };
  }

  async #tick() {
    let step = this.#step(this.#runningInput('tick'));
    let result = { kind: 'done' };
    let bytes = null; // the fetched artifact, kept for the load
    while (step.call !== null) {
      const call = step.call;
      let input;
      if (call.op === 'tick') {
        this.#status = call.status;
        input = await store.tick(this.#redis, call, this.#opts.timeoutMs);
      } else if (call.op === 'artifact_len') {
        input = await store.artifactLen(this.#redis, call, this.#opts.timeoutMs);
      } else if (call.op === 'artifact') {
        ({ input, bytes } = await store.fetchArtifact(this.#redis, call, this.#opts.fetchTimeoutMs));
      } else if (call.op === 'load') {
        const loaded = swapArtifact(bytes, { expectedSha256: call.sha256, label: REDIS_SOURCE }); // the pin: the checked digest
        bytes = null;
        input = loaded.ok ? { op: 'loaded' } : { op: 'loaded', code: loaded.error.code, message: loaded.error.detail };
        if (loaded.ok) result = { kind: 'swapped', sha256: call.sha256, info: loaded.info };
      } else {
        throw new TypeError(`the component asked for an unknown call ${JSON.stringify(call.op)}`);
      }
      if (input.error !== undefined) result = { kind: 'store_failed', error: input.error };
      step = this.#step(input);
      if (step.refused !== null) result = { kind: 'refused', refusal: step.refused };
    }
    return result;
  }

  /** One step: the new state kept, its log lines written, its refusal reported. */
  #step(input) {
    const answer = stepFollower(this.#state, input);
    this.#state = answer.state;
    for (const line of answer.log) this.#opts.log(line);
    if (answer.refused !== null) {
      this.#refusal = answer.refused;
      callHook(this.#opts.onRefusal, answer.refused);
    }
    return answer;
  }

  /** Tick every `intervalMs` in the background (the timer keeps no process alive); ticks never overlap. */
  start(intervalMs) {
    if (!(Number.isSafeInteger(intervalMs) && intervalMs > 0)) throw new TypeError('RolloutFollower#start: intervalMs must be a positive integer');
    this.stop();
    const run = this.#run; // a stop() or another start() ends this loop
    const next = () => {
      this.#timer = setTimeout(() => {
        this.tick().finally(() => run === this.#run && next());
      }, intervalMs);
      this.#timer.unref?.();
    };
    next();
  }

  /** Stop the background ticks. */
  stop() {
    clearTimeout(this.#timer);
    this.#timer = null;
    this.#run = {};
  }

  /** Stop ticking for good. */
  close() {
    this.stop();
  }
}

module.exports = { RolloutFollower, REDIS_SOURCE };
