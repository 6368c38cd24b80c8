'use strict';
// The follower (docs/rollout.md "What a replica does"): each tick is ONE
// pipelined round trip (HSET this replica's status record, GETRANGE 0 4096
// of the rollout record: never more than 4,097 bytes); when the record's epoch differs from the last one settled, the
// replica's desired artifact is fetched (HSTRLEN first: never more than it
// said), its key and signature checked, its sha256 compared, and then it is
// swapped in through the package's own swap (lib/artifact/current.cjs: the
// load checks of docs/artifact.md, the same swap a file watch makes).
// A store failure changes nothing and is retried next tick; a refusal keeps
// the running artifact, settles the epoch and is logged once.
//
// `redis` is an ioredis client or Cluster (anything with `pipeline()`
// offering hset/getrangeBuffer/exec, `hstrlen` and `hmgetBuffer`); the package
// itself depends on no Redis client.
const os = require('node:os');
const crypto = require('node:crypto');
const { ArtifactError, RolloutError } = require('../errors.cjs');
const { MAX_ARTIFACT_BYTES } = require('../artifact/read-file.cjs');
const { artifactInfo, swapArtifact, onArtifactChange } = require('../artifact/current.cjs');
const { STATE_KEY, REPLICAS_KEY, MAX_RECORD_BYTES, artifactKey, readRecord, desired } = require('./record.cjs');
const { TrustedKeys, verify } = require('./trust.cjs');
const { withTimeout } = require('../stores.cjs');
const { callHook } = require('../hook.cjs');

/** The `source` label of an artifact swapped in from Redis (ArtifactInfo.source, refused events). */
const REDIS_SOURCE = 'redis';
const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex');

/** `promise`, or a rejection after `ms` (the command may still answer later: ignored). */
const bounded = (promise, ms, what) => withTimeout(promise, ms, () => new Error(`${what}: no answer within ${ms} ms`));

/** A store failure (the tick changes nothing), as opposed to a refusal. */
class StoreFailure extends Error {}

class RolloutFollower {
  #redis;
  #trusted;
  #opts;
  #epoch = 0;
  #refusal = null;
  #refusedText = null;
  #sinceMs;
  #base;
  #failing = false;
  #running = null;
  #timer = null;
  #run = {};
  #stopListening;

