// `replica replay`: replay dead letters of a journal (docs/engine.md section
// 9) by feeding the delivery engine's `replay` input: the engine resumes
// --store's journal (its one writer: the lock), replays under --policy's
// document, and the lines of the replay (each new event's record, then the
// dead letter's with `replayed_as`) are appended to the journal. Nothing is
// sent: the next run (--store / --resume) sends the replays. Prints ONE JSON
// line {"replayed", "already_replayed", "skipped_no_class", "ids"} and exits
// 0; 2 on bad flags, an unreadable or refused policy or journal.
import fs from 'node:fs';
import { DeliveryEngine, PolicyError } from '@webhook/retry-policy';
import { JournalFile, JournalError } from '../dispatcher/journal-file.mjs';
import { UsageError, integer, readFlags } from './args.mjs';

export const REPLAY_USAGE = `usage: replica replay --store FILE --policy FILE [--endpoint ID] [--reason STOP_REASON]
                      [--from-ms N] [--to-ms N] [--limit N] [--now-ms N]

Replays the dead letters of journal FILE not yet replayed (journal order; at
most --limit, default and largest 10000), chosen by endpoint id, stop reason and
finished_at_ms in [--from-ms, --to-ms), each as a new event "<id>~r<n>" under
--policy's document (its class's current policy). --now-ms: the admission
instant (tests; default the wall clock). Prints one JSON line.`;

const FLAGS = ['--store', '--policy', '--endpoint', '--reason', '--from-ms', '--to-ms', '--limit', '--now-ms'];

/** argv after `replay` -> {store, policyText, filter, nowMs} (UsageError on a bad flag or an unreadable policy). */
export function parseReplayArgs(argv) {
  const seen = readFlags(argv, FLAGS, [], 'replay: ');
  for (const required of ['--store', '--policy']) if (!seen.has(required) || seen.get(required) === '') throw new UsageError(`replay: ${required} is required`);
  let policyText;
  try {
    policyText = fs.readFileSync(seen.get('--policy'), 'utf8');
  } catch (e) {
    throw new UsageError(`--policy: cannot read ${seen.get('--policy')}: ${e.message}`);
  }
  const opt = (flag, f) => (seen.has(flag) ? f(seen.get(flag)) : null);
  const int = (flag, min = 0) => opt(flag, (v) => integer(flag, v, min));
  return {
    store: seen.get('--store'),
    policyText,
    policyPath: seen.get('--policy'),
    filter: { endpoint_id: opt('--endpoint', (v) => v), stop_reason: opt('--reason', (v) => v), from_ms: int('--from-ms'), to_ms: int('--to-ms'), limit: int('--limit') },
    nowMs: int('--now-ms') ?? Date.now(),
  };
}

/** Every journal line of `outputs` (an engine that does not dispatch sends nothing). */
const journalLines = (outputs) => outputs.filter((a) => a.action === 'journal').map((a) => a.line);

/** The replay input of a filter (its unset fields left out). */
const replayInput = (filter, nowMs) => Object.fromEntries(Object.entries({ op: 'replay', now_ms: nowMs, ...filter }).filter(([, v]) => v !== null));

/** Run `replica replay ...`: the exit code (0, or 2 with one line on stderr). */
export async function replayCommand(argv, { out = process.stdout, err = process.stderr } = {}) {
  if (argv.includes('--help')) {
    err.write(`${REPLAY_USAGE}\n`);
    return 0;
  }
  let engine = null;
  let journal = null;
  try {
    const o = parseReplayArgs(argv);
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
