// The shared vectors (tests/vectors) through both decision paths of the
// package, and the runner's own handling of broken vector files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compilePolicy, PolicyError } from '@webhook/retry-policy';
import { PURE, IMPORTS, runCase, runDir, vectorFiles, readVectorFile } from '../tools/conformance-runner.mjs';
import { HEALTH_FORMAT, runHealthCase } from '../tools/conformance-health.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(here, '..');
const vectors = path.resolve(pkg, '../../tests/vectors');

// decide vectors through a compiled policy (decideWith): an invalid policy must
// be refused at compile time with the code the vector expects.
const COMPILED = {
  ...PURE,
  decide: (i) => compilePolicy(i.policy).decideWith(i.state, i.outcome, i.now_ms, i.budget_counts),
};

for (const file of vectorFiles(vectors)) {
  const suite = readVectorFile(file);
  if (suite.format === HEALTH_FORMAT) {
    test(`every format-3 case of ${path.basename(file)} passes through the component (compiled handles, applyCall, loadHealthDocument)`, () => {
      const failures = suite.cases.map((c) => [c.name, runHealthCase(c)]).filter(([, why]) => why !== null);
      assert.deepEqual(failures, []);
      assert.ok(suite.cases.length >= 5);
    });
    continue;
  }
  test(`every case of ${path.basename(file)} passes through the pure functions`, () => {
    const failures = suite.cases.map((c) => [c.name, runCase(c)]).filter(([, why]) => why !== null);
    assert.deepEqual(failures, []);
  });
  if (suite.cases.some((c) => c.op === 'decide')) {
    test(`every decide case of ${path.basename(file)} passes through a compiled policy`, () => {
      const failures = suite.cases
        .filter((c) => c.op === 'decide')
        .map((c) => [c.name, runCase(c, COMPILED)])
        .filter(([, why]) => why !== null);
      assert.deepEqual(failures, []);
    });
    test(`every decide case of ${path.basename(file)} passes through the imports-driven decide (clock and store imports)`, () => {
      const failures = suite.cases
        .filter((c) => c.op === 'decide')
        .map((c) => [c.name, runCase(c, IMPORTS)])
        .filter(([, why]) => why !== null);
      assert.deepEqual(failures, []);
    });
  }
}

test('the vector directory is not empty', () => {
  const { passed, failed } = runDir(vectors);
  assert.equal(failed, 0);
  assert.ok(passed > 500, `only ${passed} cases`);
});

function tempVectors(cases) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vectors-'));
  fs.writeFileSync(path.join(dir, 'broken.json'), JSON.stringify({ format: 1, suite: 'broken', cases }));
  return dir;
}

const goodCase = { name: 'status 200', op: 'classify_status', input: { status: 200 }, expect: { outcome: 'success' } };

test('a broken vector (unknown op, unknown or missing field) fails with its case name', () => {
  const dir = tempVectors([
    goodCase,
    { name: 'unknown op', op: 'classify_teapot', input: { status: 418 }, expect: { outcome: 'terminal' } },
    { name: 'unknown field', op: 'classify_status', input: { status: 200, extra: 1 }, expect: { outcome: 'success' } },
    { name: 'missing field', op: 'delay', input: { backoff: { base_ms: 1, factor: 1, cap_ms: 1, jitter: 'none' }, event_id: 'e' }, expect: { delay_ms: 1 } },
    { name: 'wrong expectation', op: 'classify_status', input: { status: 503 }, expect: { outcome: 'success' } },
    { name: 'wrong error', op: 'classify_status', input: { status: 99 }, expect: { error: 'invalid_input' } },
  ]);
  const { passed, failed, failures } = runDir(dir);
  assert.equal(passed, 1);
  assert.equal(failed, 5);
  assert.deepEqual(
    failures.map((f) => f.name),
    ['unknown op', 'unknown field', 'missing field', 'wrong expectation', 'wrong error'],
  );
  assert.match(failures[0].why, /unknown op/);
  assert.match(failures[1].why, /unknown input field\(s\): extra/);
  assert.match(failures[2].why, /missing input field\(s\): retry_index/);
  assert.match(failures[4].why, /got error invalid_status/);
});

