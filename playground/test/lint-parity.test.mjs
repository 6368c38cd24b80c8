// The page's lint (src/lint.js on the npm package) finds exactly what
// `retry-policy lint` (tools/policy-tools on the component) finds: same
// rules, fields and severities, document by document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import '../src/lint.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const cli = process.env.RETRY_POLICY_BIN ?? join(root, 'target', 'release', 'retry-policy');
const rp = createRequire(import.meta.url)(join(root, 'host-examples', 'node', 'lib', 'index.cjs'));
const dir = mkdtempSync(join(tmpdir(), 'lint-parity-'));

const backoff = { base_ms: 2000, factor: 2, cap_ms: 300000, jitter: 'full' };
const DOCS = {
  'design-note.json': { classes: { notification: { window_ms: 900000, hard_cap: 16, backoff }, provisioning: { window_ms: 7200000, hard_cap: 16, backoff }, ledger: { window_ms: 86400000, hard_cap: 16, backoff } } },
  'budget.json': { classes: { a: { window_ms: 60000, backoff: { base_ms: 1000, factor: 2, cap_ms: 120000, jitter: 'none' }, budget: { window_ms: 600000, sliding: false, min_sample: 3 } } } },
  'short.json': { classes: { s: { window_ms: 1000, backoff } } },
  'bad.json': { classes: { a: { window_ms: 900000, retries: 3, backoff }, b: { window_ms: 900000, max_attempts: 8, backoff }, ok: { window_ms: 900000, backoff } } },
};
const RATES = [[], ['ep_quiet=0.5/s'], ['ep_busy=0.1/s', 'notification=40/s']];

function cliLint(path, rates) {
  const args = ['lint', path, '--format', 'json', ...rates.flatMap((r) => ['--rate', r])];
  try {
    return JSON.parse(execFileSync(cli, args, { cwd: root, encoding: 'utf8' }));
  } catch (e) {
    if (e.status === 1) return JSON.parse(e.stdout);
    throw e;
  }
}

const key = (f) => `${f.severity} ${f.field} ${f.rule}`;

test('the page lint and the CLI lint agree on every finding', { skip: !existsSync(cli) && `no ${cli} (cargo build --release)` }, () => {
  const docs = Object.entries(DOCS).map(([name, doc]) => [name, JSON.stringify(doc, null, 2)]);
  docs.push(['policy.json', readFileSync(join(root, 'host-examples', 'policy.json'), 'utf8')]);
  let compared = 0;
  for (const [name, text] of docs) {
    const path = join(dir, name);
    writeFileSync(path, text);
    for (const rates of RATES) {
      const want = cliLint(path, rates).findings.map(key);
      const parsed = rates.map((r) => { const [k, v] = r.split('='); return { key: k, per_s: parseFloat(v) }; });
      const got = globalThis.PlaygroundLint.lint(rp, text, parsed).findings.map(key);
      assert.deepEqual(got, want, `${name} ${rates.join(' ')}`);
      compared += want.length;
    }
  }
  assert.ok(compared > 20, `compared ${compared} findings`);
});
