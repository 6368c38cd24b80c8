// tests/vectors-rollout/rollout.json through the package's `rollout`
// (docs/rollout.md), Wycheproof style: a case with a field this runner does
// not know fails, a failing case is named, and the number of cases run per
// group is asserted (a runner that skipped some could not pass).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollout, RolloutError } from '@webhook/retry-policy';

const here = path.dirname(fileURLToPath(import.meta.url));
const FILE = path.resolve(here, '../../../tests/vectors-rollout/rollout.json');
const vectors = JSON.parse(fs.readFileSync(FILE, 'utf8'));
/** The cases each group holds today (87 in all); a regenerated file with more updates these. */
const EXPECTED_COUNTS = { bucket: 11, select: 51, trust: 8, verify: 17 };
const FIELDS = {
  bucket: ['replica_id', 'bucket'],
  select: ['name', 'record', 'replica_id', 'expect'],
  trust: ['name', 'pem', 'expect'],
  verify: ['name', 'trust', 'key_id', 'signature', 'artifact_sha256', 'expect'],
};

/** Run `check(c)` on every case of `group`, naming the failing ones; returns how many ran. */
function runGroup(group, check) {
  let ran = 0;
  const failures = [];
  for (const [i, c] of vectors[group].entries()) {
    const name = `${group}[${i}] ${c.name ?? JSON.stringify(c.replica_id)}`;
    try {
      const unknown = Object.keys(c).filter((k) => !FIELDS[group].includes(k));
      assert.deepEqual(unknown, [], `unknown field(s) ${unknown.join(', ')}`);
      check(c);
    } catch (e) {
      failures.push(`${name}: ${e.message}`);
    }
    ran += 1;
  }
  assert.deepEqual(failures, [], `failing cases:\n${failures.join('\n')}`);
  return ran;
}

/** `f()`'s value, or {error: code} for a RolloutError (anything else fails the case). */
function outcome(f) {
  try {
    return f();
  } catch (e) {
    if (e instanceof RolloutError) return { error: e.code };
    throw e;
  }
}

const ran = {};

test('the vector file has only the known top-level fields and the signed message prefix of the package', () => {
  assert.deepEqual(Object.keys(vectors).sort(), ['about', 'bucket', 'select', 'signed_message_prefix', 'trust', 'verify']);
  assert.equal(vectors.signed_message_prefix, rollout.SIGNED_MESSAGE_PREFIX);
});

test('every bucket case: sha256 of the replica id, first four bytes big-endian, modulo 100', () => {
  ran.bucket = runGroup('bucket', (c) => assert.equal(rollout.bucket(c.replica_id), c.bucket));
});

test('every select case: the record is read (or refused) and the desired sha256 chosen by the canary rule', () => {
  ran.select = runGroup('select', (c) => {
    const got = outcome(() => ({ desired: rollout.desired(rollout.readRecord(c.record), c.replica_id) }));
    assert.deepEqual(got, c.expect);
    if (got.desired !== undefined) assert.equal(rollout.canonicalRecord(rollout.readRecord(c.record)), c.record);
  });
});

test('every trust case: the key ids of the trust file, or rollout_trust_invalid', () => {
  ran.trust = runGroup('trust', (c) => {
    assert.deepEqual(outcome(() => ({ key_ids: rollout.readTrust(c.pem).keyIds })), c.expect);
  });
});

test('every verify case: ok, rollout_key_unknown or rollout_signature_invalid', () => {
  ran.verify = runGroup('verify', (c) => {
    const trusted = rollout.readTrust(c.trust);
    const got = outcome(() => rollout.verify(trusted, c.key_id, c.signature, c.artifact_sha256) && 'ok');
    assert.deepEqual(got, c.expect === 'ok' ? 'ok' : { error: c.expect });
  });
});

test('the runner ran every case of every group (87 in all)', () => {
  assert.deepEqual(ran, EXPECTED_COUNTS);
  const total = Object.values(ran).reduce((a, b) => a + b, 0);
  process.stdout.write(`# rollout vectors: ${total} passed\n`);
  assert.equal(total, 87);
});
