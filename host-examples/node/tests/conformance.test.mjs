// The shared vectors (tests/vectors) through the runner: the ops the
// package binds through its functions, the others through the component's
// `vector-case` with each case's exact JSON text; and the runner's own
// handling of broken vector files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runDir, vectorFiles } from '../tools/conformance-runner.mjs';
import { HEALTH_FORMAT } from '../tools/conformance-health.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(here, '..');
const vectors = path.resolve(pkg, '../../tests/vectors');

/** A directory holding one vector file `name` with `text`. */
function oneFile(name, text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vectors-'));
  fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

for (const file of vectorFiles(vectors)) {
  test(`every case of ${path.basename(file)} passes`, () => {
    const text = fs.readFileSync(file, 'utf8');
    const { passed, failures } = runDir(oneFile(path.basename(file), text));
    assert.deepEqual(failures, []);
    assert.equal(passed, JSON.parse(text).cases.length, 'every case of the file ran');
  });
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

const BACKOFF = { base_ms: 1000, factor: 2, cap_ms: 60_000, jitter: 'none' };
const delayCase = { name: 'delay 2', op: 'delay', input: { backoff: BACKOFF, event_id: 'e', retry_index: 2 }, expect: { delay_ms: 4000 } };

test('a broken vector (unknown op, unknown or missing field) fails with its case name, through the package or the component', () => {
  const dir = tempVectors([
    goodCase,
    delayCase,
    { name: 'unknown op', op: 'classify_teapot', input: { status: 418 }, expect: { outcome: 'terminal' } },
    { name: 'unknown field', op: 'classify_status', input: { status: 200, extra: 1 }, expect: { outcome: 'success' } },
    { name: 'missing field', op: 'delay', input: { backoff: BACKOFF, event_id: 'e' }, expect: { delay_ms: 1 } },
    { name: 'unknown vector-case field', op: 'delay', input: { ...delayCase.input, extra: 1 }, expect: { delay_ms: 4000 } },
    { name: 'wrong expectation', op: 'classify_status', input: { status: 503 }, expect: { outcome: 'success' } },
    { name: 'wrong vector-case expectation', op: 'delay', input: delayCase.input, expect: { delay_ms: 4001 } },
    { name: 'wrong error', op: 'classify_status', input: { status: 99 }, expect: { error: 'invalid_input' } },
  ]);
  const { passed, failed, failures } = runDir(dir);
  assert.equal(passed, 2);
  assert.equal(failed, 7);
  assert.deepEqual(
    failures.map((f) => f.name),
    ['unknown op', 'unknown field', 'missing field', 'unknown vector-case field', 'wrong expectation', 'wrong vector-case expectation', 'wrong error'],
  );
  assert.match(failures[0].why, /unknown op/);
  assert.match(failures[1].why, /^broken vector: unknown input field\(s\): extra/);
  assert.match(failures[2].why, /^broken vector: .*retry_index/);
  assert.match(failures[3].why, /invalid_input at `extra`: unknown field/); // the component's refusal, not the expected answer
  assert.match(failures[5].why, /expected .*4001.* got .*4000/);
  assert.match(failures[6].why, /got error invalid_status/);
});

// The component reads each vector-case op's case from its text with every
// number as the file wrote it: a u64 above 2^53 - 1 (9007199254740993 is
// 2^53 + 1, which a double rounds to 2^53) is exact, so a decision depending
// on its last digit comes out as the file's expectation says.
test('a vector-case op gets every number exactly as the file wrote it, also above 2^53', () => {
  const policy = { backoff: BACKOFF, window_ms: 1000, hard_cap: 10, budget: { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true } };
  const state = (first) => `{"event_id":"e","endpoint_id":"p","attempt":1,"max_attempts":5,"first_attempted_at_ms":${first},"credentials_refreshed":false}`;
  const resume = (name, first, now, expect) =>
    `{"name":"${name}","op":"resume","input":{"policy":${JSON.stringify(policy)},"state":${state(first)},"now_ms":${now}},"expect":${expect}}`;
  // 2^53 + 1 ms after an admission at 2^53 + 1 - 1000: the window (1000 ms) has just elapsed; at 2^53 (what a double makes of it) it has not.
  const elapsed = '{"stop_reason":"retry_window_elapsed","disable_endpoint":false,"dead_letter":{"event_id":"e","endpoint_id":"p","attempts":1,"elapsed_ms":1000,"stop_reason":"retry_window_elapsed"}}';
  const cases = [resume('exact', '9007199254739993', '9007199254740993', elapsed), resume('rounded', '9007199254739993', '9007199254740992', elapsed)];
  const { passed, failures } = runDir(oneFile('big.json', `{"format":1,"suite":"big","cases":[${cases.join(',')}]}`));
  assert.equal(passed, 1);
  assert.deepEqual(failures.map((f) => f.name), ['rounded']);
  assert.match(failures[0].why, /\{"due":true\}/);
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
  // unknown fields of a vector-case op are the component's refusal (an error where the vector expects an answer)
  assert.match(failures[0].why, /got \{"error":"invalid_input","field":"extra"\}/);
  assert.match(failures[1].why, /got \{"error":"invalid_document","field":"health\.holds"\}/);
  assert.match(failures[2].why, /expected \{"pause_until_ms":6001\} got \{"pause_until_ms":6000\}/);
});

test('a format-3 file with an unknown header field is one failure', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vectors-'));
  fs.writeFileSync(path.join(dir, 'f.json'), JSON.stringify({ format: HEALTH_FORMAT, suite: 's', spec: '', regenerate: '', cases: [healthCase], extra: 1 }));
  const { passed, failed, failures } = runDir(dir);
  assert.equal(passed + failed, 1);
  assert.match(failures[0].why, /unknown field\(s\): extra/);
});
