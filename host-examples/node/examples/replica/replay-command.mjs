// `replica replay`: replay dead letters of a journal (docs/engine.md section
// 9) by feeding the delivery engine's `replay` input: the engine resumes
// --store's journal (its one writer: the lock), replays under --policy's
// document, and the lines of the replay (each new event's record, then the
// dead letter's with `replayed_as`) are appended to the journal. Nothing is
// sent: the next run (--store / --resume) sends the replays. Prints ONE JSON
// line {"replayed", "already_replayed", "skipped_no_class", "ids"} and exits
// 0; 2 on bad flags, an unreadable or refused policy or journal.
import { DeliveryEngine, PolicyError } from '@webhook/retry-policy';
import { JournalFile, JournalError } from '../dispatcher/journal-file.mjs';
import { UsageError, judge, readPolicy } from './args.mjs';

/** `args` after `replay` -> {store, policyText, policyPath, filter, nowMs} (UsageError on a bad flag or an unreadable policy). */
function parseReplayArgs(args) {
  const o = judge('replay', args);
  return {
    store: o.store,
    policyText: readPolicy(o.policy),
    policyPath: o.policy,
    filter: { endpoint_id: o.endpoint, stop_reason: o.reason, from_ms: o.from_ms, to_ms: o.to_ms, limit: o.limit },
    nowMs: o.now_ms ?? Date.now(),
  };
}

/** Every journal line of `outputs` (an engine that does not dispatch sends nothing). */
const journalLines = (outputs) => outputs.filter((a) => a.action === 'journal').map((a) => a.line);

/** The replay input of a filter (its unset fields left out). */
const replayInput = (filter, nowMs) => Object.fromEntries(Object.entries({ op: 'replay', now_ms: nowMs, ...filter }).filter(([, v]) => v !== null));

/** Run `replica replay ...` (the artifact loaded; --help answered): the exit code (0, or 2 with one line on stderr). */
export async function replayCommand(args, { out = process.stdout, err = process.stderr } = {}) {
  let engine = null;
  let journal = null;
  try {
    const o = parseReplayArgs(args);
    try {
      engine = new DeliveryEngine({ document: o.policyText, memory_store: true, dispatch: false });
    } catch (e) {
      if (e instanceof PolicyError) throw new UsageError(`--policy ${o.policyPath}: ${e.code} at ${e.field}: ${e.message}`);
      throw e;
    }
    try {
      journal = new JournalFile(o.store, { nowMs: o.nowMs });
      const bytes = journal.bytes();
      const lines = [];
      if (bytes.length > 0) {
        const resumed = engine.resume(o.nowMs, bytes);
        if (resumed.errors.length > 0) throw new UsageError(`--store ${o.store}: ${resumed.errors[0].message}`);
        for (const a of resumed.outputs) if (a.action === 'journal_truncate') journal.truncate(a.keep_bytes);
        lines.push(...journalLines(resumed.outputs));
      }
      const answer = engine.feed([replayInput(o.filter, o.nowMs)]);
      if (answer.errors.length > 0) throw new UsageError(`replay: ${answer.errors[0].message}`);
      // dispatch false: the replays are journaled, and the next run sends them.
      const end = answer.outputs.findIndex((a) => a.action === 'replayed');
      lines.push(...journalLines(answer.outputs));
      if (lines.length > 0) await journal.append(lines);
      await journal.close();
      journal = null;
      const { action, ...result } = answer.outputs[end];
      out.write(`${JSON.stringify(result)}\n`);
      return 0;
    } catch (e) {
      if (e instanceof JournalError) throw new UsageError(`--store ${o.store}: ${e.message}`);
      throw e;
    }
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err.write(`replica replay: ${e.message}\n`);
    return 2;
  } finally {
    if (journal !== null) await journal.close().catch(() => {});
    engine?.close();
  }
}
