// The package as a user gets it: `npm pack`, install the tarball into a
// fresh project (offline, from the file), then use it with `import` and
// with `require`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

test('the packed tarball installs offline into a fresh project and works with import and require', { timeout: 120_000 }, () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'retry-policy-pack-'));
  try {
    const [info] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], pkg));
    const files = info.files.map((f) => f.path).sort();
    for (const f of ['lib/index.cjs', 'lib/index.mjs', 'lib/index.d.cts', 'lib/index.d.mts', 'lib/retry_policy.wasm', 'lib/component/glue.cjs', 'lib/artifact/reader.cjs', 'lib/fleet/budget.lua', 'package.json']) {
      assert.ok(files.includes(f), `${f} missing from the tarball: ${files.join(', ')}`);
    }
    assert.ok(!files.some((f) => f.startsWith('tests/') || f.startsWith('benchmarks/') || f.startsWith('examples/')), files.join(', '));

    const app = path.join(work, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
    npm(['install', '--offline', '--no-audit', '--no-fund', path.join(work, info.filename)], app);

    fs.writeFileSync(
      path.join(app, 'esm.mjs'),
      `import { decide, plan, PolicyError } from '@webhook/retry-policy';
const p = plan({ base_ms: 2000, factor: 2, cap_ms: 300000, jitter: 'full' }, 900000, 16);
let code = null;
try { plan({ base_ms: 0, factor: 2, cap_ms: 1, jitter: 'full' }, 1, 1); } catch (e) { code = e instanceof PolicyError && e.code; }
console.log(JSON.stringify({ max: p.max_attempts, code }));`,
    );
    fs.writeFileSync(
      path.join(app, 'cjs.cjs'),
      `const { evaluate, RetryPolicy } = require('@webhook/retry-policy');
const policy = { backoff: { base_ms: 2000, factor: 2, cap_ms: 300000, jitter: 'full' }, window_ms: 900000, hard_cap: 16,
  budget: { ratio: 0.1, window_ms: 60000, min_sample: 50, sliding: true } };
const d = evaluate(policy, { event_id: 'evt_1', endpoint_id: 'ep', attempt: 1, max_attempts: 13, first_attempted_at_ms: 0, credentials_refreshed: false },
  { status: 410 }, 5).decision;
const rp = new RetryPolicy({ classes: { n: { window_ms: 60000, backoff: { base_ms: 100, factor: 2, cap_ms: 1000 } } } });
console.log(JSON.stringify({ reason: d.stop_reason, disable: d.disable_endpoint, classes: rp.classes }));`,
    );
    const env = { ...process.env };
    delete env.RETRY_POLICY_ARTIFACT; // the package's own copy of the artifact
    delete env.RETRY_POLICY_ARTIFACT_SHA256;
    assert.deepEqual(JSON.parse(execFileSync('node', ['esm.mjs'], { cwd: app, encoding: 'utf8', env })), { max: 13, code: 'invalid_backoff' });
    assert.deepEqual(JSON.parse(execFileSync('node', ['cjs.cjs'], { cwd: app, encoding: 'utf8', env })), {
      reason: 'terminal_response',
      disable: true,
      classes: ['n'],
    });
    // import and require in one process share one module (one current artifact).
    fs.writeFileSync(
      path.join(app, 'both.mjs'),
      `import { createRequire } from 'node:module';
import { PolicyError } from '@webhook/retry-policy';
const required = createRequire(import.meta.url)('@webhook/retry-policy');
console.log(PolicyError === required.PolicyError);`,
    );
    assert.equal(execFileSync('node', ['both.mjs'], { cwd: app, encoding: 'utf8' }).trim(), 'true');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});
