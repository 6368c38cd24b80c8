// The policy artifact (docs/artifact.md): the container reader on
// truncated, oversized and duplicate-section input; every loading check's
// error code; the environment's RETRY_POLICY_ARTIFACT (and its pin); the
// embedded document; swapping (checked first, a refusal keeps the old one,
// a step in flight finishes on its artifact) and the file watch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import {
  ArtifactError,
  RetryPolicy,
  appendCustomSection,
  artifactInfo,
  classifyStatus,
  swapArtifact,
  watchArtifact,
  onArtifactChange,
  plan,
} from '@webhook/retry-policy';

const require = createRequire(import.meta.url);
const { readComponent } = require('../lib/artifact/reader.cjs');
const { loadArtifact, selfTest } = require('../lib/artifact/load.cjs');
const here = path.dirname(fileURLToPath(import.meta.url));
const SHIPPED_PATH = path.resolve(here, '../lib/retry_policy.wasm');
const SHIPPED = new Uint8Array(fs.readFileSync(SHIPPED_PATH));
const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'artifact-test-'));
const DOC = { version: 'embedded-7', classes: { storm: { window_ms: 60_000, backoff: { base_ms: 100, factor: 2, cap_ms: 1000 } } } };

function refused(f, code, pattern) {
  assert.throws(f, (e) => {
    assert.ok(e instanceof ArtifactError, `not an ArtifactError: ${e?.stack}`);
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

/** `bytes` with every occurrence of ASCII `from` replaced by `to` (same length). */
function patched(bytes, from, to) {
  assert.equal(from.length, to.length);
  const out = Uint8Array.from(bytes);
  const f = Buffer.from(from);
  let n = 0;
  for (let i = Buffer.from(out.buffer).indexOf(f); i >= 0; i = Buffer.from(out.buffer).indexOf(f, i + 1)) {
    out.set(Buffer.from(to), i);
    n++;
  }
  assert.ok(n > 0, `${from} not found`);
  return out;
}

test('the reader finds the main module and the custom sections of the shipped artifact', () => {
  const c = readComponent(SHIPPED);
  assert.ok(c.mainExports.includes('cabi_realloc'));
  assert.ok(c.mainExports.includes('webhook:retry-policy/policy@1.0.0#engine-feed'));
  assert.equal(Buffer.from(c.main.subarray(0, 4)).toString('latin1'), '\0asm');
  assert.ok(c.custom.has('webhook-retry-policy:build'), [...c.custom.keys()].join(', '));
});

/** Offsets where a top-level section ends (a cut there leaves a shorter, well-formed file). */
function sectionEnds(bytes) {
  const ends = new Set([8]);
  for (let at = 8; at < bytes.length; ) {
    let size = 0;
    let i = at + 1;
    for (let shift = 0; ; shift += 7, i++) {
      size += (bytes[i] & 0x7f) * 2 ** shift;
      if ((bytes[i] & 0x80) === 0) break;
    }
    at = i + 1 + size;
    ends.add(at);
  }
  return ends;
}

test('the reader refuses a file truncated inside a section at every cut, naming the byte, and never throws anything else', () => {
  const ends = sectionEnds(SHIPPED);
  let cuts = 0;
  for (let cut = 0; cut < SHIPPED.length; cut += 97) {
    if (ends.has(cut)) continue;
    refused(() => readComponent(SHIPPED.subarray(0, cut)), 'artifact_invalid', /byte \d+|header/);
    cuts++;
  }
  assert.ok(cuts > 1000, `${cuts} cuts`);
  // a cut at a section boundary is a shorter file; without the main module it is refused too
  refused(() => readComponent(SHIPPED.subarray(0, 8)), 'artifact_invalid', /no main module/);
});

test('the reader refuses a section that claims more bytes than remain, and an oversized LEB128', () => {
  const c = appendCustomSection(SHIPPED, 'x', 'abc');
  const claimed = Uint8Array.from(c);
  claimed[SHIPPED.length + 1] = 0x7f; // the last section now claims 127 bytes
  refused(() => readComponent(claimed), 'artifact_invalid', new RegExp(`section at byte ${SHIPPED.length} .*claims 127 bytes`));
  const huge = Uint8Array.from([...SHIPPED, 0, 0xff, 0xff, 0xff, 0xff, 0x7f]);
  refused(() => readComponent(huge), 'artifact_invalid', /does not fit in 32 bits/);
  refused(() => readComponent(Uint8Array.from([...SHIPPED, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01])), 'artifact_invalid', /longer than 5 bytes/);
});

test('the reader refuses a duplicate custom section, a core module header, and no main module', () => {
  const once = appendCustomSection(SHIPPED, 'webhook-retry-policy:document', JSON.stringify(DOC));
  assert.doesNotThrow(() => readComponent(once));
  refused(() => readComponent(appendCustomSection(once, 'webhook-retry-policy:document', '{}')), 'artifact_invalid', /a second custom section `webhook-retry-policy:document`/);
  const main = readComponent(SHIPPED).main;
  refused(() => readComponent(main), 'artifact_invalid', /expected the header 00 61 73 6d 0d 00 01 00/);
  refused(() => readComponent(patched(SHIPPED, 'cabi_realloc', 'cabi_reallod')), 'artifact_invalid', /no main module/);
});

test('appendCustomSection is the reader\'s inverse: the section reads back, the file stays a loadable artifact with another sha256', () => {
  const b = appendCustomSection(SHIPPED, 'note', 'hello');
  assert.equal(Buffer.from(readComponent(b).custom.get('note')).toString(), 'hello');
  const a = loadArtifact(b);
  assert.equal(a.info.sha256, sha(b));
  assert.notEqual(a.info.sha256, sha(SHIPPED));
  assert.equal(a.info.source, 'bytes');
});

test('every loading step refuses with its code: unreadable, sha256 mismatch, invalid, ABI mismatch, document invalid', () => {
  refused(() => loadArtifact(path.join(tmp, 'missing.wasm')), 'artifact_unreadable', /missing\.wasm/);
  refused(() => loadArtifact(SHIPPED, { expectedSha256: '0'.repeat(64) }), 'artifact_sha256_mismatch', new RegExp(`expected sha256 0{64}, the artifact's is ${sha(SHIPPED)}`));
  assert.equal(loadArtifact(SHIPPED, { expectedSha256: sha(SHIPPED) }).info.sha256, sha(SHIPPED));
  refused(() => loadArtifact(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])), 'artifact_invalid', /header/);
  refused(
    () => loadArtifact(patched(SHIPPED, 'webhook:retry-policy/policy@1.0.0', 'webhook:retry-policy/policy@0.3.0')),
    'artifact_abi_mismatch',
    /artifact implements webhook:retry-policy@0\.3\.0 \(abi unknown\); this host speaks webhook:retry-policy@1\.0\.0 \(abi 5\)/,
  );
  refused(() => loadArtifact(patched(SHIPPED, 'policy@1.0.0#store-apply', 'policy@1.0.0#store-applY')), 'artifact_abi_mismatch', /does not export webhook:retry-policy\/policy@1\.0\.0#store-apply/);
  refused(
    () => loadArtifact(appendCustomSection(SHIPPED, 'webhook-retry-policy:document', '{"classes": {"a": {"window_ms": 1000, "max_attempts": 3}}}')),
    'artifact_document_invalid',
    /the embedded document .* does not load: invalid_document/,
  );
  refused(() => loadArtifact(SHIPPED, { expectedSha256: 'ABC' }), 'artifact_pin_invalid', /the pin "ABC" is not a sha256/);
  assert.equal(loadArtifact(SHIPPED, { expectedSha256: sha(SHIPPED).toUpperCase() }).info.sha256, sha(SHIPPED));
});

test('the self-test refuses a wrong known answer or a trap, naming the call, what was expected and what came', () => {
  // an instance stand-in whose `run(f)` hands `f` a policy interface with one answer changed
  const good = loadArtifact(SHIPPED);
  const withAnswer = (name, impl) => ({ run: (f) => good.run((api) => f({ ...api, [name]: impl })) });
  assert.doesNotThrow(() => selfTest({ run: (f) => good.run(f) }));
  refused(() => selfTest(withAnswer('classifyStatus', () => 'retryable')), 'artifact_self_test_failed', /classify-status\(200\): expected "success", got "retryable"/);
  refused(() => selfTest(withAnswer('parseRetryAfter', () => 121000n)), 'artifact_self_test_failed', /parse-retry-after\("120", 0\): expected 120000, got 121000/);
  const trap = () => {
    throw new WebAssembly.RuntimeError('unreachable');
  };
  refused(() => selfTest(withAnswer('plan', trap)), 'artifact_self_test_failed', /plan\(.*\): expected .*got "RuntimeError: unreachable"/);
});

test('an embedded document is the current one of a RetryPolicy given none; a given document pins its own', () => {
  const bundled = appendCustomSection(SHIPPED, 'webhook-retry-policy:document', JSON.stringify(DOC));
  const a = loadArtifact(bundled);
  assert.equal(a.info.document_version, 'embedded-7');
  const r = swapArtifact(bundled);
  assert.ok(r.ok, r.error?.message);
  try {
    const rp = new RetryPolicy();
    assert.equal(rp.version, 'embedded-7');
    assert.deepEqual(rp.classes, ['storm']);
    assert.equal(rp.admit('storm', 0).max_attempts > 1, true);
    assert.equal(new RetryPolicy({ version: 'mine', classes: DOC.classes }).version, 'mine');
  } finally {
    assert.ok(swapArtifact(SHIPPED).ok);
  }
  assert.throws(() => new RetryPolicy(), { name: 'PolicyError', code: 'invalid_document' });
});

test('a refused swap keeps the current artifact and says why; a good one replaces it and listeners hear both', () => {
  const events = [];
  const stop = onArtifactChange((e) => events.push(e));
  const before = artifactInfo();
  const bad = swapArtifact(SHIPPED.subarray(0, 100));
  assert.equal(bad.ok, false);
  assert.equal(bad.error.code, 'artifact_invalid');
  assert.deepEqual(artifactInfo(), before);
  const other = appendCustomSection(SHIPPED, 'swap', '1');
  const good = swapArtifact(other);
  assert.ok(good.ok);
  assert.equal(artifactInfo().sha256, sha(other));
  assert.equal(good.previous.sha256, before.sha256);
  assert.equal(classifyStatus(503), 'retryable'); // later calls run on the new one
  assert.ok(swapArtifact(SHIPPED).ok);
  stop();
  assert.deepEqual(events.map((e) => e.kind), ['refused', 'swapped', 'swapped']);
});

test('a step in flight finishes on the artifact it began on while a swap lands', async () => {
  const DOC2 = { version: 'd', classes: { c: { window_ms: 60_000, backoff: { base_ms: 100, factor: 2, cap_ms: 1000 } } } };
  let swapped = null;
  const store = {
    async call(request, budget, nowMs) {
      swapped = swapArtifact(appendCustomSection(SHIPPED, 'in-flight', 'x')); // lands mid-step
      return { reserved: true, counts: { current: { total: 10, retries: 0 }, previous: { total: 10, retries: 0 } } };
    },
  };
  const rp = new RetryPolicy(DOC2, { store, clock: { nowMs: () => 1_000_000 } });
  const state = { event_id: 'e', endpoint_id: 'p', attempt: 1, max_attempts: 5, first_attempted_at_ms: 1_000_000, credentials_refreshed: false, class: 'c' };
  const d = await rp.step(state, { status: 503 });
  assert.ok(swapped.ok);
  assert.equal(d.stop_reason, null);
  assert.ok(swapArtifact(SHIPPED).ok);
});

test('watchArtifact swaps when the file\'s sha256 changes and reports a refused file once per sha256', () => {
  const file = path.join(tmp, 'watched.wasm');
  fs.writeFileSync(file, SHIPPED);
  const seen = [];
  const w = watchArtifact(file, { intervalMs: 60_000, onSwap: (r) => seen.push(r) });
  try {
    assert.ok(swapArtifact(SHIPPED).ok);
    assert.equal(w.check(), null); // same sha256: nothing to do
    fs.writeFileSync(file, SHIPPED.subarray(0, 50));
    assert.equal(w.check().ok, false);
    assert.equal(w.check(), null); // the same refused file: reported once
    const other = appendCustomSection(SHIPPED, 'watched', '2');
    fs.writeFileSync(file, other);
    assert.equal(w.check().ok, true);
    assert.equal(artifactInfo().sha256, sha(other));
    assert.equal(artifactInfo().source, file);
    assert.deepEqual(seen.map((r) => r.ok), [false, true]);
  } finally {
    w.close();
    assert.ok(swapArtifact(SHIPPED).ok);
  }
});

const node = (code, env) =>
  spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: path.resolve(here, '..'),
    env: { ...process.env, RETRY_POLICY_ARTIFACT: '', RETRY_POLICY_ARTIFACT_SHA256: '', ...env },
    encoding: 'utf8',
  });

