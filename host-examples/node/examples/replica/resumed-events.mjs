// STOPGAP (until the engine says which events a `resume` reopened: the
// `resumed` action asked for in /work/briefs/requests-drive-rust.md R1):
// the ids of the open (pending or held) events of a journal's bytes, newest
// record per event, so the replica counts them in --concurrency and in its
// summary. Reads only `event_id` and `status`; a line it cannot read is
// skipped (the engine itself refuses a bad journal, with the line).
export function openEventIds(bytes) {
  const status = new Map();
  for (const line of bytes.toString('utf8').split('\n')) {
    let v;
    try {
      v = JSON.parse(line.slice(line.indexOf(' ') + 1));
    } catch {
      continue;
    }
    if (typeof v?.event_id === 'string' && typeof v.status === 'string') status.set(v.event_id, v.status);
  }
  return [...status].filter(([, s]) => s === 'pending' || s === 'held').map(([id]) => id);
}
