// The benchmark's plain-JS baseline (benchmarks/baseline-decide.cjs, not shipped)
// decides every decide vector like the package, so `npm run bench` compares
// like with like.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const baseline = require('../benchmarks/baseline-decide.cjs');
const vectors = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../tests/vectors');

test('the plain-JS baseline passes every decide vector', () => {
  let n = 0;
  for (const f of fs.readdirSync(vectors).filter((x) => x.endsWith('.json'))) {
    for (const c of JSON.parse(fs.readFileSync(path.join(vectors, f), 'utf8')).cases) {
      if (c.op !== 'decide') continue;
      const i = c.input;
      n++;
      if (c.expect.error) {
        assert.throws(() => baseline.decide(i.policy, i.state, i.outcome, i.now_ms, i.budget_counts), { code: c.expect.error }, c.name);
      } else {
        assert.deepEqual(baseline.decide(i.policy, i.state, i.outcome, i.now_ms, i.budget_counts), c.expect, c.name);
      }
    }
  }
  assert.ok(n > 100);
});
