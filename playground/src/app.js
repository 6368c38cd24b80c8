// The page: a document, its lint findings and schedule, and a storm whose
// charts redraw whenever a control changes. Every finding, number and chart
// comes from the npm package's tools export (@webhook/retry-policy/tools:
// tools/policy-tools compiled with wasm-bindgen): the `retry-policy` CLI's
// lint, simulate and SVG charts, here in the page. Nothing is sent anywhere.
import * as tools from '../vendor/tools/browser.mjs';
import { BASE, withHealth, drawDiff, drawCompare } from './health.js';

const $ = (id) => document.getElementById(id);
// For the tests (test/playground.test.mjs runs the page's tools on the shipped scenarios).
globalThis.playgroundTools = tools;

const FAILURES = {
  always_503: { kind: 'always_503' },
  flapping: { kind: 'flapping', up_s: 30, down_s: 30 },
  rate_limited: { kind: 'rate_limited', retry_after_s: 30 },
  outage: { kind: 'outage', from_s: 60, to_s: 240 },
  healthy: { kind: 'healthy' },
};
const STOPS = ['max_attempts_exhausted', 'retry_window_elapsed', 'retry_budget_exhausted'];
const LETTER = { max_attempts_exhausted: 'M', retry_budget_exhausted: 'B', retry_window_elapsed: 'W', budget_unavailable: 'U', terminal_response: 'T' };

/** `855000` -> `14m15s` (the CLI's durations). */
function human(ms) {
  const s = Math.floor(ms / 1000);
  const p2 = (n) => String(n).padStart(2, '0');
  const base = s >= 3600 ? `${Math.floor(s / 3600)}h${p2(Math.floor((s % 3600) / 60))}m${p2(s % 60)}s`
    : s >= 60 ? `${Math.floor(s / 60)}m${p2(s % 60)}s` : `${s}s`;
  return ms % 1000 ? `${base}+${ms % 1000}ms` : base;
}
const pct = (x) => `${(x * 100).toFixed(1)}%`;
const num = (id) => Number($(id).value);

const backoff = { base_ms: 2000, factor: 2, cap_ms: 300000, jitter: 'full' };
const base = JSON.stringify(BASE(backoff), null, 2);
$('doc').value = base;
let report = null;
let runs = 0;

/** The selected class alone, as a document: one bad class does not hide the others. */
function oneClass() {
  const name = $('class').value;
  if (!report || !report.classes?.includes(name)) return null;
  const tree = JSON.parse($('doc').value);
  return { name, text: JSON.stringify({ classes: { [name]: tree.classes[name] } }) };
}

function drawLint() {
  report = tools.lint($('doc').value, { path: 'playground.json', rates: [{ key: 'ep', per_s: num('rate') || 1 }] });
  const ul = $('findings');
  ul.innerHTML = '';
  if (report.unreadable) {
    const li = document.createElement('li');
    li.className = 'error';
    li.textContent = `unreadable: ${report.unreadable}`;
    ul.appendChild(li);
    $('lint-summary').textContent = '';
    return;
  }
  for (const f of report.findings) {
    const li = document.createElement('li');
    li.className = f.severity;
    li.dataset.rule = f.rule;
    li.innerHTML = `<b>${f.severity}</b> <code></code> ${f.rule}: <span></span>`;
    li.querySelector('code').textContent = f.field;
    li.querySelector('span').textContent = f.message;
    ul.appendChild(li);
  }
  $('lint-summary').textContent = `${report.classes.length} classes, ${report.errors} errors, ${report.warnings} warnings, ${report.infos} infos (rate of endpoint ep from the storm's rate/s)`;
  const sel = $('class');
  const keep = sel.value;
  sel.innerHTML = '';
  for (const c of report.classes) sel.appendChild(new Option(c, c));
  if (report.classes.includes(keep)) sel.value = keep;
}

function drawSchedule() {
  const one = oneClass();
  if (!one) { $('schedule-chart').innerHTML = ''; $('plan-line').textContent = ''; return; }
  const s = tools.schedule(one.text, { path: 'playground.json' });
  const c = s.classes[0];
  $('schedule-chart').innerHTML = s.svg;
  $('plan-line').textContent = `${c.expected_ms.length} attempts, limited by ${c.limited_by}: expected span ${human(c.expected_ms.at(-1))}, worst case ${human(c.worst_ms.at(-1))}, window ${human(c.window_ms)}`;
}

