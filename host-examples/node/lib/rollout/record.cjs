'use strict';
// The rollout record and the canary rule (docs/rollout.md "The rollout
// record", "Which artifact a replica runs"). The record is read with
// JSON.parse, every rule checked, then written back in its one canonical
// text and compared byte for byte with what was read: whitespace, key
// order, a duplicate key, `1.0` for `1`, an escape where none is needed
// all make the texts differ, so they are refused without a parser of our own.
const crypto = require('node:crypto');
const { RolloutError } = require('../errors.cjs');

/** The keys, all under one hash tag (one Redis Cluster slot). */
const STATE_KEY = 'retry-policy:{rollout}:state';
const REPLICAS_KEY = 'retry-policy:{rollout}:replicas';
const artifactKey = (sha256) => `retry-policy:{rollout}:artifact:${sha256}`;

/** The longest record text, in bytes. */
const MAX_RECORD_BYTES = 4096;
const MAX_PREVIOUS = 5;
const MAX_EPOCH = Number.MAX_SAFE_INTEGER; // 2^53 - 1
const SHA256 = /^[0-9a-f]{64}$/;

const invalid = (why) => new RolloutError('rollout_record_invalid', why);
const isSha = (v) => typeof v === 'string' && SHA256.test(v);
const isInt = (v, min, max) => Number.isSafeInteger(v) && v >= min && v <= max;
const sameKeys = (o, keys) => Object.keys(o).length === keys.length && keys.every((k) => Object.hasOwn(o, k));
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The replica's bucket: the first 4 bytes of sha256(UTF-8 of `replicaId`),
 * unsigned big-endian, modulo 100.
 */
function bucket(replicaId) {
  if (typeof replicaId !== 'string') throw new TypeError('bucket: expected the replica id as a string');
  return crypto.createHash('sha256').update(replicaId, 'utf8').digest().readUInt32BE(0) % 100;
}

/** The canonical text of a record (its keys in the doc's order, no whitespace). */
function canonicalRecord(record) {
  const canary = record.canary === null ? null : { sha256: record.canary.sha256, percent: record.canary.percent };
  return JSON.stringify({ v: record.v, epoch: record.epoch, stable: record.stable, canary, previous: [...record.previous] });
}

/** Every rule of the record's fields; throws rollout_record_invalid naming the first broken one. */
function checkRecord(r) {
  if (!isObject(r)) throw invalid('the record is not a JSON object');
  if (!sameKeys(r, ['v', 'epoch', 'stable', 'canary', 'previous'])) {
    throw invalid(`the record's fields are ${JSON.stringify(Object.keys(r))}; expected exactly v, epoch, stable, canary, previous`);
  }
  if (r.v !== 1) throw invalid(`v is ${JSON.stringify(r.v)}; this replica reads version 1`);
  if (!isInt(r.epoch, 1, MAX_EPOCH)) throw invalid(`epoch is ${JSON.stringify(r.epoch)}; expected an integer from 1 to 2^53 - 1`);
  if (!isSha(r.stable)) throw invalid(`stable is ${JSON.stringify(r.stable)}; expected a sha256 (64 lowercase hex digits)`);
  if (r.canary !== null) {
    const c = r.canary;
    if (!isObject(c) || !sameKeys(c, ['sha256', 'percent'])) throw invalid('canary is neither null nor an object of exactly sha256 and percent');
    if (!isSha(c.sha256)) throw invalid(`canary.sha256 is ${JSON.stringify(c.sha256)}; expected a sha256 (64 lowercase hex digits)`);
    if (c.sha256 === r.stable) throw invalid('canary.sha256 equals stable');
    if (!isInt(c.percent, 1, 100)) throw invalid(`canary.percent is ${JSON.stringify(c.percent)}; expected an integer from 1 to 100`);
  }
  if (!Array.isArray(r.previous) || r.previous.length > MAX_PREVIOUS) throw invalid(`previous is not an array of at most ${MAX_PREVIOUS} sha256s`);
  for (const p of r.previous) {
    if (!isSha(p)) throw invalid(`previous holds ${JSON.stringify(p)}; expected sha256s (64 lowercase hex digits)`);
    if (p === r.stable) throw invalid('previous holds stable');
  }
}

/**
 * Read a record text (a string, or UTF-8 bytes) -> a frozen record
 * {v, epoch, stable, canary: {sha256, percent} | null, previous}.
 * Throws RolloutError `rollout_record_invalid` for anything else.
 */
function readRecord(text) {
  let s = text;
  if (s instanceof Uint8Array) {
    if (s.length > MAX_RECORD_BYTES) throw invalid(`the record is ${s.length} bytes; at most ${MAX_RECORD_BYTES}`);
    try {
      s = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(s);
    } catch {
      throw invalid('the record is not UTF-8');
    }
  }
  if (typeof s !== 'string') throw new TypeError('readRecord: expected the record text (a string or bytes)');
  const size = Buffer.byteLength(s, 'utf8');
  if (size > MAX_RECORD_BYTES) throw invalid(`the record is ${size} bytes; at most ${MAX_RECORD_BYTES}`);
  let value;
  try {
    value = JSON.parse(s);
  } catch (e) {
    throw invalid(`the record is not JSON (${e.message})`);
  }
  checkRecord(value);
  if (canonicalRecord(value) !== s) {
    throw invalid('the record is not in its canonical text (fields in order v, epoch, stable, canary, previous; no whitespace; plain integers; no duplicate key)');
  }
  const canary = value.canary === null ? null : Object.freeze({ sha256: value.canary.sha256, percent: value.canary.percent });
  return Object.freeze({ v: 1, epoch: value.epoch, stable: value.stable, canary, previous: Object.freeze([...value.previous]) });
}

/** The sha256 the replica `replicaId` runs under `record`: the canary's when its bucket is below the canary's percent, else stable. */
function desired(record, replicaId) {
  if (record.canary !== null && bucket(replicaId) < record.canary.percent) return record.canary.sha256;
  return record.stable;
}

module.exports = {
  STATE_KEY, REPLICAS_KEY, artifactKey, MAX_RECORD_BYTES, bucket, readRecord, canonicalRecord, desired,
};