test('the conformance executable prints one line per failure and the summary, and exits non-zero', () => {
  const dir = tempVectors([goodCase, { ...goodCase, name: 'bad', expect: { outcome: 'terminal' } }]);
  const r = spawnSync(path.join(pkg, 'conformance'), [dir], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 2);
  assert.match(lines[0], /^FAIL broken\.json :: bad: /);
  assert.equal(lines[1], 'node: 1 passed, 1 failed');
});

test('the conformance executable passes the shared vectors', () => {
  const out = execFileSync(path.join(pkg, 'conformance'), [vectors], { encoding: 'utf8' });
  assert.match(out.trim(), /^node: \d+ passed, 0 failed$/);
});

test('the conformance executable refuses a missing directory with usage', () => {
  const r = spawnSync(path.join(pkg, 'conformance'), [path.join(os.tmpdir(), 'no-such-dir-xyz')], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /usage/);
});

test('a file that is not a vector file is a failure, not a crash', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vectors-'));
  fs.writeFileSync(path.join(dir, 'a.json'), '{ not json');
  fs.writeFileSync(path.join(dir, 'b.json'), JSON.stringify({ format: 3, cases: [] }));
  const { failed, failures } = runDir(dir);
  assert.equal(failed, 2);
  assert.match(failures[0].why, /not valid JSON/);
  assert.match(failures[1].why, /not a vector file/);
  assert.ok(PolicyError);
});

const section = {
  hold_budget_refusals: true,
  pause: { max_ms: 600000 },
  circuit: null,
  release: { multiple: 1.0, floor_per_s: 1.0 },
  cache_ms: 1000,
};
const healthCase = {
  name: 'pause of a 429',
  op: 'pause_until',
  input: { health: section, outcome: { status: 429, retry_after_ms: 1000 }, now_ms: 5000 },
  expect: { pause_until_ms: 6000 },
};

test('a broken or wrong format-3 vector fails with its case name, and a good one counts as passed', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vectors-'));
  const cases = [
    healthCase,
    { ...healthCase, name: 'unknown input field', input: { ...healthCase.input, extra: 1 } },
    { ...healthCase, name: 'unknown section field', input: { ...healthCase.input, health: { ...section, holds: true } } },
    { ...healthCase, name: 'wrong expectation', expect: { pause_until_ms: 6001 } },
    { ...healthCase, name: 'unknown op', op: 'pause_forever' },
  ];
  fs.writeFileSync(path.join(dir, 'format3-x.json'), JSON.stringify({ format: HEALTH_FORMAT, suite: 'format3-x', spec: '', regenerate: '', cases }));
  const { passed, failed, failures } = runDir(dir);
  assert.equal(passed, 1);
  assert.equal(failed, 4);
  assert.deepEqual(failures.map((f) => f.name), ['unknown input field', 'unknown section field', 'wrong expectation', 'unknown op']);
  assert.match(failures[0].why, /broken vector: unknown input field\(s\): extra/);
  assert.match(failures[1].why, /broken vector: unknown health field\(s\): holds/);
  assert.match(failures[2].why, /expected \{"pause_until_ms":6001\}, got \{"pause_until_ms":6000\}/);
});

test('a format-3 file with an unknown header field is one failure', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vectors-'));
  fs.writeFileSync(path.join(dir, 'f.json'), JSON.stringify({ format: HEALTH_FORMAT, suite: 's', spec: '', regenerate: '', cases: [healthCase], extra: 1 }));
  const { passed, failed, failures } = runDir(dir);
  assert.equal(passed + failed, 1);
  assert.match(failures[0].why, /unknown field\(s\): extra/);
});
