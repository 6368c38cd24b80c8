// Reload without restart (issue 12): RetryPolicy#reload validates before the
// swap, a bad document keeps the old one and says why, events keep the
// policy (policy_hash) they were admitted under, and watchPolicyFile
// reloads a changed file. A RetryPolicy given no document follows the
// artifact's embedded one across swaps (docs/artifact.md, step 6 and
// "Swapping"); a given or reloaded document is pinned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RetryPolicy, ManualClock, watchPolicyFile, PolicyError, appendCustomSection, artifactInfo, swapArtifact, watchArtifact } from '@webhook/retry-policy';

const doc = (version, base_ms, window_ms = 60_000) => ({
  version,
  classes: { n: { window_ms, hard_cap: 8, backoff: { base_ms, factor: 2, cap_ms: 100_000, jitter: 'none' } } },
});
const stateOf = (admission, id) => ({
  class: 'n', event_id: id, endpoint_id: 'ep', attempt: 1, max_attempts: admission.max_attempts,
  first_attempted_at_ms: admission.first_attempted_at_ms, credentials_refreshed: false, policy_hash: admission.policy_hash,
});

test('a reloaded document applies to new events while admitted ones keep their schedule and hash', async () => {
  const clock = new ManualClock(1_700_000_000_000);
  const policy = new RetryPolicy(doc('v1', 1000), { clock });
  const old = policy.admit('n');
  assert.deepEqual(policy.reload(doc('v2', 5000)), { ok: true, version: 'v2', previousVersion: 'v1' });
  assert.equal(policy.version, 'v2');
  const fresh = policy.admit('n');
  assert.notEqual(fresh.policy_hash, old.policy_hash);
  assert.equal(fresh.policy_version, 'v2');
  const before = await policy.step(stateOf(old, 'a'), { status: 503 });
  const after = await policy.step(stateOf(fresh, 'b'), { status: 503 });
  assert.equal(before.retry.delay_ms, 1000, 'the admitted event lost its policy');
  assert.equal(after.retry.delay_ms, 5000);
  assert.equal(policy.policyHashMisses, 0);
  // no hash (an old record): the current document
  const { policy_hash: _h, ...legacy } = stateOf(old, 'c');
  assert.equal((await policy.step(legacy, { status: 503 })).retry.delay_ms, 5000);
});

test('a bad document keeps the old one and reports the code and field', () => {
  const policy = new RetryPolicy(doc('v1', 1000));
  for (const bad of ['{not json', { classes: { n: { window_ms: 1, backoff: { base_ms: 0, factor: 2, cap_ms: 1, jitter: 'none' } } } }, 42, null]) {
    const r = policy.reload(bad);
    assert.equal(r.ok, false, JSON.stringify(bad));
    assert.ok(r.error instanceof PolicyError, String(r.error));
    assert.equal(typeof r.error.code, 'string');
  }
  assert.equal(policy.reload(doc('x', 0)).error.field, 'classes.n.backoff.base_ms');
  assert.equal(policy.version, 'v1');
  assert.equal(policy.admit('n').policy_version, 'v1');
});

test('a state whose hash no known document has is judged by the current one and counted', async () => {
  const policy = new RetryPolicy(doc('v1', 1000));
  const a = policy.admit('n');
  const d = await policy.step({ ...stateOf(a, 'x'), policy_hash: '0000000000000000' }, { status: 503 });
  assert.equal(d.retry.delay_ms, 1000);
  assert.equal(policy.policyHashMisses, 1);
  await assert.rejects(policy.step({ ...stateOf(a, 'y'), policy_hash: 7 }, { status: 503 }), (e) => e.field === 'state.policy_hash');
});

test('watchPolicyFile reloads a changed file and keeps the old document when the new one is bad', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reload-'));
  const file = path.join(dir, 'policy.json');
  fs.writeFileSync(file, JSON.stringify(doc('v1', 1000)));
  const policy = new RetryPolicy(fs.readFileSync(file, 'utf8'));
  const seen = [];
  const watch = watchPolicyFile(policy, file, { intervalMs: 20, onReload: (r) => seen.push(r.ok ? r.version : `bad:${r.error.code}`) });
  const until = async (n) => {
    for (let i = 0; i < 200 && seen.length < n; i++) await new Promise((r) => setTimeout(r, 10));
  };
  try {
    await new Promise((r) => setTimeout(r, 100)); // the watch's first stat
    fs.writeFileSync(`${file}.new`, JSON.stringify(doc('v2', 2000)));
    fs.renameSync(`${file}.new`, file); // a deploy's write-then-rename
    await until(1);
    assert.equal(policy.version, 'v2');
    fs.writeFileSync(file, '{"classes": {"n": {"window_ms": "soon"}}}');
    await until(2);
    assert.equal(policy.version, 'v2');
    assert.match(seen[1], /^bad:/);
    fs.rmSync(file);
    assert.match(String((await watch.check()).error.message), /cannot read/);
    assert.equal(policy.version, 'v2');
  } finally {
    watch.close();
  }
});

