// lib/component/glue.cjs is generated (jco, scripts/generate-glue): this
// regenerates it into a temp dir from the shipped component and fails when
// the committed file differs (stale glue, or a hand edit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test('the committed jco glue is what scripts/generate-glue makes of the shipped component', { timeout: 120_000 }, () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'glue-'));
  try {
    execFileSync(path.join(pkg, 'scripts/generate-glue'), [out], { stdio: ['ignore', 'pipe', 'pipe'] });
    const fresh = fs.readFileSync(path.join(out, 'glue.cjs'), 'utf8');
    const committed = fs.readFileSync(path.join(pkg, 'lib/component/glue.cjs'), 'utf8');
    assert.ok(committed.startsWith('// GENERATED - DO NOT EDIT.'), 'the generated header');
    assert.ok(fresh === committed, 'lib/component/glue.cjs is stale: run host-examples/node/scripts/generate-glue');
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