/** The storm controls as a scenario for `simulate` (one endpoint, 10 minutes, drain 30). */
function scenario(cls) {
  return {
    name: 'playground', about: 'the page controls', duration_s: 600, drain_s: 1800,
    replicas: Math.max(1, Math.round(num('replicas'))), budget: $('scope').value,
    endpoints: [{ id: 'ep', failure: FAILURES[$('pattern').value] }],
    traffic: [{ endpoint: 'ep', class: cls, rate_per_s: Math.max(0.01, num('rate')) }],
    variants: [{ name: 'page', ratio: num('ratio'), min_sample: Math.max(0, Math.round(num('min_sample'))), sliding: $('sliding').checked }],
  };
}

/** The comparison's scenario: the storm controls' endpoint and fleet, the document's own budget (no variants). */
function compareScenario(cls) {
  const { variants, ...sc } = scenario(cls);
  return { ...sc, name: 'playground', drain_s: 900 };
}

function drawHealth() {
  drawDiff(tools, base, $('doc').value);
  const one = oneClass();
  if (!one || !$('compare').checked) return;
  const tree = JSON.parse($('doc').value);
  // The selected class with the document's section (a class's own replaces it whole).
  const doc = { classes: { [one.name]: tree.classes[one.name] } };
  if ('health' in tree) doc.health = tree.health;
  // A class opting out has no section: the comparison then gives it the default one, and says so.
  const note = tree.classes[one.name]?.health === null ? `${one.name} opts out ("health": null): ` : '';
  drawCompare(tools, JSON.stringify(doc), compareScenario(one.name), Math.max(0, Math.round(num('seed'))), note);
}

function drawStorm() {
  const one = oneClass();
  if (!one) return;
  const t0 = performance.now();
  let r;
  try {
    r = tools.simulate(one.text, JSON.stringify(scenario(one.name)), { policyPath: 'playground.json', seed: Math.max(0, Math.round(num('seed'))), charts: true });
  } catch (e) {
    $('stoporder').textContent = `refused: ${e.code ?? ''} ${e.message}`;
    return;
  }
  const ms = performance.now() - t0;
  const run = r.runs[0];
  const ep = run.endpoints[0];
  $('sum-events').textContent = ep.events;
  $('sum-attempts').textContent = ep.attempts;
  $('sum-retries').textContent = ep.retries;
  $('sum-share').textContent = pct(ep.attempts ? ep.retries / ep.attempts : 0);
  $('sum-delivered').textContent = ep.delivered;
  for (const d of STOPS) $(`sum-${d}`).textContent = ep.dead[d];
  $('sum-calls').textContent = run.engine_calls;
  $('sum-ms').textContent = ms.toFixed(0);
  $('stoporder').textContent = ep.first_stops.map((s) => LETTER[s]).join('') || '(none)';
  $('share-chart').innerHTML = r.charts['share.svg'];
  $('stops-chart').innerHTML = r.charts['stops-page.svg'];
  runs++;
  document.body.dataset.runs = String(runs);
}

let timer = null;
const later = (f) => { clearTimeout(timer); timer = setTimeout(f, 120); };
const all = () => { drawLint(); drawSchedule(); drawStorm(); drawHealth(); };
$('doc').addEventListener('input', () => later(all));
$('class').addEventListener('change', () => { drawSchedule(); drawStorm(); drawHealth(); });
$('compare').addEventListener('change', () => drawHealth());
$('preset').addEventListener('change', () => {
  $('doc').value = $('preset').value === 'health' ? JSON.stringify(withHealth(BASE(backoff)), null, 2) : base;
  all();
});
for (const id of ['pattern', 'rate', 'ratio', 'min_sample', 'sliding', 'replicas', 'scope', 'seed']) {
  $(id).addEventListener(id === 'pattern' || id === 'scope' || id === 'sliding' ? 'change' : 'input', () => later(() => {
    if (id === 'rate') drawLint();
    drawStorm();
    drawHealth();
  }));
}
try {
  all();
  document.body.dataset.ready = 'true';
} catch (e) {
  document.body.dataset.error = String(e && e.stack || e);
  console.error(e);
}
