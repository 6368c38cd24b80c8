// The journal's one-writer lock (docs/journal.md, "One writer: the lock"):
// `<journal>.lock`, created with O_CREAT|O_EXCL (flag 'wx'), holds
// {"pid", "host", "started_at_ms"}. A lock of this host whose process is
// gone (kill(pid, 0) fails with ESRCH: the writer was killed) is stale:
// removed and the create retried once. Any other holder, or a lock file
// that is not such JSON, is journal_locked, named (never guessed stale).
import fs from 'node:fs';
import os from 'node:os';

/**
 * A journal file the host cannot use: `journal_locked` (another writer holds
 * it) or `journal_io` (an open, read, write, sync or truncate failed). A
 * journal whose bytes the engine refuses is the engine's error
 * (journal_unsupported, journal_corrupt, journal_record_invalid).
 */
export class JournalError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.name = 'JournalError';
    this.code = code;
  }
}

export const lockPath = (journalPath) => `${journalPath}.lock`;

/** journal_io for a failed file operation on `file`. */
export const io = (file, e) => new JournalError('journal_io', `${file}: ${e.message}`);

/** Whether process `pid` of this host is gone (kill(pid, 0): ESRCH). */
function gone(pid) {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return e.code === 'ESRCH';
  }
}

function holderOf(file) {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    // unreadable: refused like a lock that is not JSON
  }
  let holder = null;
  try {
    holder = JSON.parse(text);
  } catch {
    // not JSON: never guessed stale
  }
  const ok = typeof holder === 'object' && holder !== null;
  return { text, pid: ok ? holder.pid : undefined, host: ok ? holder.host : undefined };
}

/**
 * Take the lock of `journalPath` for this process; returns a function that
 * releases it (removes the file). Throws JournalError (journal_locked, journal_io).
 */
export function acquireLock(journalPath, nowMs, log = () => {}) {
  const file = lockPath(journalPath);
  const body = JSON.stringify({ pid: process.pid, host: os.hostname(), started_at_ms: nowMs });
  for (const retry of [false, true]) {
    let fd;
    try {
      fd = fs.openSync(file, 'wx', 0o600);
    } catch (e) {
      if (e.code !== 'EEXIST') throw io(file, e);
      const { text, pid, host } = holderOf(file);
      const stale = !retry && typeof host === 'string' && host === os.hostname() && gone(pid);
      if (!stale) {
        const who = pid !== undefined && host !== undefined ? `pid ${pid} on ${host} (${file})` : `${file} (unreadable holder: ${JSON.stringify(text.slice(0, 200))})`;
        throw new JournalError('journal_locked', `the journal is held by ${who}`);
      }
      log(`journal lock ${file} was left by pid ${pid} (gone): removed`);
      try {
        fs.rmSync(file, { force: true });
      } catch (e2) {
        throw io(file, e2);
      }
      continue;
    }
    try {
      fs.writeSync(fd, body);
      fs.fsyncSync(fd);
    } catch (e) {
      fs.rmSync(file, { force: true });
      throw io(file, e);
    } finally {
      fs.closeSync(fd);
    }
    let released = false;
    return () => {
      if (!released) fs.rmSync(file, { force: true });
      released = true;
    };
  }
  throw new JournalError('journal_locked', `${file} was taken again while a stale lock was removed`);
}
