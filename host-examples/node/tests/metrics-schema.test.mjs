// /metrics is exactly docs/metrics.md: the replica is started with
// --metrics-addr, its first scrape is compared with the tables parsed from
// that page (every family and no other webhook_* one, each type, label
// names, closed label sets present at 0 from the start, histogram buckets).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPLICA = path.resolve(here, '../replica');
const doc = fs.readFileSync(path.resolve(here, '../../../docs/metrics.md'), 'utf8');
const kinds = JSON.parse(fs.readFileSync(path.resolve(here, '../../../fleet/transport-kinds.json'), 'utf8')).kinds.map((k) => k.kind);

/** docs/metrics.md's Families table: name -> {type, labels: {name: values[] | null (open)}}. */
function families() {
  const section = doc.slice(doc.indexOf('## Families'), doc.indexOf('### Buckets'));
  const out = new Map();
  for (const line of section.split('\n')) {
    if (!line.startsWith('| `webhook_')) continue;
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    const [nameCell, type, labelCell] = cells;
    const name = nameCell.replaceAll('`', '');
    const labels = {};
    if (labelCell.includes('=')) {
      const [left, right] = labelCell.split('=');
      const label = left.replaceAll('`', '').trim();
      labels[label] = right.includes('every kind in') ? kinds : [...right.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    } else {
      for (const m of labelCell.matchAll(/`([a-z_0-9]+)`/g)) labels[m[1]] = null;
    }
    out.set(name, { type, labels });
  }
  return out;
}

/** docs/metrics.md's Buckets list: histogram name -> upper bounds. */
function buckets() {
  const section = doc.slice(doc.indexOf('### Buckets'), doc.indexOf('## Units'));
  return new Map([...section.matchAll(/\* `(webhook_[a-z_]+)`:\s*([\d.,\s]+)/g)].map((m) => [m[1], m[2].split(',').map((x) => Number(x.trim())).filter((x) => !Number.isNaN(x))]));
}

/** Exposition text -> name -> {type, samples: [{name, labels}]} (family names as in # TYPE). */
function parse(text) {
  const out = new Map();
  for (const line of text.split('\n')) {
    const t = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (t) out.set(t[1], { type: t[2], samples: [] });
    else if (line && !line.startsWith('#')) {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      assert.ok(m, `unparsable sample line ${line}`);
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
      const family = [...out.keys()].filter((f) => m[1] === f || m[1].startsWith(`${f}_`)).sort((a, b) => b.length - a.length)[0];
      assert.ok(family, `sample ${m[1]} outside any family`);
      out.get(family).samples.push({ name: m[1], labels, value: Number(m[3]) });
    }
  }
  return out;
}

let dir;
let hanging;
let child;
let scraped;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'metrics-schema-'));
  const policy = path.join(dir, 'p.json');
  fs.writeFileSync(policy, JSON.stringify({ version: 'schema-1', classes: { storm: { window_ms: 60_000, backoff: { base_ms: 100, factor: 2, cap_ms: 1000 } } } }));
  hanging = http.createServer(() => {}); // never answers: the replica stays up while scraped
  await new Promise((r) => hanging.listen(0, '127.0.0.1', r));
  child = spawn(REPLICA, ['--target', `http://127.0.0.1:${hanging.address().port}/`, '--endpoint-id', 'ep-m', '--events', '1', '--policy', policy,
    '--metrics-addr', '127.0.0.1:0', '--drain-ms', '0', '--allow-private-targets'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = /metrics on (http:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`replica exited ${code}: ${err}`)));
  });
  scraped = await (await fetch(url)).text();
});

after(async () => {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  hanging.closeAllConnections?.();
  hanging.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the page lists the families this test expects to read (the parser found the tables)', () => {
  assert.equal(families().size, 17);
  assert.deepEqual([...buckets().keys()].sort(), ['webhook_budget_store_duration_seconds', 'webhook_delivery_duration_seconds']);
});

test('the first scrape has exactly the webhook_* families of docs/metrics.md, each of its type', () => {
  const got = parse(scraped);
  const webhook = [...got.keys()].filter((n) => n.startsWith('webhook_')).sort();
  assert.deepEqual(webhook, [...families().keys()].sort());
  for (const [name, spec] of families()) assert.equal(got.get(name).type, spec.type, name);
});

test('every family has exactly its label names, and every closed label set is present from the start', () => {
  const got = parse(scraped);
  for (const [name, spec] of families()) {
    const samples = got.get(name).samples.filter((s) => !s.name.endsWith('_sum') && !s.name.endsWith('_count'));
    assert.ok(samples.length > 0, `${name} has no series at the first scrape`);
    const names = new Set(samples.flatMap((s) => Object.keys(s.labels).filter((l) => l !== 'le')));
    assert.deepEqual([...names].sort(), Object.keys(spec.labels).sort(), name);
    for (const [label, values] of Object.entries(spec.labels)) {
      if (values === null) continue;
      assert.deepEqual([...new Set(samples.map((s) => s.labels[label]))].sort(), [...values].sort(), `${name}{${label}}`);
    }
  }
});

test('the histograms have exactly the buckets of the page, plus +Inf', () => {
  const got = parse(scraped);
  for (const [name, bounds] of buckets()) {
    const le = got.get(name).samples.filter((s) => s.name === `${name}_bucket`).map((s) => s.labels.le);
    assert.deepEqual(le, [...bounds.map(String), '+Inf'], name);
  }
});

test('webhook_policy_info is 1 for the artifact and document the replica runs', () => {
  const [info] = parse(scraped).get('webhook_policy_info').samples;
  assert.equal(info.value, 1);
  assert.match(info.labels.artifact_sha256, /^[0-9a-f]{64}$/);
  assert.equal(info.labels.document_version, 'schema-1');
});

test('a counter the host does not list (an artifact of another release moves it) is ignored, never thrown', async () => {
  const { Metrics } = await import('../examples/dispatcher/metrics.mjs');
  const m = new Metrics();
  assert.doesNotThrow(() => m.inc('webhook_wake_calls_total'));
  m.inc('webhook_delivered_total');
  assert.equal(m.get('webhook_delivered_total'), 1);
  assert.equal(m.get('webhook_wake_calls_total'), 0);
});
