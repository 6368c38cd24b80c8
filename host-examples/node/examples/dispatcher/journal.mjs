// The dispatcher's event journal, formats 1 and 2 (docs/journal.md; reads
// both, a new journal is format 2), crash-safe:
//
// * one writer: `<journal>.lock` (journal-lock.mjs; a killed writer's lock is stale);
// * a header first: a new (or empty) journal gets its header, fsynced,
//   before any event record;
// * durable before acknowledged: `append(rec)` writes one `<crc> <json>\n`
//   line with one write and resolves once it is on disk (fdatasync), with
//   group commit: one fdatasync covers every line written before it;
// * a torn tail (the last line without its LF, with a bad CRC or not JSON)
//   is cut off at open (ftruncate + fsync) before anything is appended; any
//   other bad line refuses the open (journal-read.mjs);
// * a failed write (disk full) is cut back to the last complete record;
// * compaction: at 1024 records and more than twice as many as live events
//   (pending and held events plus dead letters not replayed), the journal is
//   rewritten (header, then the newest record of each live event) into
//   `<journal>.compact`, fsynced, renamed over it, the directory fsynced; a
//   leftover `.compact` is deleted at open.
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { compileDocument } from '@webhook/retry-policy';
import { JournalError, recordLine, header } from './journal-record.mjs';
import { readJournal } from './journal-read.mjs';
import { acquireLock } from './journal-lock.mjs';

export { JournalError, JOURNAL_ERROR_CODES } from './journal-record.mjs';

export const COMPACT_MIN_RECORDS = 1024;
const fdatasync = promisify(fs.fdatasync);
const io = (file, e) => new JournalError('journal_io', `${file}: ${e.message}`);

/**
 * The policy hash a one-class document gives, through the component: loaded
 * with `load-health-document` (format 2 and 3 alike, so a v2 record's
 * `health` is covered), then `admit-compiled`; a PolicyError when it refuses it.
 */
export const componentHasher = (documentJson, eventClass) => {
  const doc = compileDocument(documentJson);
  try {
    const p = doc.classes.get(eventClass);
    return p.admit(eventClass, doc.version ?? '', 0).policy_hash;
  } finally {
    doc.close();
  }
};

function fsyncDir(file) {
  const dir = path.dirname(path.resolve(file));
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Another process's journal: no lock taken, nothing written (a torn tail is
 * skipped, not cut). The newest record of each event, first-seen order.
 */
export function readJournalFile(file, hasher = componentHasher) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    throw io(file, e);
  }
  return readJournal(bytes, hasher).events.map(({ rec }) => rec);
}

export class Journal {
  #path;
  #fd;
  #release;
  #records; // complete records in the file, the header included
  #len; // bytes of complete records
  #events = new Map(); // event_id -> newest record
  #live = 0; // live events: pending, held, dead letters not replayed
  #liveIds = new Set();
  #replayOf = new Map(); // dead letter's event_id -> the event_id of a record replaying it
  #written = 0; // lines written (a sequence number per append)
  #synced = 0; // lines known to be on disk
  #syncing = null; // the fdatasync in flight
  #closed = false;
  /** Bytes cut off a torn tail at open (0: the file was clean). */
  tornBytes;
  /** Compactions done since open. */
  compactions = 0;
  /** fdatasync calls made by appends (group commit: fewer than the appends waiting on them). */
  syncs = 0;
  /** The last compaction that failed (JournalError), or null. */
  compactionError = null;

