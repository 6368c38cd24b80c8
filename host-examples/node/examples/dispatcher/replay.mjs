// Replay of dead letters (docs/health-dispatch.md section 4): each chosen
// dead letter is admitted again as a new event under the current document's
// policy for its class (`admit-compiled` at now_ms), id `<id>~r<n>`, the
// same endpoint, target, class and body, `replay_of` and
// `replayed_dead_letter` set. At most once: the new record is the commit (a
// dead letter is replayed when its record has `replayed_as` or any record's
// `replay_of` names it); the dead letter's own `replayed_as` record follows
// as a convenience (a crash before it replays nothing twice).
import { admittedRecord, asV2 } from './journal-record.mjs';

export const DEFAULT_REPLAY_LIMIT = 10_000;

/** The replay's id: `<id>~r1`, or `<base>~r<n+1>` for an id already ending `~r<n>`. */
export function replayId(eventId) {
  const m = /~r([1-9][0-9]*)$/.exec(eventId);
  if (m === null) return `${eventId}~r1`;
  return `${eventId.slice(0, m.index)}~r${Number(m[1]) + 1}`;
}

/** Whether a dead letter's record matches the filter (endpoint_id exact; stop_reason; finished_at_ms in [from_ms, to_ms)). */
function chosen(rec, f) {
  if (f.endpoint_id != null && rec.endpoint_id !== f.endpoint_id) return false;
  if (f.stop_reason != null && rec.stop_reason !== f.stop_reason) return false;
  if (f.from_ms != null && rec.finished_at_ms < f.from_ms) return false;
  if (f.to_ms != null && rec.finished_at_ms >= f.to_ms) return false;
  return true;
}

/**
 * Replay the dead letters of `journal` (a Journal, its one writer) chosen by
 * `filter` {endpoint_id?, stop_reason?, from_ms?, to_ms?, limit?}, in journal
 * order, under `policy` (a HealthPolicy: the current document) at `nowMs`.
 * Resolves to {replayed, already_replayed, skipped_no_class, ids}.
 * `onReplayed()`: called once per replay written (metrics).
 */
export async function replayDeadLetters(journal, policy, filter, nowMs, onReplayed = () => {}) {
  const limit = filter.limit ?? DEFAULT_REPLAY_LIMIT;
  const out = { replayed: 0, already_replayed: 0, skipped_no_class: 0, ids: [] };
  const classes = new Set(policy.classes);
  for (const rec of journal.events()) {
    if (rec.status !== 'dead_lettered' || !chosen(rec, filter)) continue;
    if (journal.replayedAs(rec.event_id) !== null) {
      out.already_replayed += 1;
      continue;
    }
    if (out.replayed + out.skipped_no_class >= limit) break;
    if (!classes.has(rec.class)) {
      out.skipped_no_class += 1;
      continue;
    }
    const compiled = policy.compiled(rec.class);
    const admission = policy.admit(rec.class, nowMs);
    const id = replayId(rec.event_id);
    const replay = admittedRecord({ id, endpoint_id: rec.endpoint_id, url: rec.target, class: rec.class }, admission, compiled.toJSON(), nowMs, null, compiled.health);
    if (rec.body_b64 !== undefined) replay.body_b64 = rec.body_b64;
    replay.replay_of = rec.event_id;
    replay.replayed_dead_letter = rec.dead_letter;
    await journal.append(replay); // the commit
    await journal.append({ ...asV2(rec), replayed_as: id });
    out.replayed += 1;
    out.ids.push(id);
    onReplayed();
  }
  return out;
}
