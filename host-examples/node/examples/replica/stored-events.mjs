// The replica's --store FILE and --resume FILE (journal formats 1 and 2,
// docs/journal.md), as the Rust and Python replicas have them:
//
// * --store FILE locks FILE, cuts a torn last record, and its own pending
//   events are continued first (a restart after a crash: a killed writer's
//   lock is stale and removed); every event of the run is journaled there.
// * --resume FILE (another replica's journal, any language; no lock taken,
//   nothing written to it) adds its pending events, newest record per event
//   (over --store's own when both hold one). Each keeps the policy it was
//   admitted under, checked against its policy_hash when read.
import { RetryPolicy } from '@webhook/retry-policy';
import { Journal, JournalError, readJournalFile, componentHasher } from '../dispatcher/journal.mjs';
import { hashDocument } from '../dispatcher/journal-record.mjs';
import { UsageError } from './args.mjs';

/**
 * Open --store's journal and read --resume's: {journal (or null), resumed: pending records}.
 * A journal refused (locked, corrupt, unsupported, I/O) is a UsageError naming the flag (exit 2).
 */
export function openStoredEvents(opts, log) {
  let journal = null;
  const byId = new Map();
  try {
    if (opts.store !== null) {
      journal = new Journal(opts.store, { log });
      if (journal.tornBytes > 0) log(`--store ${opts.store}: cut a torn last record (${journal.tornBytes} bytes; never acknowledged)`);
      for (const rec of journal.events()) byId.set(rec.event_id, rec);
    }
  } catch (e) {
    if (e instanceof JournalError) throw new UsageError(`--store ${opts.store}: ${e.message}`);
    throw e;
  }
  if (opts.resume !== null && opts.resume !== opts.store) {
    try {
      for (const rec of readJournalFile(opts.resume, componentHasher)) byId.set(rec.event_id, rec);
    } catch (e) {
      journal?.closeSync(); // before the usage error exits: the lock is removed
      if (e instanceof JournalError) throw new UsageError(`--resume ${opts.resume}: ${e.message}`);
      throw e;
    }
  }
  // held records resume too (journal format 2)
  return { journal, resumed: [...byId.values()].filter((r) => r.status === 'pending' || r.status === 'held') };
}

/**
 * (record) -> the RetryPolicy of its own admitted policy (one per distinct
 * document), on the replica's store and clock: `options` as the replica's policy has them.
 */
export function admittedPolicies(options) {
  const made = new Map();
  return (rec) => {
    const doc = hashDocument(rec);
    let p = made.get(doc);
    if (p === undefined) {
      p = new RetryPolicy(doc, options);
      made.set(doc, p);
    }
    return p;
  };
}
