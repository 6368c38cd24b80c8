// A journal file the host cannot use: `journal_locked` (another writer holds
// it) or `journal_io` (an open, read, write, sync or truncate failed). A
// journal whose bytes the engine refuses is the engine's error
// (journal_unsupported, journal_corrupt, journal_record_invalid).
export class JournalError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.name = 'JournalError';
    this.code = code;
  }
}
