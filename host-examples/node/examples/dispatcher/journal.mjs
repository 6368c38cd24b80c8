// A crash-safe event store for the dispatcher: an append-only journal of
// JSON lines, each `<crc32 hex8> <json>\n`, fsynced before the call returns
// (an event is acknowledged to its producer only after its `accept` record
// is on disk; it is finished only after its `done` record is).
//
//   accept  {t:'accept', seq, event, state}   a new event and the state it was admitted under
//   attempt {t:'attempt', id, attempt, credentials_refreshed}   before each attempt is sent
//   done    {t:'done', id, stop_reason}        the final decision
//   next    {t:'next', seq}                   (compaction) the next sequence number
//
// Recovery reads every record; the first one that is incomplete or fails its
// checksum ends the journal: the file is truncated there (a torn last write
// from a crash), so later appends start on a clean line. One writer: a lock
// file `<path>.lock` holding the writer's pid (a dead writer's lock is taken
// over). Compaction rewrites the pending events to `<path>.tmp`, fsyncs it,
// renames it over the journal and fsyncs the directory.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const crc = (text) => zlib.crc32(text).toString(16).padStart(8, '0');

export class JournalLocked extends Error {}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

const held = new Set(); // lock files this process holds

function lock(file) {
  if (held.has(file)) throw new JournalLocked('the journal is already open in this process');
  // The pid is written to a private file first, then linked into place:
  // the lock never exists without its owner's pid in it.
  const mine = `${file}.${process.pid}`;
  fs.writeFileSync(mine, String(process.pid));
  try {
    for (let i = 0; i < 2; i++) {
      try {
        fs.linkSync(mine, file);
        held.add(file);
        return;
      } catch (e) {
        if (e.code !== 'EEXIST') throw e;
        const pid = Number(fs.readFileSync(file, 'utf8'));
        if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) throw new JournalLocked(`the journal is locked by a live writer (pid ${pid})`);
        fs.rmSync(file, { force: true }); // a dead writer's lock: take it over
      }
    }
    throw new JournalLocked('could not take the journal lock');
  } finally {
    fs.rmSync(mine, { force: true });
  }
}

/** Parse a journal's text: its good records and the byte length they span. */
export function readRecords(buf) {
  const records = [];
  let good = 0;
  while (good < buf.length) {
    const nl = buf.indexOf(10, good);
    if (nl < 0) break; // torn: no newline
    const line = buf.subarray(good, nl).toString('utf8');
    const sum = line.slice(0, 8);
    const json = line.slice(9);
    if (line[8] !== ' ' || crc(json) !== sum) break;
    try {
      records.push(JSON.parse(json));
    } catch {
      break;
    }
    good = nl + 1;
  }
  return { records, goodBytes: good, tornBytes: buf.length - good };
}

export class Journal {
  #path;
  #fd;
  #lockPath;
  #pending = new Map(); // id -> {event, state}
  #nextSeq = 0;
  #doneSinceCompaction = 0;
  #compactEvery;
  /** What recovery found: {records, tornBytes, pending}. */
  recovered;

  /** Open (and recover) the journal at `file`; `compactEvery`: compact at open and after this many finished events (0: never). */
  constructor(file, { compactEvery = 1000 } = {}) {
    this.#path = file;
    this.#lockPath = `${file}.lock`;
    this.#compactEvery = compactEvery;
    lock(this.#lockPath);
    fs.rmSync(`${file}.tmp`, { force: true }); // a compaction the crash interrupted; the journal is intact
    const buf = fs.existsSync(file) ? fs.readFileSync(file) : Buffer.alloc(0);
    const { records, goodBytes, tornBytes } = readRecords(buf);
    for (const r of records) this.#apply(r);
    this.#fd = fs.openSync(file, fs.existsSync(file) ? 'r+' : 'w+');
    if (tornBytes > 0) {
      fs.ftruncateSync(this.#fd, goodBytes);
      fs.fsyncSync(this.#fd);
    }
    fs.closeSync(this.#fd);
    this.#fd = fs.openSync(file, 'a');
    this.recovered = { records: records.length, tornBytes, pending: this.#pending.size };
    if (records.length > 0 && compactEvery > 0) this.compact();
  }

  #apply(r) {
    if (r.t === 'accept') {
      this.#pending.set(r.event.id, { event: r.event, state: r.state });
      this.#nextSeq = Math.max(this.#nextSeq, r.seq + 1);
    } else if (r.t === 'attempt') {
      const p = this.#pending.get(r.id);
      if (p) p.state = { ...p.state, attempt: r.attempt, credentials_refreshed: r.credentials_refreshed };
    } else if (r.t === 'done') {
      this.#pending.delete(r.id);
    } else if (r.t === 'next') {
      this.#nextSeq = Math.max(this.#nextSeq, r.seq);
    }
  }

  #append(record) {
    const json = JSON.stringify(record);
    fs.writeSync(this.#fd, `${crc(json)} ${json}\n`);
    fs.fsyncSync(this.#fd); // on disk before the caller acknowledges anything
    this.#apply(record);
  }

  /** The next sequence number a producer should hand out (survives restarts and compaction). */
  get nextSeq() {
    return this.#nextSeq;
  }

  /** Events accepted and not finished: [{event, state}] (state.attempt = attempts already made). */
  pending() {
    return [...this.#pending.values()];
  }

  /** Persist a new event and its admitted state; returns once it is on disk. */
  accept(event, state) {
    this.#append({ t: 'accept', seq: this.#nextSeq, event, state });
  }

  /** Persist that attempt `attempt` is about to be sent (a crash then resumes after it). */
  attempt(id, attempt, credentialsRefreshed) {
    this.#append({ t: 'attempt', id, attempt, credentials_refreshed: credentialsRefreshed });
  }

  /** Persist the final decision. */
  done(id, stopReason) {
    this.#append({ t: 'done', id, stop_reason: stopReason });
    if (this.#compactEvery > 0 && ++this.#doneSinceCompaction >= this.#compactEvery) this.compact();
  }

  /** Rewrite the journal as `next` + the pending events (atomic rename, directory fsynced). */
  compact() {
    const tmp = `${this.#path}.tmp`;
    const lines = [{ t: 'next', seq: this.#nextSeq }, ...this.pending().map(({ event, state }) => ({ t: 'accept', seq: this.#nextSeq - 1, event, state }))];
    const fd = fs.openSync(tmp, 'w');
    for (const r of lines) {
      const json = JSON.stringify(r);
      fs.writeSync(fd, `${crc(json)} ${json}\n`);
    }
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, this.#path);
    const dir = fs.openSync(path.dirname(this.#path), 'r');
    fs.fsyncSync(dir);
    fs.closeSync(dir);
    fs.closeSync(this.#fd);
    this.#fd = fs.openSync(this.#path, 'a');
    this.#doneSinceCompaction = 0;
  }

  close() {
    fs.closeSync(this.#fd);
    fs.rmSync(this.#lockPath, { force: true });
    held.delete(this.#lockPath);
  }
}
