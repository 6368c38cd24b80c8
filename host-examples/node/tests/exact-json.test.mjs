// The conformance runner reads vector files with integers above 2^53 - 1
// exact (tools/exact-json.mjs), compares and prints them as JSON integers,
// and hands a case to the component's `vector-case` as JSON text with every
// number as the file wrote it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readJson, readRaw, values, exactText, sameJson, showJson } from '../tools/exact-json.mjs';
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

test('a case is handed on as JSON text with every number exactly as the file wrote it', () => {
  const text = '{"a":9007199254740993,"b":1.0,"c":1e300,"d":-0,"e":[18446744073709551615,0.1],"f":"9007199254740993"}';
  const raw = readRaw(text);
  assert.equal(exactText(raw), text);
  assert.deepEqual(values(raw), { a: 9007199254740993n, b: 1, c: 1e300, d: -0, e: [18446744073709551615n, 0.1], f: '9007199254740993' });
  assert.equal(exactText(raw.e), '[18446744073709551615,0.1]');
  assert.throws(() => readRaw('{"a":1,"a":2}'), /Duplicate key/);
});

test('an expected parse_document error without a field pins only its code; with one, the field too', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vectors-'));
  const input = { document: { classes: { a: { window_ms: 1000, max_attempts: 3 } } } };
  const cases = [
    { name: 'code only', op: 'parse_document', input, expect: { error: 'invalid_document' } },
    { name: 'code and field', op: 'parse_document', input, expect: { error: 'invalid_document', field: 'classes.a.max_attempts' } },
    { name: 'wrong field', op: 'parse_document', input, expect: { error: 'invalid_document', field: 'nowhere' } },
    { name: 'wrong code', op: 'parse_document', input, expect: { error: 'invalid_state' } },
  ];
  fs.writeFileSync(path.join(dir, 'format3-e.json'), JSON.stringify({ format: HEALTH_FORMAT, suite: 's', spec: '', regenerate: '', cases }));
  const { failures } = runDir(dir);
  assert.deepEqual(failures.map((f) => f.name), ['wrong field', 'wrong code']);
});
