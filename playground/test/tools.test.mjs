// The npm package's tools export (@webhook/retry-policy/tools, run in Node)
// prints what the `retry-policy` CLI prints (the CLI runs the component):
// the same lint findings, the same simulation numbers and the same SVG
// charts for every shipped scenario, the same diff; it refuses bad input
// with a typed ToolError and stays usable; and its built wasm is not stale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { root, noCli, runCli, POLICY, SCENARIOS } from './shared.mjs';

/** The design note with a document-wide health section (format 3). */
const HEALTH_POLICY = 'scenarios/policies/design-note-health.toml';
import { sourcesDigest } from '../../wasm/npm/sources.mjs';

const lib = join(root, 'host-examples', 'node', 'lib', 'tools');
const tools = await import(join(lib, 'index.mjs'));
const dir = mkdtempSync(join(tmpdir(), 'tools-parity-'));

test('the built tools wasm was built from the sources as they are now', () => {
  const built = readFileSync(join(lib, 'wasm', 'SOURCES'), 'utf8').trim();
  assert.equal(built, sourcesDigest(), 'lib/tools/wasm is stale: run host-examples/node/scripts/build-tools');
});

test('the package resolves @webhook/retry-policy/tools to the same functions, by import and by require', async () => {
  const pkg = JSON.parse(readFileSync(join(root, 'host-examples', 'node', 'package.json'), 'utf8'));
  assert.equal(pkg.exports['./tools'].default, './lib/tools/index.mjs');
  assert.equal(pkg.exports['./tools'].browser, './lib/tools/browser.mjs');
  const required = createRequire(import.meta.url)(join(lib, 'index.mjs'));
  assert.equal(required.lint, tools.lint);
  assert.match(tools.version(), /^\d+\.\d+\.\d+$/);
});

test('simulate gives the numbers and the charts of retry-policy simulate for every shipped scenario', { skip: noCli }, () => {
  assert.ok(SCENARIOS.length >= 5, SCENARIOS.map((s) => s.path).join(' '));
  for (const sc of SCENARIOS) {
    const out = join(dir, sc.path.replace(/\W/g, '_'));
    const brief = JSON.parse(runCli(['simulate', '--policy', POLICY.path, '--scenario', sc.path, '--format', 'json', '--out', out]));
    const full = JSON.parse(readFileSync(join(out, 'series.json'), 'utf8'));
    const opts = { policyPath: POLICY.path, scenarioPath: sc.path };
    const got = tools.simulate(POLICY.text, sc.text, { ...opts, charts: true });
    const { charts, ...numbers } = got;
    assert.deepEqual(numbers, full, `${sc.path}: the series and totals`);
    assert.deepEqual(tools.simulate(POLICY.text, sc.text, { ...opts, series: false }), brief, `${sc.path}: --format json`);
    const svgs = readdirSync(out).filter((f) => f.endsWith('.svg')).sort();
    assert.deepEqual(Object.keys(charts).sort(), svgs, sc.path);
    for (const f of svgs) assert.equal(charts[f], readFileSync(join(out, f), 'utf8'), `${sc.path}: ${f} byte for byte`);
    assert.ok(full.runs.every((r) => r.engine_calls > 0 && r.series.length > 0), sc.path);
  }
});

const backoff = { base_ms: 2000, factor: 2, cap_ms: 300000, jitter: 'full' };
const DOCS = {
  'design-note.json': { classes: { notification: { window_ms: 900000, hard_cap: 16, backoff }, provisioning: { window_ms: 7200000, hard_cap: 16, backoff }, ledger: { window_ms: 86400000, hard_cap: 16, backoff } } },
  'budget.json': { classes: { a: { window_ms: 60000, backoff: { base_ms: 1000, factor: 2, cap_ms: 120000, jitter: 'none' }, budget: { window_ms: 600000, sliding: false, min_sample: 3 } } } },
  'short.json': { classes: { s: { window_ms: 1000, backoff } } },
  'bad.json': { classes: { a: { window_ms: 900000, retries: 3, backoff }, b: { window_ms: 900000, max_attempts: 8, backoff }, ok: { window_ms: 900000, backoff } } },
  // Format 3: a section per class and document-wide, one opting out, every health rule at least once.
  'health.json': {
    health: { release: { multiple: 1 }, pause: { max_ms: 900000 }, cache_ms: 60000 },
    classes: {
      n: { window_ms: 900000, backoff },
      own: { window_ms: 600000, backoff, health: { hold_budget_refusals: false, circuit: { min_sample: 60, cooldown_max_ms: 600000 } } },
      cold: { window_ms: 60000, backoff, health: { circuit: { cooldown_ms: 60000, cooldown_max_ms: 60000 } } },
      out: { window_ms: 900000, backoff, health: null },
    },
  },
  'health-bad.json': { health: { cache_ms: 0 }, classes: { a: { window_ms: 900000, backoff, health: { circuit: { failure_ratio: 2 } } }, b: { window_ms: 900000, backoff, health: { pause: null } } } },
};
const RATES = [[], ['ep_quiet=0.5/s'], ['ep_busy=0.1/s', 'notification=40/s']];

