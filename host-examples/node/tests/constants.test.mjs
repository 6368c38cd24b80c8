// The exported name lists are the WIT enums' cases (wit/retry-policy.wit),
// in order, snake_cased: this reads the WIT and fails when they differ.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { STOP_REASONS, STORE_OPS, ERROR_CODES, OUTCOME_CLASSES, JITTER_MODES } from '@webhook/retry-policy';

const wit = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../wit/retry-policy.wit'), 'utf8');

function enumCases(name) {
  const m = new RegExp(`enum ${name} \\{([^}]*)\\}`).exec(wit);
  assert.ok(m, `enum ${name} in the WIT`);
  return m[1]
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('//'))
    .map((l) => l.replace(/,$/, '').replace(/^%/, '').replaceAll('-', '_'));
}

for (const [name, list] of [
  ['stop-reason', STOP_REASONS],
  ['store-op', STORE_OPS],
  ['error-code', ERROR_CODES],
  ['outcome-class', OUTCOME_CLASSES],
  ['jitter', JITTER_MODES],
]) {
  test(`the exported ${name} names are the WIT enum's cases, in order`, () => {
    assert.deepEqual([...list], enumCases(name));
  });
}
