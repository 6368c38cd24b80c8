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
const baselines = {
  'BigInt': require('../benchmarks/baseline-decide.cjs'),
  '32-bit halves': require('../benchmarks/baseline-decide-u32.cjs'),
};
const vectors = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../tests/vectors');

for (const [kind, baseline] of Object.entries(baselines)) test(`the plain-JS baseline (${kind}) passes every decide and delay vector`, () => {
  let n = 0;
  let delays = 0;
  for (const f of fs.readdirSync(vectors).filter((x) => x.endsWith('.json'))) {
    for (const c of JSON.parse(fs.readFileSync(path.join(vectors, f), 'utf8')).cases) {
      if (c.op === 'delay' && !c.expect.error) {
        // A delay is retry `retry_index` of a decide that reaches gate 5: check the hash alone.
        const i = c.input;
        assert.equal(baseline.delayMs(i.backoff, i.event_id, i.retry_index), c.expect.delay_ms, c.name);
        delays++;
        continue;
      }
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
  assert.ok(delays > 200, `only ${delays} delay vectors`);
});
