// tests/vectors-rollout/rollout.json run inside the artifact this package
// loads (docs/rollout.md: the record reader, the canary rule, the trust file
// and the signature are the component's), through its test-only
// `vector-case` with the format "rollout/<group>" and each case as JSON
// text. Wycheproof style: the component refuses a case with a field it does
// not know, a failing case is named, and the number of cases run per group
// is asserted (a runner that skipped some could not pass).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { vectorCase } from '../tools/vector-case.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const FILE = path.resolve(here, '../../../tests/vectors-rollout/rollout.json');
const vectors = JSON.parse(fs.readFileSync(FILE, 'utf8'));
/** The cases each group holds today (87 in all); a regenerated file with more updates these. */
const EXPECTED_COUNTS = { bucket: 11, select: 51, trust: 8, verify: 17 };
const GROUPS = Object.keys(EXPECTED_COUNTS);

const ran = {};

test('the vector file has only the known top-level fields', () => {
  assert.deepEqual(Object.keys(vectors).sort(), ['about', 'bucket', 'select', 'signed_message_prefix', 'trust', 'verify']);
});

for (const group of GROUPS) {
  test(`every ${group} case gets its expected answer from the artifact's vector-case("rollout/${group}")`, () => {
    const failures = [];
    let n = 0;
    for (const [i, c] of vectors[group].entries()) {
      const why = vectorCase(JSON.stringify(`rollout/${group}`), JSON.stringify(c));
      if (why !== null) failures.push(`${group}[${i}] ${c.name ?? JSON.stringify(c.replica_id)}: ${why}`);
      n += 1;
    }
    ran[group] = n;
    assert.deepEqual(failures, [], `failing cases:\n${failures.join('\n')}`);
  });
}

test('the runner ran every case of every group (87 in all)', () => {
  assert.deepEqual(ran, EXPECTED_COUNTS);
  const total = Object.values(ran).reduce((a, b) => a + b, 0);
  process.stdout.write(`# rollout vectors: ${total} passed\n`);
  assert.equal(total, 87);
});

test('a case the component would answer otherwise fails and is named (the runner can fail)', () => {
  const c = { ...vectors.bucket[0], bucket: (vectors.bucket[0].bucket + 1) % 100 };
  assert.match(vectorCase(JSON.stringify('rollout/bucket'), JSON.stringify(c)) ?? 'passed', /expected .* got /);
  const extra = { ...vectors.trust[0], surprise: 1 };
  assert.match(vectorCase(JSON.stringify('rollout/trust'), JSON.stringify(extra)) ?? 'passed', /broken vector: unknown field `surprise`/);
});
