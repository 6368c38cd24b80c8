// The conformance runner reads vector files with integers above 2^53 - 1
// exact (tools/exact-json.mjs) and compares and prints them as JSON
// integers: an answer off by one above 2^53 fails, the exact one passes
// (the differential's regressions pace/19/1057 and settle_wake/19/1403).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pace } from '@webhook/retry-policy';
import { readJson, sameJson, showJson } from '../tools/exact-json.mjs';
import { runDir } from '../tools/conformance-runner.mjs';
import { HEALTH_FORMAT } from '../tools/conformance-health.mjs';

test('integers above 2^53 - 1 are read as exact bigints and every other number as a number', () => {
  const v = readJson('{"a":9007199254741991,"b":9007199254740991,"c":-9007199254740993,"d":1.5,"e":1e300,"f":"9007199254741991"}');
  assert.deepEqual(v, { a: 9007199254741991n, b: 9007199254740991, c: -9007199254740993n, d: 1.5, e: 1e300, f: '9007199254741991' });
});

test('values compare by exact number, members in any order, and print bigints as JSON integers', () => {
  assert.ok(sameJson({ a: 1, b: [2n ** 60n] }, { b: [2n ** 60n], a: 1.0 }));
  assert.ok(sameJson(2n ** 60n, 2 ** 60));
  assert.ok(!sameJson(9007199254741991n, 9007199254741992));
  assert.ok(!sameJson(1, true));
  assert.ok(!sameJson({ a: 1 }, { a: 1, b: null }));
  assert.equal(showJson({ until_ms: 9007199254741090n }), '{"until_ms":9007199254741090}');
});

const RELEASE = { multiple: 1.0, floor_per_s: 0.5 };
const PACER = { tokens: 0, updated_ms: 9007199254740991, normal_per_s: 0 };

function runPace(untilMs) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vectors-'));
  const input = `{"release":{"multiple":1.0,"floor_per_s":0.5},"pacer":{"tokens":0,"updated_ms":9007199254740991,"normal_per_s":0},"calls":[9007199254740991]}`;
  const expect = `{"results":[{"action":"wait","until_ms":${untilMs}}],"pacer":{"tokens":0,"updated_ms":9007199254740991,"normal_per_s":0}}`;
  const text = `{"format":"${HEALTH_FORMAT}","suite":"s","spec":"","regenerate":"","cases":[{"name":"big","op":"pace","input":${input},"expect":${expect}}]}`;
  fs.writeFileSync(path.join(dir, 'format3-big.json'), text);
  return runDir(dir);
}

test('a pace answer above 2^53 passes when exact and fails, printed as JSON integers, when off by one', () => {
  const out = pace(RELEASE, PACER, 9007199254740991);
  assert.equal(out.verdict.action, 'wait');
  assert.equal(typeof out.verdict.value, 'bigint'); // the package's shape for a u64 above 2^53 - 1
  assert.ok(out.verdict.value > 2n ** 53n);
  const exact = runPace(out.verdict.value.toString());
  assert.deepEqual([exact.passed, exact.failed], [1, 0]);
  const off = runPace((out.verdict.value + 1n).toString());
  assert.deepEqual([off.passed, off.failed], [0, 1]);
  assert.match(off.failures[0].why, new RegExp(`"until_ms":${out.verdict.value + 1n}\\}.*got .*"until_ms":${out.verdict.value}\\}`));
  assert.doesNotMatch(off.failures[0].why, /\dn"/);
});

test('an expected format-3 error without a field pins only its code; with one, the field too', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vectors-'));
  const input = { health: null, outcome: { status: 503, retry_after_ms: null }, now_ms: 0 };
  const cases = [
    { name: 'code only', op: 'pause_until', input, expect: { error: 'invalid_input' } },
    { name: 'code and field', op: 'pause_until', input, expect: { error: 'invalid_input', field: 'health' } },
    { name: 'wrong field', op: 'pause_until', input, expect: { error: 'invalid_input', field: 'nowhere' } },
    { name: 'wrong code', op: 'pause_until', input, expect: { error: 'invalid_state' } },
  ];
  fs.writeFileSync(path.join(dir, 'format3-e.json'), JSON.stringify({ format: HEALTH_FORMAT, suite: 's', spec: '', regenerate: '', cases }));
  const { failures } = runDir(dir);
  assert.deepEqual(failures.map((f) => f.name), ['wrong field', 'wrong code']);
});