test('lint finds what retry-policy lint finds, field for field, in JSON and in text', { skip: noCli }, () => {
  const files = Object.entries(DOCS).map(([name, doc]) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(doc, null, 2));
    return path;
  });
  files.push(join(root, 'host-examples', 'policy.json'), join(root, 'host-examples', 'policy.toml'), join(root, POLICY.path), join(root, HEALTH_POLICY));
  let findings = 0;
  const healthRules = new Set();
  for (const path of files) {
    const text = readFileSync(path, 'utf8');
    for (const rates of RATES) {
      const flags = rates.flatMap((r) => ['--rate', r]);
      const want = JSON.parse(runCli(['lint', path, '--format', 'json', ...flags]));
      assert.deepEqual(tools.lint(text, { path, rates }), want, `${path} ${rates.join(' ')}`);
      assert.equal(tools.lint(text, { path, rates, format: 'text' }), runCli(['lint', path, ...flags]), `${path} text`);
      findings += want.findings.length;
      for (const f of want.findings) if (f.rule.startsWith('health_') || f.field.includes('health')) healthRules.add(f.rule);
    }
  }
  assert.ok(findings > 20, `compared ${findings} findings`);
  for (const rule of ['health_release_cannot_drain', 'health_pause_outlives_window', 'health_cache_ms_has_no_effect', 'health_drops_budget_refusals',
    'health_circuit_sample_above_budget', 'health_cooldown_outlives_window', 'health_class_opts_out', 'invalid_document']) {
    assert.ok(healthRules.has(rule), `${rule} compared: ${[...healthRules].join(' ')}`);
  }
});

test('diff says what retry-policy diff says, health sections included', { skip: noCli }, () => {
  // The health policy tuned: slower release, longer cooldown, the ledger with its own section.
  const note = DOCS['design-note.json'];
  const tuned = { ...note, health: { release: { multiple: 1.5 }, circuit: { cooldown_ms: 10000 }, cache_ms: 60000 } };
  tuned.classes = { ...note.classes, ledger: { ...note.classes.ledger, health: { hold_budget_refusals: false } } };
  const health = join(dir, 'health-tuned.json');
  writeFileSync(health, JSON.stringify(tuned));
  let effects = 0;
  for (const [a, b] of [[POLICY.path, 'host-examples/policy.toml'], [POLICY.path, HEALTH_POLICY], [HEALTH_POLICY, health]]) {
    const [ta, tb] = [a, b].map((p) => readFileSync(p.startsWith('/') ? p : join(root, p), 'utf8'));
    const opts = { oldPath: a, newPath: b };
    const want = JSON.parse(runCli(['diff', a, b, '--format', 'json']));
    assert.deepEqual(tools.diff(ta, tb, opts), want, `${a} ${b}`);
    assert.equal(tools.diff(ta, tb, { ...opts, format: 'text' }), runCli(['diff', a, b]), `${a} ${b} text`);
    effects += want.flatMap((c) => c.changes).filter((c) => c.effect).length;
  }
  assert.ok(effects >= 6, `${effects} health changes with their effect`);
});

test('compareHealth gives the data, the text and the chart of retry-policy simulate --compare-health', { skip: noCli, timeout: 120000 }, () => {
  const health = SCENARIOS.filter((s) => s.path.includes('health-'));
  assert.ok(health.length >= 3, health.map((s) => s.path).join(' '));
  for (const policy of [POLICY.path, HEALTH_POLICY]) {
    const text = readFileSync(join(root, policy), 'utf8');
    for (const sc of health) {
      const out = join(dir, `cmp-${sc.path.replace(/\W/g, '_')}-${policy.replace(/\W/g, '_')}`);
      const cli = runCli(['simulate', '--policy', policy, '--scenario', sc.path, '--compare-health', '--out', out]);
      const got = tools.compareHealth(text, sc.text, { policyPath: policy, scenarioPath: sc.path, charts: true });
      const kept = cli.split('\n').filter((l) => !l.startsWith('two runs in ') && !l.startsWith('wrote ')).join('\n');
      assert.equal(got.text, kept, `${policy} ${sc.path}: the text`);
      const { charts, ...data } = got;
      assert.deepEqual(data, JSON.parse(runCli(['simulate', '--policy', policy, '--scenario', sc.path, '--compare-health', '--format', 'json'])), `${policy} ${sc.path}: --format json`);
      assert.equal(tools.compareHealth(text, sc.text, { policyPath: policy, scenarioPath: sc.path, format: 'text' }), kept);
      const [svg] = readdirSync(out).filter((f) => f.endsWith('-health.svg'));
      assert.deepEqual(Object.keys(got.charts), [svg]);
      assert.equal(got.charts[svg], readFileSync(join(out, svg), 'utf8'), `${policy} ${sc.path}: ${svg} byte for byte`);
      for (const g of got.goals) assert.ok(kept.includes(`[${g.met ? 'met' : 'NOT met'}] ${g.endpoint}: ${g.text}`), g.text);
      assert.equal(got.endpoints.length, got.text.split('\n').filter((l) => /^\| ep_/.test(l)).length);
    }
  }
  assert.match(refusal(() => tools.compareHealth(POLICY.text, health[0].text, { policyPath: POLICY.path, series: true })), /^ToolError invalid_options: options: unknown field `series`/);
  const bad = JSON.stringify({ health: { cache_ms: 0 }, classes: { notification: { window_ms: 900000, backoff } } });
  assert.match(refusal(() => tools.compareHealth(bad, health[0].text, {})), /^ToolError invalid_document: policy.json: invalid_document at `health.cache_ms`/);
});

