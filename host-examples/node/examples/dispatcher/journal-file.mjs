// The journal's file, nothing else (docs/journal.md; the records and their
// reading are the delivery engine's): one writer by its lock
// (journal-lock.mjs), the bytes read once at open, the engine's lines
// appended in order with one write per batch and one fdatasync covering
// every line written before it (group commit), a torn tail cut where the
// engine says (`journal_truncate`), synced and unlocked at close.
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { acquireLock, JournalError, io } from './journal-lock.mjs';

export { JournalError };

const fdatasync = promisify(fs.fdatasync);

function fsyncDir(file) {
  const fd = fs.openSync(path.dirname(path.resolve(file)), 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export class JournalFile {
  #path;
  #fd;
  #release;
  #written = 0; // batches written
  #synced = 0; // batches known to be on disk
  #syncing = null;
  #closed = false;
  /** fdatasync calls made (group commit: at most one per batch). */
  syncs = 0;

  /** Lock `file` and open it for appending (created 0600: records hold full target URLs). Throws JournalError. */
  constructor(file, { nowMs = Date.now(), log = () => {} } = {}) {
    this.#path = file;
    this.#release = acquireLock(file, nowMs, log);
    try {
      // A leftover `<journal>.compact` is a compaction whose rename never happened:
      // the journal is whole, the copy goes (docs/journal.md).
      fs.rmSync(`${file}.compact`, { force: true });
      this.#fd = fs.openSync(file, 'a+', 0o600);
      fsyncDir(file);
    } catch (e) {
      if (this.#fd !== undefined) fs.closeSync(this.#fd);
      this.#release();
      throw io(file, e);
    }
  }

  /** The file's bytes as they are now (from its start, whatever was appended). */
  bytes() {
    try {
      return fs.readFileSync(this.#path);
    } catch (e) {
      throw io(this.#path, e);
    }
  }

  /** Cut the file to `keepBytes` (a torn last record the engine found), durably. */
  truncate(keepBytes) {
    try {
      fs.ftruncateSync(this.#fd, keepBytes);
      fs.fsyncSync(this.#fd);
    } catch (e) {
      throw io(this.#path, e);
    }
  }

  /**
   * Append `lines` (each `<crc> <json>\n`) with one write; resolves once they
   * are on disk (group commit). Rejects JournalError journal_io: the file is
   * cut back to where it was, never a partial line left for the next batch.
   */
  append(lines) {
    if (this.#closed) return Promise.reject(new JournalError('journal_io', `${this.#path}: the journal is closed`));
    const buf = Buffer.from(lines.join(''), 'utf8');
    let size;
    try {
      size = fs.fstatSync(this.#fd).size;
      const n = fs.writeSync(this.#fd, buf);
      if (n !== buf.length) throw Object.assign(new Error(`short write (${n} of ${buf.length} bytes)`), { code: 'EIO' });
    } catch (e) {
      try {
        if (size !== undefined) fs.ftruncateSync(this.#fd, size);
      } catch {
        // the write's error is the one reported
      }
      return Promise.reject(io(this.#path, e));
    }
    return this.#syncTo(++this.#written);
  }

  async #syncTo(seq) {
    while (this.#synced < seq) {
      if (this.#syncing === null) {
        const upto = this.#written;
        this.syncs += 1;
        this.#syncing = fdatasync(this.#fd)
          .then(
            () => {
              this.#synced = Math.max(this.#synced, upto);
            },
            (e) => {
              throw io(this.#path, e);
            },
          )
          .finally(() => {
            this.#syncing = null;
          });
      }
      await this.#syncing;
    }
  }

  /**
   * Replace the whole journal with `text` (the engine's `journal_compact`,
   * docs/journal.md "Compaction"): written to `<journal>.compact`, synced,
   * renamed over the journal, the directory synced; appends go on in the new
   * file. Everything written before is in `text`, so it is durable now.
   */
  replace(text) {
    const tmp = `${this.#path}.compact`;
    let fd;
    try {
      fd = fs.openSync(tmp, 'w', 0o600);
      fs.writeSync(fd, Buffer.from(text, 'utf8'));
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fd = undefined;
      fs.renameSync(tmp, this.#path);
      fsyncDir(this.#path);
      const old = this.#fd;
      this.#fd = fs.openSync(this.#path, 'a+', 0o600);
      this.#synced = this.#written;
      // A sync still running on the old descriptor settles first; then it is closed.
      Promise.resolve(this.#syncing)
        .catch(() => {})
        .finally(() => fs.closeSync(old));
    } catch (e) {
      if (fd !== undefined) fs.closeSync(fd);
      throw io(this.#path, e);
    }
  }

  /** Sync what was written, close the file and remove the lock (idempotent). */
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

  /** Close at once (a setup that fails before any append): close the file, remove the lock. */
  closeSync() {
    if (this.#closed) return;
    this.#closed = true;
    try {
      fs.fdatasyncSync(this.#fd);
    } finally {
      fs.closeSync(this.#fd);
      this.#release();
    }
  }
}