const SHIPPED = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../lib/retry_policy.wasm'));
/** The shipped artifact with `document` embedded (what `retry-policy bundle` writes). */
const bundle = (document) => appendCustomSection(SHIPPED, 'webhook-retry-policy:document', JSON.stringify(document));
/** Run `f` with `bytes` as the current artifact, then the shipped one again. */
async function onArtifact(bytes, f) {
  const r = swapArtifact(bytes);
  assert.ok(r.ok, r.error?.message);
  try {
    await f();
  } finally {
    assert.ok(swapArtifact(SHIPPED).ok);
  }
}

test('a swap to a bundle with another document version changes the current version of a policy given none', () =>
  onArtifact(bundle(doc('bundled-1', 1000)), () => {
    const policy = new RetryPolicy();
    assert.equal(policy.version, 'bundled-1');
    assert.ok(swapArtifact(bundle(doc('bundled-2', 5000))).ok);
    assert.equal(policy.version, 'bundled-2');
    assert.equal(policy.admit('n', 0).policy_version, 'bundled-2');
  }));

test('a watched artifact file that brings another document changes the current version of a policy given none', () =>
  onArtifact(bundle(doc('bundled-1', 1000)), () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reload-artifact-'));
    const file = path.join(dir, 'policy.wasm');
    const policy = new RetryPolicy();
    fs.writeFileSync(file, bundle(doc('bundled-2', 5000)));
    const w = watchArtifact(file, { intervalMs: 60_000 });
    try {
      assert.equal(w.check().ok, true);
      assert.equal(artifactInfo().document_version, 'bundled-2');
      assert.equal(policy.version, 'bundled-2');
    } finally {
      w.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }));

test('a swap to an artifact without a document keeps the followed document, and a later bundle is followed again', () =>
  onArtifact(bundle(doc('bundled-1', 1000)), () => {
    const policy = new RetryPolicy();
    assert.ok(swapArtifact(SHIPPED).ok); // embeds none
    assert.equal(policy.version, 'bundled-1');
    assert.ok(swapArtifact(bundle(doc('bundled-2', 5000))).ok);
    assert.equal(policy.version, 'bundled-2');
  }));

test('a policy given a document keeps its own across a swap to a bundle', () =>
  onArtifact(bundle(doc('bundled-1', 1000)), async () => {
    const pinned = new RetryPolicy(doc('mine', 3000), { clock: new ManualClock(1_700_000_000_000) });
    assert.ok(swapArtifact(bundle(doc('bundled-2', 5000))).ok);
    assert.equal(pinned.version, 'mine');
    const a = pinned.admit('n');
    assert.equal(a.policy_version, 'mine');
    assert.equal((await pinned.step(stateOf(a, 'p'), { status: 503 })).retry.delay_ms, 3000);
  }));

test('a policy that followed the artifact keeps a document reloaded by the caller across later swaps', () =>
  onArtifact(bundle(doc('bundled-1', 1000)), () => {
    const policy = new RetryPolicy();
    assert.deepEqual(policy.reload(doc('mine', 3000)), { ok: true, version: 'mine', previousVersion: 'bundled-1' });
    assert.ok(swapArtifact(bundle(doc('bundled-2', 5000))).ok);
    assert.equal(policy.version, 'mine');
  }));

test('an event admitted before a swap to a bundle keeps its policy hash and the policy it was admitted under', () =>
  onArtifact(bundle(doc('bundled-1', 1000)), async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const policy = new RetryPolicy(null, { clock });
    const old = policy.admit('n');
    assert.ok(swapArtifact(bundle(doc('bundled-2', 5000))).ok);
    const fresh = policy.admit('n');
    assert.deepEqual([old.policy_version, fresh.policy_version], ['bundled-1', 'bundled-2']);
    assert.notEqual(fresh.policy_hash, old.policy_hash);
    assert.equal((await policy.step(stateOf(old, 'a'), { status: 503 })).retry.delay_ms, 1000, 'the admitted event lost its policy');
    assert.equal((await policy.step(stateOf(fresh, 'b'), { status: 503 })).retry.delay_ms, 5000);
    assert.equal(policy.policyHashMisses, 0);
  }));
