// The shipped .d.ts files: types.d.cts is exactly what tools/witgen
// generates from wit/ (regenerating changes nothing), its string-literal
// unions list exactly the names the wasm module uses, and tsc --strict
// type-checks a user's ESM and CommonJS TypeScript against them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { STOP_REASONS, ERROR_CODES, OUTCOME_CLASSES, JITTER_MODES, STORE_OPS } from '@webhook/retry-policy';

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(pkg, '../..');
const generated = fs.readFileSync(path.join(pkg, 'lib/types.d.cts'), 'utf8');

function union(name) {
  const m = generated.match(new RegExp(`export type ${name} =([^;]*);`));
  assert.ok(m, `type ${name} not found`);
  return [...m[1].matchAll(/'([a-z_]+)'/g)].map((x) => x[1]);
}

test('types.d.cts is marked GENERATED with its regeneration command', () => {
  assert.match(generated, /^\/\/ GENERATED - DO NOT EDIT\./);
  assert.match(generated, /cargo run -q -p witgen -- ts host-examples\/node\/lib/);
});

test('regenerating types.d.cts from wit/ changes nothing', { timeout: 600_000 }, () => {
  try {
    execFileSync('cargo', ['run', '-q', '-p', 'witgen', '--', 'check', 'ts', 'host-examples/node/lib'], { cwd: root, encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    assert.fail(`witgen check ts failed (exit ${e.status}):\n${e.stdout}${e.stderr}`);
  }
});

test('the generated string-literal unions match the names the wasm module defines', () => {
  assert.deepEqual(union('StopReason'), [...STOP_REASONS]);
  assert.deepEqual(union('ErrorCode'), [...ERROR_CODES]);
  assert.deepEqual(union('OutcomeClass'), [...OUTCOME_CLASSES]);
  assert.deepEqual(union('Jitter'), [...JITTER_MODES]);
  assert.deepEqual(union('StoreOp'), [...STORE_OPS]);
});

test('tsc --strict type-checks the .d.ts files and ESM and CommonJS usage against them', { timeout: 120_000 }, () => {
  const tsc = path.join(pkg, 'node_modules/.bin/tsc');
  try {
    execFileSync(tsc, ['-p', path.join(pkg, 'tests/types/tsconfig.json')], { encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
  }
});