  /** The options and their defaults: FollowerOptions in index.d.cts. */
  constructor({ redis, trusted, replicaId, language = 'node', host = os.hostname(), timeoutMs = 250, fetchTimeoutMs = null,
    documentVersion = null, counts = null, log = () => {}, onRefusal = () => {}, nowMs = Date.now }) {
    if (redis == null || typeof redis.pipeline !== 'function') throw new TypeError('RolloutFollower: expected an ioredis client or Cluster as `redis`');
    if (!(trusted instanceof TrustedKeys)) throw new TypeError('RolloutFollower: expected `trusted` from readTrust');
    const idBytes = typeof replicaId === 'string' ? Buffer.byteLength(replicaId, 'utf8') : 0;
    if (idBytes < 1 || idBytes > 200) throw new TypeError('RolloutFollower: the replica id must be 1 to 200 bytes of UTF-8');
    if (!(Number.isSafeInteger(timeoutMs) && timeoutMs > 0)) throw new TypeError('RolloutFollower: timeoutMs must be a positive integer');
    this.#redis = redis;
    this.#trusted = trusted;
    this.#opts = {
      replicaId, language, host, timeoutMs, fetchTimeoutMs: fetchTimeoutMs ?? Math.max(timeoutMs, 5000),
      documentVersion: documentVersion ?? (() => artifactInfo().document_version),
      counts: counts ?? (() => ({ events: 0, dead_letters: 0 })),
      log, onRefusal, nowMs,
    };
    this.#restart();
    this.#stopListening = onArtifactChange((e) => {
      if (e.kind !== 'refused') this.#restart();
    });
  }

  /** The running artifact was loaded or swapped in: its counters start again. */
  #restart() {
    this.#sinceMs = this.#opts.nowMs();
    this.#base = this.#opts.counts();
  }

  /** The last epoch settled (0 before any). */
  get epoch() {
    return this.#epoch;
  }

  /** The latest refusal since start ({sha256, code, message, at_ms}), or null. */
  get refusal() {
    return this.#refusal;
  }

  /** This replica's status record (docs/rollout.md "The status record"), as of now. */
  status() {
    const o = this.#opts;
    const info = artifactInfo();
    const c = o.counts();
    return {
      replica_id: o.replicaId,
      language: o.language,
      host: o.host,
      pid: process.pid,
      artifact_sha256: info.sha256,
      document_version: o.documentVersion() ?? '',
      since_ms: this.#sinceMs,
      events: c.events - this.#base.events,
      dead_letters: c.dead_letters - this.#base.dead_letters,
      seen_ms: o.nowMs(),
      epoch: this.#epoch,
      refusal: this.#refusal,
    };
  }

  /** One tick (its TickResult kinds: index.d.cts). Never rejects; a tick called while one runs returns that one. */
  tick() {
    this.#running ??= this.#tick()
      .catch((e) => this.#storeFailed(e)) // an answer of an unexpected shape: nothing changed
      .finally(() => (this.#running = null));
    return this.#running;
  }

  async #tick() {
    let text;
    try {
      const replies = await bounded(
        this.#redis.pipeline().hset(REPLICAS_KEY, this.#opts.replicaId, JSON.stringify(this.status()))
          .getrangeBuffer(STATE_KEY, 0, MAX_RECORD_BYTES).exec(),
        this.#opts.timeoutMs,
        'HSET + GETRANGE',
      );
      for (const [error] of replies) if (error) throw error;
      text = replies[1][1];
    } catch (e) {
      return this.#storeFailed(e);
    }
    this.#storeAnswered();
    if (text == null || text.length === 0) return { kind: 'none' }; // GETRANGE of no key: ""
    if (this.#refusedText !== null && text.equals(this.#refusedText)) return { kind: 'unchanged' };
    let record;
    try {
      record = readRecord(text);
    } catch (e) {
      if (!(e instanceof RolloutError)) throw e;
      this.#refusedText = text; // no epoch to settle: this text is refused once
      return this.#refuse(null, null, e);
    }
    this.#refusedText = null;
    if (record.epoch === this.#epoch) return { kind: 'unchanged' };
    const want = desired(record, this.#opts.replicaId);
    if (want === artifactInfo().sha256) return this.#settle(record.epoch, { kind: 'settled', epoch: record.epoch });
    let bytes;
    try {
      bytes = await this.#fetch(want);
    } catch (e) {
      if (!(e instanceof RolloutError || e instanceof ArtifactError)) {
        this.#storeFailed(e); // a store failure, or an answer no store gives: nothing settled
        return { kind: 'unsettled', error: e };
      }
      return this.#refuse(record.epoch, want, e);
    }
    const result = swapArtifact(bytes, { expectedSha256: want, label: REDIS_SOURCE }); // the pin is the checked digest
    if (!result.ok) return this.#refuse(record.epoch, want, result.error);
    return this.#settle(record.epoch, { kind: 'swapped', epoch: record.epoch, info: result.info });
  }

  /** Steps 2-6: the artifact's bytes, checked; throws StoreFailure, RolloutError or ArtifactError. */
  async #fetch(want) {
    const key = artifactKey(want);
    const ask = async (promise, ms, what) => {
      try {
        return await bounded(promise, ms, what);
      } catch (e) {
        throw new StoreFailure(`${what}: ${e?.message ?? e}`);
      }
    };
    const size = Number(await ask(this.#redis.hstrlen(key, 'bytes'), this.#opts.timeoutMs, 'HSTRLEN'));
    if (size === 0) throw new RolloutError('rollout_artifact_missing', `${key} has no bytes`);
    const tooLarge = (n) => new ArtifactError('artifact_too_large', `${key} holds ${n} bytes; an artifact is at most ${MAX_ARTIFACT_BYTES} bytes (4 MiB)`);
    if (size > MAX_ARTIFACT_BYTES) throw tooLarge(size);
    const [bytes, signature, keyId] = await ask(this.#redis.hmgetBuffer(key, 'bytes', 'signature', 'key_id'), this.#opts.fetchTimeoutMs, 'HMGET');
    const nil = ['bytes', 'signature', 'key_id'].filter((_, i) => [bytes, signature, keyId][i] == null);
    if (nil.length > 0) throw new RolloutError('rollout_artifact_missing', `${key} has no ${nil.join(', ')}`);
    if (bytes.length > MAX_ARTIFACT_BYTES) throw tooLarge(bytes.length); // rewritten since HSTRLEN
    const digest = sha256(bytes);
    verify(this.#trusted, keyId.toString('utf8'), signature.toString('utf8'), digest);
    if (digest !== want) throw new ArtifactError('artifact_sha256_mismatch', `${key} holds bytes whose sha256 is ${digest}`);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  }

  #settle(epoch, outcome) {
    this.#epoch = epoch;
    return outcome;
  }

  #refuse(epoch, sha, error) {
    const running = artifactInfo().sha256;
    if (epoch !== null) this.#epoch = epoch;
    const message = error.detail ?? error.message;
    this.#refusal = { sha256: sha, code: error.code, message, at_ms: this.#opts.nowMs() };
    this.#opts.log(`policy artifact refused source=redis sha256=${sha ?? 'none'} code=${error.code}: ${message}; keeping sha256=${running}`);
    callHook(this.#opts.onRefusal, this.#refusal);
    return { kind: 'refused', epoch: this.#epoch, refusal: this.#refusal };
  }

  #storeFailed(e) {
    if (!this.#failing) {
      this.#opts.log(`rollout: store unreachable, keeping sha256=${artifactInfo().sha256}, retrying every tick: ${e?.message ?? e}`);
    }
    this.#failing = true;
    return { kind: 'store_failed', error: e };
  }

  #storeAnswered() {
    if (this.#failing) this.#opts.log('rollout: store reachable again');
    this.#failing = false;
  }

  /** Tick every `intervalMs` in the background (the timer keeps no process alive); ticks never overlap. */
  start(intervalMs) {
    if (!(Number.isSafeInteger(intervalMs) && intervalMs > 0)) throw new TypeError('RolloutFollower#start: intervalMs must be a positive integer');
    this.stop();
    const run = this.#run; // a stop() or another start() ends this loop
    const next = () => {
      this.#timer = setTimeout(() => {
        this.tick()
          .catch((e) => this.#opts.log(`rollout: tick failed: ${e?.stack ?? e}`))
          .finally(() => run === this.#run && next());
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

  /** Stop ticking and stop hearing artifact swaps. */
  close() {
    this.stop();
    this.#stopListening();
  }
}

module.exports = { RolloutFollower, REDIS_SOURCE };