/** The thrown value's name and code. */
function refusal(f) {
  try {
    f();
  } catch (e) {
    return `${e.name} ${e.code}: ${e.message}`;
  }
  return 'no error';
}

test('bad input is a ToolError with a code, and the tools keep working after it', () => {
  const sc = SCENARIOS[0];
  assert.match(refusal(() => tools.lint('{}', { pth: 'x' })), /^ToolError invalid_options: options: unknown field `pth`/);
  assert.match(refusal(() => tools.lint('{}', { rates: ['nope'] })), /^ToolError invalid_options: --rate `nope`/);
  assert.match(refusal(() => tools.simulate('{', sc.text, { scenarioPath: sc.path })), /^ToolError invalid_document: policy.json: /);
  assert.match(refusal(() => tools.simulate(POLICY.text, 'name = 1', { policyPath: POLICY.path, scenarioPath: 'x.toml' })), /^ToolError invalid_scenario: x.toml: /);
  const huge = JSON.stringify({ name: 'huge', duration_s: 86400, endpoints: [{ id: 'e' }], traffic: [{ endpoint: 'e', class: 'notification', rate_per_s: 1000 }] });
  assert.match(refusal(() => tools.simulate(POLICY.text, huge, { policyPath: POLICY.path })), /^ToolError invalid_scenario: the traffic makes about 86400000 events/);
  const long = JSON.stringify({ name: 'long', duration_s: 10, drain_s: 1e9, endpoints: [{ id: 'e' }], traffic: [{ endpoint: 'e', class: 'notification', rate_per_s: 1 }] });
  assert.match(refusal(() => tools.simulate(POLICY.text, long, { policyPath: POLICY.path })), /^ToolError invalid_scenario: duration_s \+ drain_s/);
  const other = JSON.stringify({ name: 'o', duration_s: 10, endpoints: [{ id: 'e' }], traffic: [{ endpoint: 'e', class: 'nope', rate_per_s: 1 }] });
  assert.match(refusal(() => tools.simulate(POLICY.text, other, { policyPath: POLICY.path })), /^ToolError simulation_failed: scenario traffic names class `nope`/);
  assert.match(refusal(() => tools.schedule(POLICY.text, { path: POLICY.path, classes: ['nope'] })), /^ToolError invalid_options: classes: no class `nope`/);
  assert.deepEqual(tools.lint('{', { path: 'x.json' }).file, 'x.json');
  assert.ok('unreadable' in tools.lint('{', { path: 'x.json' }));
  const s = tools.schedule(POLICY.text, { path: POLICY.path, classes: ['notification'] });
  assert.deepEqual(s.classes.map((c) => [c.class, c.expected_ms.length, c.limited_by]), [['notification', 13, 'window']]);
  assert.match(s.svg, /^<svg[^>]*>[\s\S]*notification \(13 attempts, limited by window\)/);
});

test('a user who installs the packed package gets @webhook/retry-policy/tools, by import and by require', { timeout: 120000 }, () => {
  const pkg = join(root, 'host-examples', 'node');
  const work = mkdtempSync(join(tmpdir(), 'tools-pack-'));
  const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const [info] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], pkg));
  const files = info.files.map((f) => f.path);
  for (const f of ['lib/tools/index.mjs', 'lib/tools/browser.mjs', 'lib/tools/index.d.mts', 'lib/tools/wasm/retry_policy_tools.mjs', 'lib/tools/wasm/retry_policy_tools_bg.wasm']) {
    assert.ok(files.includes(f), `${f} missing from the tarball`);
  }
  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  npm(['install', '--offline', '--no-audit', '--no-fund', join(work, info.filename)], app);
  const doc = JSON.stringify({ classes: { n: { window_ms: 900000, hard_cap: 16, backoff: { base_ms: 2000, factor: 2, cap_ms: 300000, jitter: 'full' } } } });
  writeFileSync(join(app, 'esm.mjs'), `import { lint } from '@webhook/retry-policy/tools';\nconsole.log(JSON.stringify(lint(${JSON.stringify(doc)}).classes));`);
  writeFileSync(join(app, 'cjs.cjs'), `const { schedule } = require('@webhook/retry-policy/tools');\nconsole.log(schedule(${JSON.stringify(doc)}).classes[0].expected_ms.length);`);
  assert.equal(execFileSync('node', ['esm.mjs'], { cwd: app, encoding: 'utf8' }).trim(), '["n"]');
  assert.equal(execFileSync('node', ['cjs.cjs'], { cwd: app, encoding: 'utf8' }).trim(), '13');
});