  /**
   * Lock, read, cut a torn tail, write the header of a new journal.
   * @param {string} file
   * @param {{hasher?: import('./journal-read.mjs').Hasher, nowMs?: number, log?: (line: string) => void}} options
   */
  constructor(file, { hasher = componentHasher, nowMs = Date.now(), log = () => {} } = {}) {
    this.#path = file;
    this.#release = acquireLock(file, nowMs, log);
    try {
      fs.rmSync(`${file}.compact`, { force: true }); // a compaction a crash interrupted; the journal is whole
      this.#fd = fs.openSync(file, 'a+', 0o600); // 0600: pending records hold full target URLs
      const found = readJournal(fs.readFileSync(this.#fd), hasher);
      if (found.tornBytes > 0) {
        fs.ftruncateSync(this.#fd, found.goodBytes);
        fs.fsyncSync(this.#fd);
      }
      this.tornBytes = found.tornBytes;
      this.#records = found.records;
      this.#len = found.goodBytes;
      if (this.#records === 0) {
        const line = recordLine(header(nowMs));
        this.#writeAll(line);
        fs.fsyncSync(this.#fd);
        this.#records = 1;
        this.#len = line.length;
      }
      fsyncDir(file);
      for (const { rec } of found.events) this.#remember(rec);
    } catch (e) {
      if (this.#fd !== undefined) fs.closeSync(this.#fd);
      this.#release();
      if (e instanceof JournalError) throw e;
      if (typeof e?.code === 'string' && e.syscall !== undefined) throw io(file, e);
      throw e;
    }
  }

  get path() {
    return this.#path;
  }

  /** The newest record of each event, first-seen order (copies). */
  events() {
    return [...this.#events.values()].map((r) => structuredClone(r));
  }

  /** Records in the file, the header included. */
  get records() {
    return this.#records;
  }

  #writeAll(buf) {
    const n = fs.writeSync(this.#fd, buf);
    if (n !== buf.length) throw Object.assign(new Error(`short write (${n} of ${buf.length} bytes)`), { code: 'EIO', syscall: 'write' });
  }

  #remember(rec) {
    this.#events.set(rec.event_id, rec);
    if (typeof rec.replay_of === 'string' && !this.#replayOf.has(rec.replay_of)) {
      this.#replayOf.set(rec.replay_of, rec.event_id);
      this.#relive(rec.replay_of);
    }
    this.#relive(rec.event_id);
  }

  /** Recount one event's liveness (docs/journal.md, "Compaction"). */
  #relive(id) {
    const rec = this.#events.get(id);
    const live = rec !== undefined && rec.status !== 'delivered' && !(rec.status === 'dead_lettered' && this.replayedAs(id) !== null);
    if (live === this.#liveIds.has(id)) return;
    if (live) this.#liveIds.add(id);
    else this.#liveIds.delete(id);
    this.#live += live ? 1 : -1;
  }

  /**
   * The event_id a dead letter was replayed as, or null: its newest record's
   * `replayed_as`, else the id of any record whose `replay_of` names it
   * (that record is the commit).
   */
  replayedAs(eventId) {
    const rec = this.#events.get(eventId);
    if (rec?.replayed_as != null) return rec.replayed_as;
    return this.#replayOf.get(eventId) ?? null;
  }

  /** The newest record of `eventId` (a copy), or undefined. */
  event(eventId) {
    const rec = this.#events.get(eventId);
    return rec === undefined ? undefined : structuredClone(rec);
  }

  /**
   * Append one event record; resolves once it is on disk (group commit).
   * Rejects with JournalError journal_io (the file is cut back to the last
   * complete record: the journal stays whole).
   */
  async append(rec) {
    if (this.#closed) throw new JournalError('journal_io', `${this.#path}: the journal is closed`);
    const line = recordLine(rec);
    try {
      this.#writeAll(line);
    } catch (e) {
      try {
        fs.ftruncateSync(this.#fd, this.#len); // never glue the next record to a partial line
      } catch {
        // the write's error is the one reported
      }
      throw io(this.#path, e);
    }
    this.#len += line.length;
    this.#records += 1;
    const seq = ++this.#written;
    this.#remember(structuredClone(rec));
    if (this.#records >= COMPACT_MIN_RECORDS && this.#records > 2 * this.#live) {
      try {
        this.#compact();
      } catch (e) {
        this.compactionError = e; // the record is written; the journal stays whole and is compacted later
      }
    }
    await this.#syncTo(seq);
  }

  /** Resolves once every line written so far is on disk. */
  flush() {
    return this.#syncTo(this.#written);
  }

  async #syncTo(seq) {
    while (this.#synced < seq) {
      if (this.#syncing === null) {
        const upto = this.#written;
        this.syncs += 1;
        this.#syncing = fdatasync(this.#fd).then(
          () => {
            this.#synced = Math.max(this.#synced, upto);
          },
          (e) => {
            throw io(this.#path, e);
          },
        ).finally(() => {
          this.#syncing = null;
        });
      }
      await this.#syncing;
    }
  }

  /** Rewrite as header + the newest record of each live event (pending, held, dead letters not replayed; temp file, fsync, rename, fsync dir). */
  #compact() {
    const tmp = `${this.#path}.compact`;
    const lines = [recordLine(header(Date.now()))];
    for (const [id, r] of this.#events) if (this.#liveIds.has(id)) lines.push(recordLine(r));
    const data = Buffer.concat(lines);
    let fd;
    try {
      fd = fs.openSync(tmp, 'w', 0o600);
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fd = undefined;
      fs.renameSync(tmp, this.#path);
      fsyncDir(this.#path);
    } catch (e) {
      if (fd !== undefined) fs.closeSync(fd);
      fs.rmSync(tmp, { force: true });
      throw io(tmp, e); // the journal itself is untouched
    }
    const old = this.#fd;
    this.#fd = fs.openSync(this.#path, 'a', 0o600);
    const closeOld = () => fs.close(old, () => {});
    if (this.#syncing === null) closeOld();
    else this.#syncing.then(closeOld, closeOld); // an fdatasync of the old file is in flight
    for (const id of [...this.#events.keys()]) if (!this.#liveIds.has(id)) this.#events.delete(id);
    this.#records = lines.length;
    this.#len = data.length;
    this.#synced = this.#written; // everything written so far is in the compacted, fsynced file
    this.compactions += 1;
  }

  /**
   * Close at once (a setup that fails after the open, before any append is
   * in flight): sync what was written, close the file, remove the lock.
   */
  closeSync() {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (this.#written > this.#synced) fs.fdatasyncSync(this.#fd);
    } finally {
      fs.closeSync(this.#fd);
      this.#release();
    }
  }

  /** Flush, close the file and remove the lock (a clean exit, or after a drain). */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#syncTo(this.#written);
    } finally {
      fs.closeSync(this.#fd);
      this.#release();
    }
  }
}