test('RETRY_POLICY_ARTIFACT is honoured by the library default, its pin too, and set-but-unreadable is an error', () => {
  const other = appendCustomSection(SHIPPED, 'env', '3');
  const file = path.join(tmp, 'env.wasm');
  fs.writeFileSync(file, other);
  const probe = "import { artifactInfo, classifyStatus } from '@webhook/retry-policy'; classifyStatus(200); const i = artifactInfo(); console.log(JSON.stringify([i.sha256, i.source]));";
  let r = node(probe, { RETRY_POLICY_ARTIFACT: file });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [sha(other), file]);
  r = node(probe, {});
  assert.deepEqual(JSON.parse(r.stdout), [sha(SHIPPED), 'embedded']);
  r = node(probe, { RETRY_POLICY_ARTIFACT: file, RETRY_POLICY_ARTIFACT_SHA256: sha(SHIPPED) });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /artifact_sha256_mismatch/);
  r = node(probe, { RETRY_POLICY_ARTIFACT: path.join(tmp, 'nope.wasm') });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /artifact_unreadable: cannot read .*nope\.wasm/);
});

test('the conformance runner honours RETRY_POLICY_ARTIFACT: an unreadable one is one clear error and one failure, exit 1 as in every host', () => {
  const vectors = path.resolve(here, '../../../tests/vectors');
  const r = spawnSync(path.resolve(here, '../conformance'), [vectors], {
    env: { ...process.env, RETRY_POLICY_ARTIFACT: path.join(tmp, 'nope.wasm') },
    encoding: 'utf8',
  });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /node: artifact_unreadable/);
  assert.equal(r.stdout, 'node: 0 passed, 1 failed\n');
});

test('the shipped copy is byte-identical to dist/retry_policy.wasm (scripts/build-component writes both)', (t) => {
  const dist = path.resolve(here, '../../../dist/retry_policy.wasm');
  if (!fs.existsSync(dist)) return t.skip('dist/retry_policy.wasm is not built (scripts/build-component)');
  assert.equal(sha(SHIPPED), sha(fs.readFileSync(dist)), 'lib/retry_policy.wasm is stale: run scripts/build-component');
});

test('plan through the default artifact still answers after all of the above', () => {
  assert.equal(plan({ base_ms: 1000, factor: 2, cap_ms: 4000, jitter: 'none' }, 10_000, 16).max_attempts, 4);
});
