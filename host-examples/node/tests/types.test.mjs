// The shipped .d.ts files type-check a user's ESM and CommonJS TypeScript,
// and their string-literal unions list exactly the names the module uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { STOP_REASONS, ERROR_CODES, OUTCOME_CLASSES, JITTER_MODES } from '@webhook/retry-policy';

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dts = fs.readFileSync(path.join(pkg, 'lib/index.d.cts'), 'utf8');

function union(name) {
  const m = dts.match(new RegExp(`export type ${name} =([^;]*);`));
  assert.ok(m, `type ${name} not found`);
  return [...m[1].matchAll(/'([a-z_]+)'/g)].map((x) => x[1]);
}

test('the declared string-literal unions match the names the wasm module defines', () => {
  assert.deepEqual(union('StopReason'), [...STOP_REASONS]);
  assert.deepEqual(union('ErrorCode'), [...ERROR_CODES]);
  assert.deepEqual(union('OutcomeClass'), [...OUTCOME_CLASSES]);
  assert.deepEqual(union('Jitter'), [...JITTER_MODES]);
});

test('tsc type-checks ESM and CommonJS usage against the shipped types', { timeout: 120_000 }, () => {
  const tsc = path.join(pkg, 'node_modules/.bin/tsc');
  try {
    execFileSync(tsc, ['-p', path.join(pkg, 'tests/types/tsconfig.json')], { encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
  }
});
