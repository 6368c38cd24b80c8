// The journal's file (examples/dispatcher/journal-file.mjs): the host's part
// of the journal is file I/O (the records are the engine's): mode 0600,
// appends in order with a group fdatasync, a cut where the engine says, a
// failed append after close, and the one-writer lock with its stale rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { JournalFile, JournalError } from '../examples/dispatcher/journal-file.mjs';

const tmp = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'journal-file-')), 'events.journal');

test('a journal file is created 0600, appends lines in order, cuts where told, and refuses an append after close', async () => {
  const file = tmp();
  const j = new JournalFile(file);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  await Promise.all([j.append(['a\n', 'b\n']), j.append(['c\n'])]);
  assert.ok(j.syncs <= 2, `${j.syncs} fdatasyncs for two batches`);
  assert.equal(j.bytes().toString(), 'a\nb\nc\n');
  j.truncate(4);
  assert.equal(fs.readFileSync(file, 'utf8'), 'a\nb\n');
  await j.close();
  await assert.rejects(j.append(['d\n']), (e) => e instanceof JournalError && e.code === 'journal_io');
  assert.ok(!fs.existsSync(`${file}.lock`));
});

test('a second writer is refused with journal_locked naming the holder', async () => {
  const file = tmp();
  const j = new JournalFile(file);
  assert.throws(() => new JournalFile(file), (e) => e instanceof JournalError && e.code === 'journal_locked' && e.message.includes(`pid ${process.pid}`));
  await j.close();
});

test('a lock left by a killed writer of this host is stale and taken over', async () => {
  const file = tmp();
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: Number(dead), host: os.hostname(), started_at_ms: 1 }));
  const j = new JournalFile(file);
  assert.equal(JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8')).pid, process.pid);
  await j.close();
});

test('a lock of another host, or one that is not JSON, is never guessed stale', () => {
  const file = tmp();
  fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: 999_999_999, host: `not-${os.hostname()}`, started_at_ms: 1 }));
  assert.throws(() => new JournalFile(file), (e) => e.code === 'journal_locked' && e.message.includes('not-'));
  fs.writeFileSync(`${file}.lock`, '12345');
  assert.throws(() => new JournalFile(file), (e) => e.code === 'journal_locked' && e.message.includes('unreadable holder'));
});

test('a compaction replaces the whole file through a renamed copy, and appends go on in the new file', async () => {
  const file = tmp();
  const j = new JournalFile(file);
  await j.append(['old-1\n', 'old-2\n', 'old-3\n']);
  const pending = j.append(['old-4\n']); // its sync may still run when the file is replaced
  j.replace('header\nlive\n');
  await pending;
  await j.append(['next\n']);
  assert.equal(fs.readFileSync(file, 'utf8'), 'header\nlive\nnext\n');
  assert.ok(!fs.existsSync(`${file}.compact`), 'the copy was renamed over the journal');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  await j.close();
});

test('a leftover .compact (a compaction whose rename never happened) is deleted at open and the journal kept whole', async () => {
  const file = tmp();
  fs.writeFileSync(file, 'whole\n');
  fs.writeFileSync(`${file}.compact`, 'half');
  const j = new JournalFile(file);
  assert.ok(!fs.existsSync(`${file}.compact`));
  assert.equal(j.bytes().toString(), 'whole\n');
  await j.close();
});
