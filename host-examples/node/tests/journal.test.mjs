// The dispatcher's crash-safe journal: torn records, checksums, one writer,
// compaction, and the dispatcher SIGKILLed mid-run and restarted twice with
// no event lost or finished twice (counts printed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Journal, JournalLocked, readRecords } from '../examples/dispatcher/journal.mjs';

const DURABLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../examples/dispatcher/durable.mjs');
const tmp = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'journal-')), 'events.journal');
const ev = (i) => ({ id: `e${i}`, class: 'n', endpoint_id: 'ep', url: 'http://x/', body: {} });
const st = (i) => ({ class: 'n', event_id: `e${i}`, endpoint_id: 'ep', attempt: 0, max_attempts: 3, first_attempted_at_ms: 1, credentials_refreshed: false });

test('a torn last record is cut off at recovery and later appends stay readable', () => {
  const file = tmp();
  let j = new Journal(file, { compactEvery: 0 });
  j.accept(ev(0), st(0));
  j.accept(ev(1), st(1));
  j.close();
  const torn = '1234abcd {"t":"done","id":"e0"'; // a crash mid-write: no newline
  fs.appendFileSync(file, torn);
  j = new Journal(file, { compactEvery: 0 });
  assert.equal(j.recovered.tornBytes, torn.length);
  assert.equal(j.pending().length, 2);
  j.done('e0', 'delivered');
  j.close();
  const { records, tornBytes } = readRecords(fs.readFileSync(file));
  assert.equal(tornBytes, 0);
  assert.deepEqual(records.map((r) => r.t), ['accept', 'accept', 'done']);
});

test('a record whose checksum fails ends the journal there', () => {
  const file = tmp();
  const j = new Journal(file, { compactEvery: 0 });
  j.accept(ev(0), st(0));
  j.accept(ev(1), st(1));
  j.close();
  const buf = fs.readFileSync(file);
  buf[buf.length - 5] ^= 1; // flip a bit in the second record
  fs.writeFileSync(file, buf);
  const k = new Journal(file, { compactEvery: 0 });
  assert.deepEqual(k.pending().map((p) => p.event.id), ['e0']);
  k.close();
});

test('only one writer holds the journal and a dead writer\'s lock is taken over', () => {
  const file = tmp();
  const j = new Journal(file);
  assert.throws(() => new Journal(file), JournalLocked);
  j.close();
  fs.writeFileSync(`${file}.lock`, '999999999'); // a pid that does not exist
  const k = new Journal(file);
  k.close();
});

test('compaction keeps the pending events, their attempts and the next sequence number', () => {
  const file = tmp();
  const j = new Journal(file, { compactEvery: 2 });
  for (let i = 0; i < 5; i++) j.accept(ev(i), st(i));
  j.attempt('e4', 2, true);
  j.done('e0', 'delivered');
  j.done('e1', 'delivered'); // compacts
  j.close();
  const { records } = readRecords(fs.readFileSync(file));
  assert.equal(records.filter((r) => r.t === 'accept').length, 3);
  assert.equal(records.filter((r) => r.t === 'done').length, 0);
  const k = new Journal(file);
  assert.equal(k.nextSeq, 5);
  assert.deepEqual(k.pending().map((p) => [p.event.id, p.state.attempt, p.state.credentials_refreshed]), [['e2', 0, false], ['e3', 0, false], ['e4', 2, true]]);
  k.close();
});

async function endpoint() {
  const hits = new Map();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['x-event-id'];
      const n = (hits.get(id) ?? 0) + 1;
      hits.set(id, n);
      // every 7th event is busy once: retries are in flight when the kill lands
      const busy = Number(id.split('-')[1]) % 7 === 0 && n === 1;
      setTimeout(() => res.writeHead(busy ? 503 : 204).end(), 2);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, hits, url: `http://127.0.0.1:${server.address().port}/hook`, total: () => [...hits.values()].reduce((a, b) => a + b, 0) };
}

