'use strict';
// The follower's store calls (docs/rollout.md "The follower in the
// component"), each made as the component names it and answered as the
// component's next input: a store failure (an error, no answer in time, an
// answer of a shape no Redis gives) is `{error}`, one line.
//
// `redis` is an ioredis client or Cluster (anything with `pipeline()`
// offering hset/getrangeBuffer/exec, `hstrlen` and `hmgetBuffer`); the
// package itself depends on no Redis client.
const crypto = require('node:crypto');
const { withTimeout } = require('../stores.cjs');

/** The keys, under one hash tag (one Redis Cluster slot). */
const STATE_KEY = 'retry-policy:{rollout}:state';
const REPLICAS_KEY = 'retry-policy:{rollout}:replicas';
/** GETRANGE's last index: at most 4,097 bytes of record are read. */
const MAX_RECORD_BYTES = 4096;

/** A Redis bulk reply as UTF-8, invalid bytes replaced by U+FFFD; null for nil. */
const utf8 = (reply) => (reply == null ? null : Buffer.from(reply).toString('utf8'));

/** `{op, ...answer(reply)}`, or `{op, error}` when `ask()` fails or is not answered within `ms`. */
async function answer(op, what, ms, ask, read) {
  try {
    const reply = await withTimeout(Promise.resolve().then(ask), ms, () => new Error(`no answer within ${ms} ms`));
    return { op, ...read(reply) };
  } catch (e) {
    return { op, error: `${what}: ${String(e?.message ?? e).split('\n')[0]}` };
  }
}

/** `{op: "tick", replica_id, status}`: HSET the status, GETRANGE the record, one pipelined round trip. */
function tick(redis, call, timeoutMs) {
  const ask = () => redis.pipeline().hset(REPLICAS_KEY, call.replica_id, call.status).getrangeBuffer(STATE_KEY, 0, MAX_RECORD_BYTES).exec();
  return answer('tick_reply', 'HSET + GETRANGE', timeoutMs, ask, (replies) => {
    for (const [error] of replies) if (error) throw error;
    return { text: utf8(replies[1][1]) };
  });
}

/** `{op: "artifact_len", key}`: HSTRLEN key bytes. */
function artifactLen(redis, call, timeoutMs) {
  return answer('artifact_len', 'HSTRLEN', timeoutMs, () => redis.hstrlen(call.key, 'bytes'), (reply) => {
    const len = Number(reply);
    if (!Number.isSafeInteger(len) || len < 0) throw new Error(`answered ${String(reply).slice(0, 40)}, not a length`);
    return { len };
  });
}

/**
 * `{op: "artifact", key}`: HMGET key bytes signature key_id, bounded by
 * `timeoutMs`. Returns {input, bytes}: the input carries the sha256 and
 * length of the bytes, which the host keeps for the load.
 */
async function fetchArtifact(redis, call, timeoutMs) {
  let bytes = null;
  const input = await answer('artifact', 'HMGET', timeoutMs, () => redis.hmgetBuffer(call.key, 'bytes', 'signature', 'key_id'), ([b, signature, keyId]) => {
    bytes = b == null ? null : new Uint8Array(b.buffer, b.byteOffset, b.length);
    const digest = bytes === null ? null : crypto.createHash('sha256').update(bytes).digest('hex');
    return { sha256: digest, len: bytes === null ? null : bytes.length, signature: utf8(signature), key_id: utf8(keyId) };
  });
  return { input, bytes: input.error === undefined ? bytes : null };
}

module.exports = { STATE_KEY, REPLICAS_KEY, MAX_RECORD_BYTES, tick, artifactLen, fetchArtifact };
