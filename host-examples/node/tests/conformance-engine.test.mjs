// The delivery engine's trace files (tests/vectors/engine-*.json) through the
// conformance runner (tools/conformance-engine.mjs, on DeliveryEngine), and
// the runner's own handling of broken or wrong traces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runDir, vectorFiles, readVectorFile } from '../tools/conformance-runner.mjs';
import { ENGINE_FORMAT } from '../tools/conformance-engine.mjs';

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vectors = path.resolve(pkg, '../../tests/vectors');
// The engine traces (engine-*.json, beside the other vectors), copied into a directory of their own.
const traces = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-traces-'));
for (const f of fs.readdirSync(vectors).filter((f) => /^engine-.*\.json$/.test(f))) fs.copyFileSync(path.join(vectors, f), path.join(traces, f));
const delivery = readVectorFile(path.join(traces, 'engine-delivery.json'));

/** A directory holding `files` ({name: value}) as JSON. */
function tempTraces(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vectors-engine-'));
  for (const [name, value] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), JSON.stringify(value));
  return dir;
}
const file = (cases, extra = {}) => ({ format: ENGINE_FORMAT, spec: 'docs/engine.md', regenerate: '', cases, ...extra });
const copy = (v) => structuredClone(v);

test('every engine trace of tests/vectors passes through DeliveryEngine, one count per case', () => {
  const cases = vectorFiles(traces).reduce((n, f) => n + readVectorFile(f).cases.length, 0);
  const { passed, failed, failures } = runDir(traces);
  assert.deepEqual(failures, []);
  assert.equal(failed, 0);
  assert.equal(passed, cases);
  assert.ok(cases >= 25, `only ${cases} cases`);
});

test('a wrong or broken trace case fails with its name and step, and a good one counts as passed', () => {
  const good = delivery.cases[1]; // a 503 retried, then delivered: timeouts, actions, six steps
  const actions = copy(good);
  actions.name = 'wrong actions';
  actions.steps[5].expect.at(-1).attempts = 3;
  const timeout = copy(good);
  timeout.name = 'wrong timeout';
  timeout.steps[2].timeout_ms += 1;
  const error = copy(good);
  error.name = 'an error where none is';
  error.steps[1].error = 'unknown_event';
  const unexpected = copy(good);
  unexpected.name = 'an error not expected';
  unexpected.steps[1].input.now_ms = 0;
  const unknownStep = copy(good);
  unknownStep.name = 'unknown step field';
  unknownStep.steps[0].expected = [];
  const unknownCase = { ...copy(good), name: 'unknown case field', notes: '' };
  const refusedConfig = { ...copy(good), name: 'refused config', config: { ...good.config, max_in_flight: 0 } };
  const dir = tempTraces({ 'engine-x.json': file([good, actions, timeout, error, unexpected, unknownStep, unknownCase, refusedConfig]) });
  const { passed, failed, failures } = runDir(dir);
  assert.equal(passed, 1);
  assert.equal(failed, 7);
  assert.deepEqual(
    failures.map((f) => f.name),
    ['wrong actions', 'wrong timeout', 'an error where none is', 'an error not expected', 'unknown step field', 'unknown case field', 'refused config'],
  );
  const why = failures.map((f) => f.why);
  assert.match(why[0], /^step 5: actions .*"attempts":2\}\], expected .*"attempts":3\}\]$/);
  assert.match(why[1], /^step 2: timeout_ms 1800000001011, expected 1800000001012$/);
  assert.match(why[2], /^step 1: error null, expected "unknown_event"$/);
  assert.match(why[3], /^step 1: error "time_went_backwards", expected null/);
  assert.match(why[4], /^broken trace: step 0: unknown field\(s\) expected$/);
  assert.match(why[5], /^broken trace: case: unknown field\(s\) notes$/);
  assert.match(why[6], /^config refused: PolicyError invalid_input at `max_in_flight`/);
});

test('an engine trace file with an unknown top-level field is one failure', () => {
  const dir = tempTraces({ 'engine-y.json': file([delivery.cases[0]], { suite: 'engine' }) });
  const { passed, failed, failures } = runDir(dir);
  assert.equal(passed + failed, 1);
  assert.equal(failures[0].name, '(file)');
  assert.match(failures[0].why, /unknown field\(s\) suite/);
});

test('the conformance executable names the file, case and step of a failing trace and exits non-zero', () => {
  const wrong = copy(delivery.cases[0]);
  wrong.steps[0].timeout_ms = 5;
  const dir = tempTraces({ 'engine-z.json': file([delivery.cases[0], wrong]) });
  const r = spawnSync(path.join(pkg, 'conformance'), [dir], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.deepEqual(r.stdout.trim().split('\n'), [
    `FAIL engine-z.json :: ${wrong.name}: step 0: timeout_ms null, expected 5`,
    'node: 1 passed, 1 failed',
  ]);
});