function start(file, url, events, compactEvery) {
  const child = spawn(process.execPath, [DURABLE, '--journal', file, '--target', url, '--events', String(events), '--allow-private-targets', '--compact-every', String(compactEvery)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise((r) => child.on('exit', (code, signal) => r({ code, signal, out, err })));
  return { child, exited };
}

async function killWhen(ep, requests, run) {
  while (ep.total() < requests) await new Promise((r) => setTimeout(r, 2));
  run.child.kill('SIGKILL');
  return run.exited;
}

for (const compactEvery of [0, 25]) {
  test(`a dispatcher SIGKILLed mid-run and restarted twice loses and duplicates no event (compaction ${compactEvery ? `every ${compactEvery}` : 'off'})`, async () => {
    const EVENTS = 300;
    const file = tmp();
    const ep = await endpoint();
    try {
      const first = await killWhen(ep, 60, start(file, ep.url, EVENTS, compactEvery));
      assert.equal(first.signal, 'SIGKILL');
      fs.appendFileSync(file, '00000000 {"t":"acc'); // and a torn record on top
      const second = await killWhen(ep, 170, start(file, ep.url, EVENTS, compactEvery));
      assert.equal(second.signal, 'SIGKILL');
      const last = await start(file, ep.url, EVENTS, compactEvery).exited;
      assert.equal(last.code, 0, last.err);
      const summary = JSON.parse(last.out.trim());
      const { records, tornBytes } = readRecords(fs.readFileSync(file));
      assert.equal(tornBytes, 0);
      const ids = Array.from({ length: EVENTS }, (_, i) => `evt-${i}`);
      const lost = ids.filter((id) => !ep.hits.has(id));
      const unknown = [...ep.hits.keys()].filter((id) => !ids.includes(id));
      const redelivered = ids.filter((id) => ep.hits.get(id) > (Number(id.split('-')[1]) % 7 === 0 ? 2 : 1));
      const count = (t) => {
        const m = new Map();
        for (const r of records.filter((x) => x.t === t)) m.set(r.event?.id ?? r.id, (m.get(r.event?.id ?? r.id) ?? 0) + 1);
        return m;
      };
      const accepts = count('accept');
      const dones = count('done');
      console.log(`crash test (compaction ${compactEvery || 'off'}): ${EVENTS} events, 2 SIGKILLs (+ a torn record); last run recovered ${summary.recovered_records} records, cut ${summary.torn_bytes} torn bytes, resumed ${summary.resumed}, accepted ${summary.accepted}; endpoint: ${ids.length - lost.length} events received, ${lost.length} lost, ${unknown.length} unknown, ${redelivered.length} redelivered after a kill (at-least-once); journal: ${accepts.size} accepted, ${dones.size} done`);
      assert.deepEqual(lost, []);
      assert.deepEqual(unknown, []);
      if (compactEvery === 0) {
        // The full history: every event accepted exactly once and finished exactly once.
        assert.equal(accepts.size, EVENTS);
        assert.ok([...accepts.values()].every((n) => n === 1), 'an event was accepted twice');
        assert.equal(dones.size, EVENTS);
        assert.ok([...dones.values()].every((n) => n === 1), 'an event was finished twice');
      } else {
        // Compacted: what is left is accepted once and finished once.
        assert.ok([...accepts.values()].every((n) => n === 1) && [...dones.values()].every((n) => n === 1));
        assert.deepEqual([...accepts.keys()].sort(), [...dones.keys()].sort(), 'events left pending');
      }
      const reopened = new Journal(file);
      assert.equal(reopened.nextSeq, EVENTS);
      assert.deepEqual(reopened.pending(), []);
      reopened.close();
      assert.ok(redelivered.length <= 16, `${redelivered.length} redeliveries: more than the events in flight at two kills`);
    } finally {
      ep.server.close();
    }
  });
}
